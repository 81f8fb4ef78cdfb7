/**
 * Blind spots in whole poll cycles (docs/alerts.md, Blind spots): real cycles against a loopback API and
 * dynalite, SNS through aws-sdk-client-mock. A rule on a missing path alerts once after ALERT_AFTER cycles and
 * resolves when the field appears (same incident); a network failing (404, time-out) alerts once, two in one
 * cycle in one alert, and recovers; duplicate and concurrent cycles and an SNS outage send each alert once;
 * while all is well the health item is not written.
 */
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import type { Reply } from '../fixtures/fake-api.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

interface Sent {
  readonly event: string;
  readonly subject: string;
  readonly rule?: string;
  readonly incident?: string;
  readonly action?: string;
  readonly networks: string[];
}

describe('blind spots in the poll cycle (dynalite, loopback API)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let sns: SNSClient;
  let snsDown: boolean;
  let accepted: PublishCommandInput[];
  /** Each network's answer now. */
  let replies: Record<string, Reply>;
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'health-cycle-key-0123456' });
    dynamo = await startDynamo();
    sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const snsMock = mockClient(sns);
    snsDown = false;
    accepted = [];
    let ids = 0;
    snsMock.on(PublishCommand).callsFake(async (input: PublishCommandInput) => {
      if (snsDown) throw Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' });
      accepted.push(input);
      return { MessageId: `m-${++ids}` };
    });
    const normal: Reply = { body: { traffic: { in: { pps: 100, bps: 8000 } }, dropped: { pps: 0 } } };
    replies = { 'net-1': normal, 'net-2': normal, 'net-3': normal };
    api.network = (id) => replies[id] ?? { status: 404, body: { error: 'no such network' } };
    now = Date.now();
  });
  afterEach(async () => {
    sns.destroy();
    await api.close();
    await dynamo.close();
  });

  const monitor = (rules = '', networks = 'net-1,net-2,net-3'): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: networks,
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '300',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_ALERT_AFTER: '3',
      ...(rules === '' ? {} : { SHIELDWATCH_RULES: rules }),
    };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: () => now,
    });
  };
  const cycle = (m: Monitor) => runCycle(m.deps, m.settings, m.deps.now() + 10_000);
  const tick = () => {
    now += 60_000;
  };
  /** The network health alerts SNS accepted, in order. */
  const healthSent = (): Sent[] =>
    accepted
      .filter((input) =>
        /^network\.(unreachable|recovered|rule_unreadable|rule_readable)$/.test(
          input.MessageAttributes?.['event']?.StringValue ?? '',
        ),
      )
      .map((input) => {
        const a = input.MessageAttributes!;
        const sqs = JSON.parse(JSON.parse(input.Message!).sqs) as {
          incident?: string;
          action?: string;
          networks?: Array<{ network: string }>;
        };
        return {
          event: a['event']!.StringValue!,
          subject: input.Subject!,
          ...(a['rule'] === undefined ? {} : { rule: a['rule'].StringValue! }),
          ...(sqs.incident === undefined ? {} : { incident: sqs.incident }),
          ...(sqs.action === undefined ? {} : { action: sqs.action }),
          networks: (sqs.networks ?? []).map((n) => n.network),
        };
      });
  const healthItem = async () =>
    (
      await DynamoDBDocumentClient.from(dynamo.client).send(
        new GetCommand({ TableName: dynamo.table, Key: { pk: 'state', sk: 'health#0' } }),
      )
    ).Item;

  it('a rule on a missing path alerts once after ALERT_AFTER cycles and resolves when the field appears', async () => {
    // Prepare: the README's old mistake, traffic.in_pps against a body that has traffic.in.pps.
    const m = monitor('pps: traffic.in_pps > 50k', 'net-1,net-2');
    const perCycle: string[][] = [];

    // Act: four cycles without the field, then the field appears.
    for (let i = 0; i < 4; i++) {
      perCycle.push((await cycle(m)).queued.map((a) => a.event));
      tick();
    }
    replies['net-1'] = { body: { traffic: { in_pps: 10 } } };
    replies['net-2'] = { body: { traffic: { in_pps: 20 } } };
    perCycle.push((await cycle(m)).queued.map((a) => a.event));
    tick();
    perCycle.push((await cycle(m)).queued.map((a) => a.event));

    // Assess
    expect(perCycle).toEqual([[], [], ['network.rule_unreadable'], [], ['network.rule_readable'], []]);
    const sent = healthSent();
    expect(sent.map((s) => [s.event, s.rule, s.action, s.networks])).toEqual([
      ['network.rule_unreadable', 'pps', 'trigger', ['net-1', 'net-2']],
      ['network.rule_readable', 'pps', 'resolve', ['net-1', 'net-2']],
    ]);
    expect(sent[0]!.subject).toBe('[shieldwatch] rule pps reads nothing (traffic.in_pps) on net-1, net-2');
    expect(sent[0]!.incident).toBeDefined();
    expect(sent[1]!.incident).toBe(sent[0]!.incident);
    // Recorded as events too, with their networks.
    const events = (await m.store.queryEvents({})).filter((e) => e.event.startsWith('network.rule_'));
    expect(events.map((e) => e.event)).toEqual(['network.rule_unreadable', 'network.rule_readable']);
  });

  it('a network failing (404, then time-outs) alerts once with its failure, and recovers with the same incident', async () => {
    // Prepare
    const m = monitor();
    replies['net-2'] = { status: 404, body: { error: 'unknown network' } };
    const perCycle: string[][] = [];

    // Act: 404 twice, a time-out (still failing: one run), a fourth failure, then it answers.
    const run = async () => {
      perCycle.push((await cycle(m)).queued.map((a) => a.event));
      tick();
    };
    await run();
    await run();
    replies['net-2'] = { hang: true };
    await run();
    await run();
    replies['net-2'] = { body: { traffic: { in: { pps: 5 } } } };
    await run();
    await run();

    // Assess
    expect(perCycle).toEqual([[], [], ['network.unreachable'], [], ['network.recovered'], []]);
    const sent = healthSent();
    expect(sent.map((s) => [s.event, s.action, s.networks])).toEqual([
      ['network.unreachable', 'trigger', ['net-2']],
      ['network.recovered', 'resolve', ['net-2']],
    ]);
    expect(sent[0]!.subject).toBe('[shieldwatch] network unreachable: net-2 (transport)');
    const email = JSON.parse(
      accepted.find((i) => i.MessageAttributes?.['event']?.StringValue === 'network.unreachable')!.Message!,
    ).email as string;
    expect(email).toContain('net-2: transport, 3 cycles in a row');
    expect(sent[1]!.incident).toBe(sent[0]!.incident);
    // The API as a whole answered all along: no api.unreachable.
    expect(accepted.map((i) => i.MessageAttributes?.['event']?.StringValue)).not.toContain('api.unreachable');
  });

  it('two networks failing in the same cycle: one alert naming both, with kind and HTTP status', async () => {
    const m = monitor();
    replies['net-1'] = { status: 404, body: {} };
    replies['net-3'] = { status: 503, body: {} };
    for (let i = 0; i < 3; i++) {
      await cycle(m);
      tick();
    }
    const sent = healthSent();
    expect(sent.map((s) => [s.event, s.networks])).toEqual([['network.unreachable', ['net-1', 'net-3']]]);
    expect(sent[0]!.subject).toBe(
      '[shieldwatch] 2 networks unreachable: net-1 (client, HTTP 404), net-3 (server, HTTP 503)',
    );
  });

  it('duplicate and concurrent cycles and an SNS outage send each alert once; all well: no write', async () => {
    // Prepare: two processes on one table.
    const first = monitor('pps: traffic.in_pps > 50k');
    const second = monitor('pps: traffic.in_pps > 50k');
    replies['net-1'] = { status: 404, body: {} };

    // Act: every tick runs twice (a retried invocation) and at once (two instances); SNS is down when the
    // alerts are due, and back a cycle later.
    const net3 = replies['net-3']!;
    replies['net-3'] = { hang: true };
    for (let i = 0; i < 2; i++) {
      if (i === 1) replies['net-3'] = net3;
      await cycle(first);
      await cycle(second);
      tick();
    }
    snsDown = true;
    await Promise.all([cycle(first), cycle(second)]);
    tick();
    snsDown = false;
    await Promise.all([cycle(first), cycle(second)]);
    tick();
    await cycle(second);

    // Assess: publication, not queueing. A request cut short (here net-3's first, as a loaded machine's 300 ms
    // time-out does) is no evidence, so that network crosses a cycle later and joins the open incident: a second
    // `network.rule_unreadable` of the same incident (a join), queued by the next cycle. Each alert is published
    // once: one unreachable incident (net-1); one unreadable incident (net-1 answered nothing, so the rule reads
    // nothing on net-2 and net-3) whose alerts name each of them once; all sent after the outage.
    const sent = healthSent();
    expect(new Set(sent.map((x) => JSON.stringify(x))).size).toBe(sent.length);
    expect(sent.filter((x) => x.event === 'network.unreachable').map((x) => x.networks)).toEqual([['net-1']]);
    const unreadable = sent.filter((x) => x.event === 'network.rule_unreadable');
    expect(unreadable.flatMap((x) => x.networks).sort()).toEqual(['net-2', 'net-3']);
    expect(new Set(unreadable.map((x) => x.incident)).size).toBe(1);
    expect(unreadable.map((x) => x.action)).toEqual(unreadable.map(() => 'trigger'));
    expect((await healthItem())?.['outbox']).toEqual({});

    // And once all is well, a cycle writes nothing to the health item.
    const stats = (first.store as unknown as { stats: { writes: number } }).stats;
    replies['net-1'] = { body: { traffic: { in_pps: 1 } } };
    replies['net-2'] = { body: { traffic: { in_pps: 1 } } };
    replies['net-3'] = { body: { traffic: { in_pps: 1 } } };
    tick();
    await cycle(first);
    const version = (await healthItem())?.['version'];
    tick();
    await cycle(first);
    expect((await healthItem())?.['version']).toBe(version);
    expect(stats.writes).toBeGreaterThan(0);
  });
});
