import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { mulberry32 } from '../../cli/simulator/scenario.ts';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { ProtectionApiClient } from '../../lambda/adapters/protection-api.ts';
import { SnsAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { type CycleDeps, type CycleSettings, runCycle } from '../../lambda/cycle.ts';
import type { StateStore } from '../../lambda/ports.ts';
import { startDynamo } from '../fixtures/dynalite.ts';
import { type Reply, startFakeApi } from '../fixtures/fake-api.ts';

const STATUSES = ['active', 'mitigating', 'blocked', ''];

/** What a faulty answer of the filter endpoint looks like; none of them carries a readable status. */
const FAULTS: ReadonlyArray<(status: string) => Reply> = [
  () => ({ status: 500, body: { error: 'internal' } }),
  () => ({ status: 503, body: 'upstream down', headers: { 'content-type': 'text/plain' } }),
  () => ({ status: 429, headers: { 'retry-after': '0' }, body: { error: 'slow down' } }),
  () => ({ hang: true }),
  () => ({ destroy: true }),
  () => ({ body: '{"status": "act', headers: { 'content-type': 'application/json' } }),
  () => ({ body: { data: { unrelated: true } } }),
  (status) => ({ body: { status: { nested: status } } }),
  () => ({ status: 302, headers: { location: 'http://127.0.0.2:1/steal' } }),
  () => ({ status: 401, body: { error: 'bad key' } }),
  () => ({ stallBodyAfterHeaders: true, body: { status: 'never-complete' } }),
];

/** The outcome of a chaos run, for assertions and reports. */
export interface ChaosReport {
  readonly seed: number;
  readonly cycles: number;
  /** Status transitions the monitor could have seen (readable observations, in order). */
  readonly expected: readonly string[];
  /** `filter.status_changed` alerts SNS accepted, in order. */
  readonly alerted: readonly string[];
  /** Transitions recorded as events. */
  readonly events: readonly string[];
  /** Filter and network snapshots stored, against cycles run. */
  readonly filterSnapshots: number;
  readonly networkSnapshots: number;
  readonly networks: number;
  readonly publishAttempts: number;
  readonly publishFailures: number;
  readonly crashes: number;
  readonly ms: number;
}

/**
 * Runs `cycles` poll cycles against a loopback API that changes its status at random and answers with a
 * random fault a third of the time, with SNS failing at random, cycles run twice or at the same time, and
 * cycles that "crash" between the state write and the publish. Then it lets the monitor drain in calm
 * conditions and reports what was alerted against what really happened.
 */
export async function runChaos(options: {
  cycles: number;
  seed: number;
  /** Chance per cycle that the true status changes. @default 0.15 */
  changeRate?: number;
  /** Cycles [from, to) during which SNS refuses everything: a long outage that overflows the state item. */
  outage?: readonly [number, number];
}): Promise<ChaosReport> {
  const started = Date.now();
  // Seeded (mulberry32, as the simulator uses), so a failing run can be replayed from its seed.
  const random = mulberry32(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const api = await startFakeApi({ key: 'chaos-key-0123456789' });
  const dynamo = await startDynamo();
  const sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const snsMock = mockClient(sns);
  let snsDown = false;
  let publishAttempts = 0;
  let publishFailures = 0;
  const alerted: string[] = [];
  snsMock.on(PublishCommand).callsFake(async (input) => {
    publishAttempts++;
    if (snsDown || random() < 0.1) {
      publishFailures++;
      throw Object.assign(new Error('SNS throttled'), { name: 'ThrottledException' });
    }
    const attributes = input.MessageAttributes ?? {};
    if (attributes['event']?.StringValue === 'filter.status_changed') {
      alerted.push(`${attributes['from']?.StringValue}>${attributes['to']?.StringValue}`);
    }
    return { MessageId: `m-${publishAttempts}` };
  });

  const networks = ['edge-1', 'edge/2'];
  let truth = 'active';
  let fault: ((status: string) => Reply) | undefined;
  api.filter = () =>
    fault === undefined ? { body: { meta: { at: Date.now() }, status: truth } } : fault(truth);
  api.network = () =>
    random() < 0.2
      ? { status: 502, body: { error: 'bad gateway' } }
      : { body: { pps: Math.round(random() * 1e6) } };

  const store = new DynamoStore(dynamo.client, dynamo.table);
  let crashes = 0;
  // A cycle that dies right after its state write: nothing else it would write reaches the store.
  const crashingState: StateStore = Object.assign(Object.create(store) as DynamoStore, {
    recordEvent: async () => {
      crashes++;
      throw new Error('the process died before publishing');
    },
    release: async () => {
      throw new Error('the process died before publishing');
    },
  });
  const client = new ProtectionApiClient({
    baseUrl: api.url,
    apiKey: async () => api.key,
    timeoutMs: 150,
    maxBodyBytes: 64 * 1024,
    concurrency: 4,
    retries: 1,
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 20,
  });
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  // The monitor's clock moves one schedule period (a minute) per cycle, as on Lambda: claims of a cycle that
  // died have expired by the next one.
  let clockOffset = 0;
  const now = () => Date.now() + clockOffset;
  let ids = 0;
  const deps: CycleDeps = {
    api: client,
    snapshots: store,
    state: store,
    publisher: new SnsAlertPublisher(sns, 'arn:aws:sns:us-east-1:123456789012:chaos'),
    log: quiet,
    now,
    newId: () => `cycle-${++ids}`,
  };
  const settings: CycleSettings = {
    networks,
    pollFilter: true,
    retentionDays: 1,
    alertAfter: 3,
    confirmations: 1,
    monitorName: 'chaos',
  };

  const expected: string[] = [];
  let lastSeen: string | undefined;
  let cyclesRun = 0;
  const observe = (readable: boolean) => {
    if (!readable) return;
    if (lastSeen !== undefined && lastSeen !== truth) expected.push(`${lastSeen}>${truth}`);
    lastSeen = truth;
  };
  try {
    for (let i = 0; i < options.cycles; i++) {
      if (random() < (options.changeRate ?? 0.15)) truth = pick(STATUSES.filter((s) => s !== truth));
      fault = random() < 0.33 ? pick(FAULTS) : undefined;
      snsDown = random() < 0.1 ? !snsDown : snsDown;
      if (options.outage !== undefined) snsDown = i >= options.outage[0] && i < options.outage[1];
      const roll = random();
      if (roll < 0.1) {
        // The same scheduled event delivered twice, at the same time.
        await Promise.all([runCycle(deps, settings, now() + 2000), runCycle(deps, settings, now() + 2000)]);
        cyclesRun += 2;
      } else if (roll < 0.15) {
        await runCycle({ ...deps, state: crashingState }, settings, now() + 2000);
        cyclesRun += 1;
      } else {
        await runCycle(deps, settings, now() + 2000);
        cyclesRun += 1;
      }
      observe(fault === undefined);
      clockOffset += 60_000;
    }
    // Calm: no faults, SNS up, until every waiting alert is out.
    fault = undefined;
    snsDown = false;
    for (let i = 0; i < 50; i++) {
      const result = await runCycle(
        { ...deps, publisher: new SnsAlertPublisher(sns, 'arn:aws:sns:us-east-1:123456789012:chaos') },
        settings,
        now() + 2000,
      );
      cyclesRun++;
      observe(true);
      clockOffset += 60_000;
      if (result.pending === 0 && result.failed.length === 0) break;
    }
    const events = (await store.queryEvents({}))
      .filter((e) => e.event === 'filter.status_changed')
      .map((e) => `${e.from}>${e.to}`);
    return {
      seed: options.seed,
      cycles: cyclesRun,
      expected,
      alerted,
      events,
      filterSnapshots: (await store.querySnapshots({ kind: 'filter' }, {})).length,
      networkSnapshots: (
        await Promise.all(
          networks.map((networkId) => store.querySnapshots({ kind: 'network', networkId }, {})),
        )
      ).reduce((n, list) => n + list.length, 0),
      networks: networks.length,
      publishAttempts,
      publishFailures,
      crashes,
      ms: Date.now() - started,
    };
  } finally {
    await client.close();
    await api.close();
    await dynamo.close();
  }
}
