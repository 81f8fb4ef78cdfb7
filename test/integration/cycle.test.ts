import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import type { RenderedAlert } from '../../lambda/core/types.ts';
import {
  ApiKeyUnavailableError,
  CLAIM_GRACE_MS,
  type CycleLog,
  type CycleMetrics,
  runCycle,
  SPILL_ABOVE,
  StoreError,
} from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

interface Harness {
  api: FakeApi;
  dynamo: LocalDynamo;
  sns: SNSClient;
  snsMock: ReturnType<typeof mockClient>;
  monitor(extraEnv?: Record<string, string>, clock?: () => number): Monitor;
  published(): PublishCommandInput[];
  cycle(monitor: Monitor, budgetMs?: number): ReturnType<typeof runCycle>;
  setStatus(body: unknown): void;
}

async function harness(): Promise<Harness> {
  const api = await startFakeApi({ key: 'test-key-0123456789' });
  const dynamo = await startDynamo();
  const sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const snsMock = mockClient(sns);
  let ids = 0;
  snsMock.on(PublishCommand).callsFake(async () => ({ MessageId: `m-${++ids}` }));
  const monitors: Monitor[] = [];
  return {
    api,
    dynamo,
    sns,
    snsMock,
    monitor(extraEnv = {}, clock) {
      const env = {
        SHIELDWATCH_API_URL: api.url,
        SHIELDWATCH_API_KEY: api.key,
        SHIELDWATCH_NETWORKS: 'net-1,net-2',
        SHIELDWATCH_TABLE: dynamo.table,
        SHIELDWATCH_TOPIC_ARN: TOPIC,
        SHIELDWATCH_TIMEOUT_MS: '1000',
        SHIELDWATCH_RETRIES: '0',
        ...extraEnv,
      };
      const monitor = buildMonitor({
        config: loadConfig(env),
        env,
        dynamo: dynamo.client,
        sns,
        log: quiet,
        fallbackPublisher: new LogAlertPublisher(() => {}),
        ...(clock === undefined ? {} : { now: clock }),
      });
      monitors.push(monitor);
      return monitor;
    },
    published: () => snsMock.commandCalls(PublishCommand).map((call) => call.args[0].input),
    cycle: (monitor, budgetMs = 10_000) =>
      runCycle(monitor.deps, monitor.settings, monitor.deps.now() + budgetMs),
    setStatus(body) {
      api.filter = () => ({ body });
    },
  };
}

describe('the poll cycle against a loopback API and dynalite', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(async () => {
    await h.api.close();
    await h.dynamo.close();
  });

  describe('figure metrics (issue 14.3)', () => {
    /** A monitor whose cycle metrics are recorded: the figures handed to metrics, per network. */
    function recordingMonitor(extraEnv: Record<string, string>) {
      const sent: Array<[string, Array<readonly [string, number]>]> = [];
      const monitor = h.monitor(extraEnv);
      const metrics: CycleMetrics = {
        cycleCompleted: () => {},
        apiFailure: () => {},
        latency: () => {},
        statusChanged: () => {},
        alertPublished: () => {},
        figures: (networkId, figures) => sent.push([networkId, [...figures]]),
      };
      return { monitor: { ...monitor, deps: { ...monitor.deps, metrics } }, sent };
    }

    beforeEach(() => {
      h.api.network = (networkId) =>
        networkId === 'net-2'
          ? { status: 503, body: { error: 'down' } }
          : {
              body: {
                id: 48213,
                ts: 1_767_225_600,
                traffic: { in_pps: 900, in_bps: 7.5e6 },
                label: 'edge',
                links: [{ pps: 3 }, { pps: 4 }],
              },
            };
    });

    it('sends exactly the chosen fields that hold numbers, in the order chosen, for each network that answered', async () => {
      // Prepare
      const { monitor, sent } = recordingMonitor({
        SHIELDWATCH_FIGURE_FIELDS: 'links.1.pps,traffic.in_pps,missing.field,label',
      });

      // Act
      await h.cycle(monitor);

      // Assess
      expect(sent).toEqual([
        [
          'net-1',
          [
            ['links.1.pps', 4],
            ['traffic.in_pps', 900],
          ],
        ],
      ]);
    });

    it('sends no figures at all by default, not even ids and timestamps', async () => {
      // Prepare
      const { monitor, sent } = recordingMonitor({});

      // Act
      const result = await h.cycle(monitor);

      // Assess
      expect(result.networks.map((n) => n.ok)).toEqual([true, false]);
      expect(sent).toEqual([]);
    });
  });

  it('detects changes of a nested status whose other fields change on every call, one alert each', async () => {
    // Prepare
    const sequence = ['active', 'active', 'mitigating', 'mitigating', 'active'];
    let call = 0;
    h.api.filter = () => ({
      body: {
        meta: { requestId: call, at: Date.now() },
        data: { filter: { state: sequence[call++] }, load: Math.random() },
      },
    });
    const monitor = h.monitor({ SHIELDWATCH_STATUS_PATH: 'data.filter.state' });

    // Act
    const results = [];
    for (let i = 0; i < sequence.length; i++) results.push(await h.cycle(monitor));

    // Assess
    expect(results.map((r) => r.queued.map((a) => `${a.from}>${a.to}`).join())).toEqual([
      '',
      '',
      'active>mitigating',
      '',
      'mitigating>active',
    ]);
    const published = h.published();
    expect(published).toHaveLength(2);
    expect(published[0]).toMatchObject({
      TopicArn: TOPIC,
      MessageStructure: 'json',
      MessageAttributes: {
        event: { DataType: 'String', StringValue: 'filter.status_changed' },
        from: { DataType: 'String', StringValue: 'active' },
        to: { DataType: 'String', StringValue: 'mitigating' },
      },
    });
    const message = JSON.parse(published[0]!.Message!) as Record<string, string>;
    expect(Object.keys(message).sort()).toEqual(['default', 'email', 'https', 'sms', 'sqs']);
    expect(JSON.parse(message['sqs']!)).toMatchObject({
      event: 'filter.status_changed',
      from: 'active',
      to: 'mitigating',
    });
    expect(JSON.parse(message['https']!)).toMatchObject({ version: '1.0', source: 'custom' });
    expect(published[0]!.Subject).toMatch(/active.*mitigating/);
    expect(published[0]!.Subject!.length).toBeLessThanOrEqual(99);
    expect(message['sms']!.length).toBeLessThanOrEqual(160);
    expect(message['sms']).toContain('mitigating');
    expect(message['email']).toContain('net-1');
    expect(await monitor.store.querySnapshots({ kind: 'filter' }, {})).toHaveLength(5);
    expect(await monitor.store.querySnapshots({ kind: 'network', networkId: 'net-2' }, {})).toHaveLength(5);
    expect((await monitor.store.queryEvents({})).map((e) => `${e.from}>${e.to}`)).toEqual([
      'active>mitigating',
      'mitigating>active',
    ]);
  });

  it('stores every snapshot with its TTL, HTTP status, latency and error, and never lets one failure stop the others', async () => {
    // Prepare
    h.setStatus({ status: 'active' });
    h.api.network = (id) => (id === 'net-1' ? { status: 503, body: { error: 'busy' } } : { hang: true });
    const monitor = h.monitor({ SHIELDWATCH_NETWORKS: 'net-1,net-2,net-3' });
    h.api.network = (id) =>
      id === 'net-1'
        ? { status: 503, body: { error: 'busy' } }
        : id === 'net-2'
          ? { hang: true }
          : { body: { pps: 7 } };

    // Act
    const started = Date.now();
    const result = await h.cycle(monitor, 4000);
    const elapsed = Date.now() - started;
    const stored = await DynamoDBDocumentClient.from(h.dynamo.client).send(
      new QueryCommand({
        TableName: h.dynamo.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'network#net-1' },
      }),
    );

    // Assess
    expect(elapsed).toBeLessThan(4000);
    expect(result.filter).toMatchObject({
      ok: true,
      status: 'active',
      statusPath: 'status',
      httpStatus: 200,
    });
    expect(result.networks.map((n) => [n.ok, n.errorKind])).toEqual([
      [false, 'server'],
      [false, 'transport'],
      [true, undefined],
    ]);
    const item = stored.Items?.[0];
    expect(item).toMatchObject({ ok: false, httpStatus: 503, errorKind: 'server' });
    expect(item?.['expiresAt']).toBeGreaterThanOrEqual(Math.floor(started / 1000) + 90 * 86_400 - 1);
    expect(item?.['expiresAt']).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 90 * 86_400);
    expect(typeof item?.['latencyMs']).toBe('number');
  });

  it('never treats an unreadable status as a change', async () => {
    // Prepare
    const monitor = h.monitor();
    const bodies: unknown[] = [
      { status: 'on' },
      { status: { nested: 'x' } },
      'not json',
      { other: 1 },
      { status: 'on' },
      { status: 'off' },
    ];
    let i = 0;
    h.api.filter = () => {
      const body = bodies[i++];
      return typeof body === 'string' ? { body, headers: { 'content-type': 'text/plain' } } : { body };
    };

    // Act
    const results = [];
    for (let n = 0; n < bodies.length; n++) results.push(await h.cycle(monitor));

    // Assess
    expect(results.map((r) => r.filter?.ok)).toEqual([true, false, false, false, true, true]);
    expect(results[1]?.filter?.error).toMatch(/no status found/);
    expect(results[2]?.filter?.errorKind).toBe('contract');
    // Three unreadable 2xx answers in a row are an incident of their own (alert after 3), never a change.
    expect(
      h
        .published()
        .map((p) => [p.MessageAttributes?.['event']?.StringValue, p.MessageAttributes?.['to']?.StringValue]),
    ).toEqual([
      ['filter.status_unreadable', undefined],
      ['filter.status_readable', undefined],
      ['filter.status_changed', 'off'],
    ]);
  });

  it('sends each waiting transition in order after an SNS outage, exactly once (A->B->A)', async () => {
    // Prepare
    const monitor = h.monitor();
    h.setStatus({ status: 'A' });
    await h.cycle(monitor);
    h.snsMock
      .on(PublishCommand)
      .rejects(Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' }));

    // Act
    h.setStatus({ status: 'B' });
    const duringOutage1 = await h.cycle(monitor);
    h.setStatus({ status: 'A' });
    const duringOutage2 = await h.cycle(monitor);
    let ids = 0;
    h.snsMock.on(PublishCommand).callsFake(async () => ({ MessageId: `ok-${++ids}` }));
    const afterOutage = await h.cycle(monitor);
    const later = await h.cycle(monitor);

    // Assess
    expect(duringOutage1.failed).toHaveLength(1);
    expect(duringOutage1.pending).toBe(1);
    expect(duringOutage2.pending).toBe(2);
    expect(afterOutage.delivered.map((d) => d.seq)).toEqual([1, 2]);
    expect(afterOutage.pending).toBe(0);
    expect(later.delivered).toEqual([]);
    const accepted = h.published().slice(-2);
    expect(
      accepted.map(
        (p) => `${p.MessageAttributes?.['from']?.StringValue}>${p.MessageAttributes?.['to']?.StringValue}`,
      ),
    ).toEqual(['A>B', 'B>A']);
    expect((await monitor.store.queryEvents({})).map((e) => `${e.from}>${e.to}`)).toEqual(['A>B', 'B>A']);
  });

  it("reports each alert's time to alert, from its observation to its publish, also for one an outage held (CONTRACT §18)", async () => {
    // Prepare: the cycle's metrics recorded
    const published: Array<number | undefined> = [];
    const plain = h.monitor();
    const metrics: CycleMetrics = {
      cycleCompleted: () => {},
      apiFailure: () => {},
      latency: () => {},
      statusChanged: () => {},
      figures: () => {},
      alertPublished: (ok, ms) => {
        if (ok) published.push(ms);
      },
    };
    const monitor = { ...plain, deps: { ...plain.deps, metrics } };
    h.setStatus({ status: 'A' });
    await h.cycle(monitor);
    h.snsMock
      .on(PublishCommand)
      .rejects(Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' }));
    const observedFrom = Date.now();
    h.setStatus({ status: 'B' });
    await h.cycle(monitor);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Act
    h.snsMock.on(PublishCommand).callsFake(async () => ({ MessageId: 'ok' }));
    h.setStatus({ status: 'A' });
    await h.cycle(monitor);
    const until = Date.now();

    // Assess: A>B waited out the outage (at least the 300 ms pause); B>A went out in its own cycle
    expect(published).toHaveLength(2);
    const [held, fresh] = published as [number, number];
    expect(held).toBeGreaterThanOrEqual(300);
    expect(held).toBeLessThanOrEqual(until - observedFrom);
    expect(fresh).toBeGreaterThanOrEqual(0);
    expect(fresh).toBeLessThan(held);
  });

  it('keeps every transition of a long SNS outage out of the state item, then sends them all in order', async () => {
    // Prepare: SNS down while the status flaps 90 times
    const monitor = h.monitor({ SHIELDWATCH_NETWORKS: '' });
    h.setStatus({ status: 'S0' });
    await h.cycle(monitor);
    h.snsMock
      .on(PublishCommand)
      .rejects(Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' }));
    for (let i = 1; i <= SPILL_ABOVE + 26; i++) {
      h.setStatus({ status: `S${i}` });
      await h.cycle(monitor);
    }
    const duringOutage = await monitor.store.load();
    const stateItem = await DynamoDBDocumentClient.from(h.dynamo.client).send(
      new QueryCommand({
        TableName: h.dynamo.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'state' },
      }),
    );

    // Act
    let ids = 0;
    h.snsMock.on(PublishCommand).callsFake(async () => ({ MessageId: `ok-${++ids}` }));
    const after = await h.cycle(monitor);

    // Assess
    const transitions = SPILL_ABOVE + 26;
    expect(duringOutage.outbox).toHaveLength(transitions);
    expect(Object.keys(stateItem.Items?.[0]?.['outbox'] ?? {}).length).toBeLessThanOrEqual(SPILL_ABOVE + 1);
    expect(duringOutage.outbox.some((e) => e.spilled)).toBe(true);
    expect(after.delivered).toHaveLength(transitions);
    expect(after.pending).toBe(0);
    const sent = h
      .published()
      .filter((p) => p.MessageAttributes?.['event']?.StringValue === 'filter.status_changed');
    expect(sent.slice(-transitions).map((p) => p.MessageAttributes?.['to']?.StringValue)).toEqual(
      Array.from({ length: transitions }, (_, i) => `S${i + 1}`),
    );
    expect((await monitor.store.load()).outbox).toEqual([]);
    expect((await monitor.store.queryEvents({})).map((e) => e.to)).toEqual(
      Array.from({ length: transitions }, (_, i) => `S${i + 1}`),
    );
  });

  it('sends one alert when cycles run at the same time or twice', async () => {
    // Prepare
    const monitors = Array.from({ length: 6 }, () => h.monitor());
    h.setStatus({ status: 'green' });
    await h.cycle(monitors[0]!);
    h.setStatus({ status: 'red' });

    // Act
    await Promise.all(monitors.map((m) => h.cycle(m)));
    await Promise.all(monitors.map((m) => h.cycle(m)));
    h.setStatus({ status: 'green' });
    await Promise.all(monitors.map((m) => h.cycle(m)));

    // Assess
    expect(h.published().map((p) => p.MessageAttributes?.['to']?.StringValue)).toEqual(['red', 'green']);
    expect((await monitors[0]!.store.load()).outbox).toEqual([]);
  });

  it('publishes an alert whose cycle crashed between the state write and the publish', async () => {
    // Prepare
    let offset = 0;
    const monitor = h.monitor({}, () => Date.now() + offset);
    h.setStatus({ status: 'A' });
    await h.cycle(monitor);
    h.setStatus({ status: 'B' });
    const crashing = { ...monitor.deps, state: Object.create(monitor.store) };
    // A crash: nothing after the state write reaches the store, the claim taken with it included.
    crashing.state.recordEvent = async () => {
      throw new Error('process died');
    };
    crashing.state.release = async () => {
      throw new Error('process died');
    };

    // Act
    const crashed = await runCycle(crashing, monitor.settings, monitor.deps.now() + 2000);
    const whileClaimed = await h.cycle(monitor);
    offset = 2000 + CLAIM_GRACE_MS + 1000;
    const next = await h.cycle(monitor);

    // Assess
    expect(crashed.queued).toHaveLength(1);
    expect(crashed.delivered).toEqual([]);
    expect(whileClaimed.delivered).toEqual([]);
    expect(next.queued).toEqual([]);
    expect(next.delivered.map((d) => d.event)).toEqual(['filter.status_changed']);
    expect(h.published()).toHaveLength(1);
    expect((await monitor.store.queryEvents({})).map((e) => e.to)).toEqual(['B']);
  });

  it('takes over an alert claimed by a cycle that died, once its claim has expired', async () => {
    // Prepare
    let offset = 0;
    const monitor = h.monitor({}, () => Date.now() + offset);
    h.setStatus({ status: 'A' });
    await h.cycle(monitor);
    h.setStatus({ status: 'B' });
    const dying = {
      ...monitor.deps,
      publisher: { target: 'dead', publish: () => new Promise<string>(() => {}) },
    };
    void runCycle(dying, monitor.settings, monitor.deps.now() + 2_000);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Act
    const whileClaimed = await h.cycle(monitor);
    offset = 2_000 + CLAIM_GRACE_MS + 1000;
    const afterExpiry = await h.cycle(monitor);

    // Assess
    expect(whileClaimed.delivered).toEqual([]);
    expect(whileClaimed.pending).toBe(1);
    expect(afterExpiry.delivered).toHaveLength(1);
    expect(h.published()).toHaveLength(1);
  });

  it.each([
    { networks: 0, change: false, writes: 1 + 1 },
    { networks: 24, change: false, writes: 1 + 1 },
    { networks: 60, change: false, writes: 3 + 1 },
    { networks: 60, change: true, writes: 3 + 3 },
  ])(
    'writes at most ceil((networks + 1) / 25) + 3 requests: $networks networks, change $change',
    async ({ networks, change, writes }) => {
      // Prepare
      const ids = Array.from({ length: networks }, (_, i) => `n${i}`).join(',');
      const monitor = h.monitor({ SHIELDWATCH_NETWORKS: ids, SHIELDWATCH_CONCURRENCY: '16' });
      h.setStatus({ status: 'A' });
      await h.cycle(monitor);
      if (change) h.setStatus({ status: 'B' });
      h.dynamo.operations.length = 0;

      // Act
      const result = await h.cycle(monitor);

      // Assess
      const writeOps = h.dynamo.operations.filter((op) => op !== 'GetItem' && op !== 'Query');
      expect(result.delivered).toHaveLength(change ? 1 : 0);
      expect(writeOps).toHaveLength(writes);
      expect(writes).toBeLessThanOrEqual(Math.ceil((networks + 1) / 25) + 3);
      // Three reads: the monitor state, the shard's network health item (docs/alerts.md, Blind spots), which
      // is not written while every network answers, and the maintenance notices' item (docs/cost.md; the filter's
      // shard, which owes an occurrence's end even after its window is gone).
      expect(h.dynamo.operations.filter((op) => op === 'GetItem')).toHaveLength(3);
    },
  );

  it('throws StoreError when the store cannot be written, so the platform retries', async () => {
    // Prepare
    const monitor = h.monitor({ SHIELDWATCH_TABLE: 'no-such-table' });

    // Act
    const run = h.cycle(monitor);

    // Assess
    await expect(run).rejects.toBeInstanceOf(StoreError);
    await expect(run).rejects.toThrow(/cannot (store snapshots|read the monitor state)/);
  });

  it('fails with StoreError at its deadline when the store stops answering', async () => {
    // Prepare
    const monitor = h.monitor();
    h.setStatus({ status: 'A' });
    const hung = Object.create(monitor.store);
    hung.commit = () => new Promise(() => {});

    // Act
    const started = Date.now();
    const run = runCycle({ ...monitor.deps, state: hung }, monitor.settings, Date.now() + 1500);

    // Assess
    await expect(run).rejects.toThrow(/the store did not answer \(commit\) before the cycle's deadline/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('ends within its deadline when every endpoint hangs', async () => {
    // Prepare
    h.api.filter = () => ({ hang: true });
    h.api.network = () => ({ hang: true });
    const monitor = h.monitor({ SHIELDWATCH_TIMEOUT_MS: '10000' });

    // Act
    const started = Date.now();
    const result = await h.cycle(monitor, 2000);

    // Assess
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.filter).toMatchObject({ ok: false, errorKind: 'transport' });
    expect(result.networks.every((n) => n.errorKind === 'transport')).toBe(true);
    expect(await monitor.store.querySnapshots({ kind: 'network', networkId: 'net-1' }, {})).toHaveLength(1);
  });

  it('sends its alert when the deadline is no whole millisecond (half an odd budget)', async () => {
    // Prepare
    const monitor = h.monitor();
    h.setStatus({ status: 'A' });
    await h.cycle(monitor);
    h.setStatus({ status: 'B' });

    // Act
    const result = await runCycle(monitor.deps, monitor.settings, monitor.deps.now() + 8001 / 2);

    // Assess
    expect(result.failed).toEqual([]);
    expect(result.delivered).toHaveLength(1);
  });

  it('renders alerts to the log when no topic is configured', async () => {
    // Prepare
    const seen: RenderedAlert[] = [];
    const env = {
      SHIELDWATCH_API_URL: h.api.url,
      SHIELDWATCH_API_KEY: h.api.key,
      SHIELDWATCH_TABLE: h.dynamo.table,
    };
    const monitor = buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: h.dynamo.client,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher((alert) => seen.push(alert)),
    });
    h.setStatus({ state: 1 });
    await h.cycle(monitor);
    h.setStatus({ state: 2 });

    // Act
    const result = await h.cycle(monitor);

    // Assess
    expect(result.delivered).toHaveLength(1);
    expect(seen.map((a) => [a.attributes['from'], a.attributes['to']])).toEqual([['1', '2']]);
    expect(h.published()).toEqual([]);
  });
});

describe('the key from Secrets Manager', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  beforeEach(async () => {
    api = await startFakeApi({ key: 'secret-key-abcdef123' });
    dynamo = await startDynamo();
  });
  afterEach(async () => {
    await api.close();
    await dynamo.close();
  });

  const build = (secrets: SecretsManagerClient) => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY_SECRET: 'shieldwatch/api-key',
      SHIELDWATCH_TABLE: dynamo.table,
    };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      secrets,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
    });
  };

  it('reads a JSON secret once for many warm cycles, and again after the key was rejected', async () => {
    // Prepare
    const secrets = new SecretsManagerClient({ region: 'us-east-1' });
    const mock = mockClient(secrets);
    mock
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ apiKey: 'secret-key-abcdef123' }) });
    const monitor = build(secrets);

    // Act
    const first = await runCycle(monitor.deps, monitor.settings, Date.now() + 5000);
    await runCycle(monitor.deps, monitor.settings, Date.now() + 5000);
    const callsWarm = mock.commandCalls(GetSecretValueCommand).length;
    api.filter = () => ({ status: 401, body: { error: 'key revoked' } });
    await runCycle(monitor.deps, monitor.settings, Date.now() + 5000);
    api.filter = () => ({ body: { status: 'active' } });
    await runCycle(monitor.deps, monitor.settings, Date.now() + 5000);

    // Assess
    expect(first.filter).toMatchObject({ ok: true, status: 'active' });
    expect(api.requests[0]?.headers.authorization).toBe('Bearer secret-key-abcdef123');
    expect(callsWarm).toBe(1);
    expect(mock.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    expect(mock.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toEqual({
      SecretId: 'shieldwatch/api-key',
    });
  });

  it('fails the cycle with a clear ApiKeyUnavailableError, without the value, when the secret is empty or missing', async () => {
    // Prepare
    const secrets = new SecretsManagerClient({ region: 'us-east-1' });
    const mock = mockClient(secrets);
    mock
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: '  ' })
      .rejects(
        Object.assign(new Error("Secrets Manager can't find the specified secret."), {
          name: 'ResourceNotFoundException',
        }),
      );
    const monitor = build(secrets);

    // Act
    const empty = runCycle(monitor.deps, monitor.settings, Date.now() + 5000);
    await expect(empty).rejects.toBeInstanceOf(ApiKeyUnavailableError);
    // The name is what logs and the CLI print (describeError): it says what failed.
    await expect(empty).rejects.toMatchObject({ name: 'ApiKeyUnavailableError' });
    await expect(empty).rejects.toThrow(/shieldwatch\/api-key is empty/);
    const missing = runCycle(monitor.deps, monitor.settings, Date.now() + 5000);

    // Assess
    await expect(missing).rejects.toThrow(/ResourceNotFoundException/);
    expect(api.requests).toHaveLength(0);
  });
});
