/**
 * Silences honoured by the real cycle (docs/silences.md): an alert observed inside a silence is recorded as
 * suppressed with the silence's id, never published, never sent later, once across duplicate, concurrent and
 * crashing cycles; an alert that waited in the outbox from before the silence is still sent; reminders pause;
 * a cycle reads the silences only when it has an alert to send. Real parts on loopback: dynalite (behind a
 * proxy that can throttle chosen requests), a fake protection API; SNS through aws-sdk-client-mock.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoSilenceStore } from '../../lambda/adapters/silence-store.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { newSilence, type Silence } from '../../lambda/core/silences/silence.ts';
import { CLAIM_GRACE_MS, type CycleLog, type CycleResult, runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { type DynamoProxy, isOutboxRemoval, startDynamoProxy } from '../fixtures/fake-aws.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

/** An SNS through aws-sdk-client-mock that accepts, or refuses while `down` is set. */
function mockedSns() {
  const client = new SNSClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const mock = mockClient(client);
  const sns = { client, down: false, subjects: [] as string[], documents: [] as Record<string, unknown>[] };
  let ids = 0;
  mock.on(PublishCommand).callsFake(async (input: { Subject?: string; Message?: string }) => {
    if (sns.down) throw Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' });
    sns.subjects.push(input.Subject ?? '');
    // The `sqs` document: what PagerDuty's event_action and dedup_key come from.
    sns.documents.push(JSON.parse(JSON.parse(input.Message ?? '{}').sqs ?? '{}'));
    return { MessageId: `m-${++ids}` };
  });
  return sns;
}

describe('silences in the cycle', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let proxy: DynamoProxy;
  let silences: DynamoSilenceStore;
  const clients: DynamoDBClient[] = [];
  /** The monitors' clock runs this far ahead of the real one (later schedule ticks). */
  let offset = 0;
  const now = () => Date.now() + offset;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'silences-key-0123456789' });
    dynamo = await startDynamo();
    proxy = await startDynamoProxy(dynamo.endpoint);
    silences = new DynamoSilenceStore(dynamo.client, dynamo.table);
    offset = 0;
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await proxy.close();
    await api.close();
    await dynamo.close();
  });

  /** A monitor as one process builds it (a cold start). */
  const monitor = (sns: SNSClient, extraEnv: Record<string, string> = {}): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '3000',
      SHIELDWATCH_RETRIES: '0',
      ...extraEnv,
    };
    const client = new DynamoDBClient({
      endpoint: proxy.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    clients.push(client);
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: client,
      sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now,
    });
  };
  const cycle = (m: Monitor, budgetMs = 4000) => runCycle(m.deps, m.settings, m.deps.now() + budgetMs);
  /** The next schedule tick: every claim of the cycles so far has expired. */
  const nextTick = (ms = 10_000 + CLAIM_GRACE_MS) => {
    offset += ms;
  };
  const status = (value: string) => {
    api.filter = () => ({ body: { status: value } });
  };
  /** A silence from the monitors' now, as `shieldwatch silence --for` makes it. */
  const silence = async (duration: string, pattern = '*', id = 's-aaaaaaaa'): Promise<Silence> => {
    const made = newSilence({ duration, pattern, reason: 'maintenance' }, now(), id);
    if (!made.ok) throw new Error(made.problems.join('; '));
    expect(await silences.put(made.silence)).toBe(true);
    return made.silence;
  };
  const events = (m: Monitor) => m.store.queryEvents({});
  const all = (results: readonly CycleResult[], key: 'delivered' | 'suppressed' | 'failed') =>
    results.flatMap((r) => r[key]);

  it('a status change inside a silence is recorded as suppressed with its id, never published; still holding when the silence ends, it is announced once', async () => {
    // Prepare
    const sns = mockedSns();
    const m = monitor(sns.client);
    status('A');
    await cycle(m);
    const s = await silence('1h');
    status('B');

    // Act
    const reads = () => (m.deps.silences as DynamoSilenceStore).stats.reads;
    const during = await cycle(m);
    nextTick();
    const readsBefore = reads();
    const again = await cycle(m);
    const readsWhileHeld = reads() - readsBefore;
    expect((await silences.end(s.id, now())).outcome).toBe('ended');
    nextTick();
    const after = await cycle(m);
    nextTick();
    const readsAfter = reads();
    await cycle(m);
    const readsOnceAnnounced = reads() - readsAfter;

    // Assess
    expect(during.suppressed).toEqual([
      { seq: expect.any(Number), event: 'filter.status_changed', suppressedBy: s.id },
    ]);
    expect(during.delivered).toEqual([]);
    expect(during.pending).toBe(0);
    expect([...again.suppressed, ...again.delivered, ...after.suppressed]).toEqual([]);
    expect(after.delivered).toEqual([expect.objectContaining({ event: 'silence.still_holding' })]);
    expect(sns.subjects).toEqual([`[shieldwatch] still B after silence ${s.id}`]);
    expect((await m.store.load()).outbox).toEqual([]);
    // The cost: one silence Query per cycle on the filter's shard (maintenance windows and their notices), shared
    // by the outboxes: never a second one while a change is held back.
    expect([readsWhileHeld, readsOnceAnnounced]).toEqual([1, 1]);
    expect(await events(m)).toEqual([
      expect.objectContaining({ event: 'filter.status_changed', from: 'A', to: 'B', suppressedBy: s.id }),
      expect.objectContaining({ event: 'silence.still_holding', from: 'A', to: 'B' }),
    ]);
  });

  it('ending a silence: the next change is published', async () => {
    // Prepare
    const sns = mockedSns();
    const m = monitor(sns.client);
    status('A');
    await cycle(m);
    const s = await silence('1h');
    status('B');
    await cycle(m);

    // Act
    await silences.end(s.id, now());
    nextTick();
    status('C');
    const next = await cycle(m);

    // Assess
    expect(next.delivered).toEqual([expect.objectContaining({ event: 'filter.status_changed' })]);
    expect(next.suppressed).toEqual([]);
    expect(sns.subjects).toHaveLength(1);
    expect(sns.subjects[0]).toContain('C');
    expect((await events(m)).map((e) => [e.to, e.suppressedBy])).toEqual([
      ['B', s.id],
      ['C', undefined],
    ]);
  });

  it('a silence on other events (network.*) does not hold a status change', async () => {
    const sns = mockedSns();
    const m = monitor(sns.client);
    status('A');
    await cycle(m);
    await silence('1h', 'network.*');
    status('B');

    const result = await cycle(m);

    expect(result.delivered).toHaveLength(1);
    expect(result.suppressed).toEqual([]);
    expect(sns.subjects).toHaveLength(1);
  });

  it('concurrent cycles in separate processes, then duplicates: one suppression, nothing published', async () => {
    // Prepare
    const sns = mockedSns();
    status('A');
    await cycle(monitor(sns.client));
    const s = await silence('1h');
    status('B');
    const processes = [monitor(sns.client), monitor(sns.client), monitor(sns.client)];

    // Act
    const together = await Promise.all(processes.map((p) => cycle(p)));
    // The same scheduled event delivered twice at once, and a retry of it, in processes that ran already.
    const duplicates = await Promise.all([cycle(processes[0]!), cycle(processes[0]!)]);
    nextTick();
    const later = await Promise.all(processes.map((p) => cycle(p)));

    // Assess
    const results = [...together, ...duplicates, ...later];
    expect(all(results, 'suppressed')).toEqual([expect.objectContaining({ suppressedBy: s.id })]);
    expect(all(results, 'delivered')).toEqual([]);
    expect(sns.subjects).toEqual([]);
    expect(await events(processes[0]!)).toEqual([expect.objectContaining({ to: 'B', suppressedBy: s.id })]);
    expect((await processes[0]!.store.load()).outbox).toEqual([]);
  });

  it('a suppressed alert whose removal DynamoDB throttles until the deadline: the next cycle, in a new process, suppresses it again, never sends it (only the announcement at the end)', async () => {
    // Prepare
    const sns = mockedSns();
    status('A');
    await cycle(monitor(sns.client));
    const s = await silence('1h');
    status('B');
    proxy.fault = (op, body) => (isOutboxRemoval(op, body) ? 'throttle' : undefined);

    // Act
    const first = await cycle(monitor(sns.client), 3000);
    const stuck = (await monitor(sns.client).store.load()).outbox;
    proxy.fault = () => undefined;
    await silences.end(s.id, now());
    nextTick();
    const next = await cycle(monitor(sns.client));

    // Assess
    expect(first.suppressed).toHaveLength(1);
    expect(stuck.map((e) => e.to)).toEqual(['B']);
    expect(next.suppressed).toEqual([expect.objectContaining({ suppressedBy: s.id })]);
    expect(next.delivered).toEqual([expect.objectContaining({ event: 'silence.still_holding' })]);
    expect(sns.subjects).toEqual([`[shieldwatch] still B after silence ${s.id}`]);
    expect((await monitor(sns.client).store.load()).outbox).toEqual([]);
  });

  it('a silence that starts while an alert waits in the outbox (SNS down): that alert is still sent when SNS is back', async () => {
    // Prepare
    const sns = mockedSns();
    const m = monitor(sns.client);
    status('A');
    await cycle(m);
    sns.down = true;
    status('B');
    const failed = await cycle(m);
    const s = await silence('1h');

    // Act: SNS is back; meanwhile a further change is observed inside the silence.
    sns.down = false;
    nextTick();
    status('C');
    const back = await cycle(m);

    // Assess: B was observed before the silence began, C inside it.
    expect(failed.failed).toHaveLength(1);
    expect(failed.pending).toBe(1);
    expect(back.delivered.map((d) => d.seq)).toEqual([failed.failed[0]!.seq]);
    expect(back.suppressed).toEqual([expect.objectContaining({ suppressedBy: s.id })]);
    expect(sns.subjects).toHaveLength(1);
    expect(sns.subjects[0]).toMatch(/A.*B/);
    expect((await events(m)).map((e) => [e.to, e.suppressedBy])).toEqual([
      ['B', undefined],
      ['C', s.id],
    ]);
  });

  it('an alert observed inside a silence and waiting for SNS is not sent when SNS is back after the silence ended: what still holds is announced', async () => {
    const sns = mockedSns();
    const m = monitor(sns.client);
    status('A');
    await cycle(m);
    const s = await silence('10m');
    sns.down = true;
    status('B');
    const during = await cycle(m);

    sns.down = false;
    nextTick(20 * 60_000);
    const after = await cycle(m);

    // Suppressed at its first attempt: nothing waits for SNS.
    expect(during.suppressed).toEqual([expect.objectContaining({ suppressedBy: s.id })]);
    expect(during.pending).toBe(0);
    expect(after.delivered).toEqual([expect.objectContaining({ event: 'silence.still_holding' })]);
    expect(sns.subjects).toEqual([`[shieldwatch] still B after silence ${s.id}`]);
  });

  it('reminders pause while silenced and go on once it ends', async () => {
    // Prepare
    const sns = mockedSns();
    const m = monitor(sns.client, { SHIELDWATCH_EXPECTED_STATUS: 'A', SHIELDWATCH_REMIND_EVERY: '1m' });
    status('A');
    await cycle(m);
    status('B');
    await cycle(m);
    const s = await silence('1h', 'filter.status_reminder');

    // Act: three reminder intervals inside the silence, then one after it ended.
    const inside: CycleResult[] = [];
    for (let i = 0; i < 3; i++) {
      nextTick(61_000);
      inside.push(await cycle(m));
    }
    await silences.end(s.id, now());
    nextTick(61_000);
    const after = await cycle(m);

    // Assess
    expect(all(inside, 'suppressed').map((o) => [o.event, o.suppressedBy])).toEqual([
      ['filter.status_reminder', s.id],
      ['filter.status_reminder', s.id],
      ['filter.status_reminder', s.id],
    ]);
    expect(all(inside, 'delivered')).toEqual([]);
    expect(after.delivered).toEqual([expect.objectContaining({ event: 'filter.status_reminder' })]);
    expect(sns.subjects).toHaveLength(2);
    expect(sns.subjects[0]).toMatch(/changed/i);
    expect(sns.subjects[1]).toMatch(/REMINDER/);
  });

  it("rule alerts (network.*) are suppressed from their rule item's outbox, the status change still sent; one read for both outboxes", async () => {
    // Prepare: one reading over the threshold triggers the rule (for 1).
    const sns = mockedSns();
    let pps = 100;
    api.network = () => ({ body: { traffic: { in: { pps } } } });
    const m = monitor(sns.client, {
      SHIELDWATCH_NETWORKS: 'net-1',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 50k',
      SHIELDWATCH_GROUP_BY: 'none',
    });
    status('A');
    await cycle(m);
    const s = await silence('1h', 'network.*');

    // Act: the attack and a status change in the same cycle, then its end.
    pps = 90_000;
    status('B');
    const readsBefore = (m.deps.silences as DynamoSilenceStore).stats.reads;
    const attack = await cycle(m);
    const readsInAttack = (m.deps.silences as DynamoSilenceStore).stats.reads - readsBefore;
    nextTick();
    pps = 100;
    const calm = await cycle(m);

    // Assess
    expect([...attack.suppressed, ...calm.suppressed].map((o) => [o.event, o.suppressedBy])).toEqual([
      ['network.rule_triggered', s.id],
      ['network.rule_resolved', s.id],
    ]);
    expect(attack.delivered.map((d) => d.event)).toEqual(['filter.status_changed']);
    // Two outboxes with an alert each (the monitor's, the rule item's): the silences read once.
    expect(readsInAttack).toBe(1);
    expect(sns.subjects).toHaveLength(1);
    const stored = await events(m);
    expect(stored.filter((e) => e.event.startsWith('network.')).map((e) => e.suppressedBy)).toEqual([
      s.id,
      s.id,
    ]);
    expect(stored.find((e) => e.event === 'filter.status_changed')?.suppressedBy).toBeUndefined();
  });

  it('a cycle reads the silences once, also when it has alerts to send (the maintenance windows are read every cycle)', async () => {
    // Prepare
    const sns = mockedSns();
    const m = monitor(sns.client);
    const reads = () => (m.deps.silences as DynamoSilenceStore).stats.reads;
    status('A');
    await cycle(m);
    await cycle(m);
    const quietReads = reads();
    sns.down = true;
    status('B');
    await cycle(m);
    status('C');
    await cycle(m);
    const beforeBoth = reads();

    // Act: one cycle sends the two waiting alerts.
    sns.down = false;
    nextTick();
    const both = await cycle(m);
    const afterBoth = reads();
    await cycle(m);

    // Assess
    expect(quietReads).toBe(2);
    expect(both.delivered).toHaveLength(2);
    expect(afterBoth - beforeBoth).toBe(1);
    expect(reads()).toBe(afterBoth + 1);
  });

  it('silences that cannot be read hold the alert for a later cycle: not sent, not lost', async () => {
    // Prepare
    const sns = mockedSns();
    const m = monitor(sns.client);
    status('A');
    await cycle(m);
    await silence('1h', 'api.*');
    const silenceQuery = (op: string, body: Record<string, unknown>) =>
      op === 'Query' && JSON.stringify(body).includes('"silence"');
    proxy.fault = (op, body) => (silenceQuery(op, body) ? 'refuse' : undefined);
    status('B');

    // Act
    const held = await cycle(m);
    proxy.fault = () => undefined;
    nextTick();
    const next = await cycle(m);

    // Assess
    expect(held.failed).toEqual([
      expect.objectContaining({ error: expect.stringMatching(/cannot read the silences/) }),
    ]);
    expect(held.pending).toBe(1);
    expect(next.delivered).toHaveLength(1);
    expect(sns.subjects).toHaveLength(1);
  });

  it('the test alert is never silenced', async () => {
    // silenceFor is the one place that decides (unit tests); here the monitor.test event meets a * silence.
    const s = await silence('1h');
    const { silenceFor } = await import('../../lambda/core/silences/silence.ts');
    expect(
      silenceFor([s], { event: 'monitor.test', at: new Date(now() + 1000).toISOString() }),
    ).toBeUndefined();
  });

  it('a silence over an incident paged before it began: its resolve is still sent, under the same incident', async () => {
    // Prepare: B is away from the expected A and pages (a trigger); then a silence on everything begins.
    const sns = mockedSns();
    const m = monitor(sns.client, { SHIELDWATCH_EXPECTED_STATUS: 'A' });
    status('A');
    await cycle(m);
    status('B');
    const paged = await cycle(m);
    await silence('1h');

    // Act: the status comes back inside the silence.
    nextTick();
    status('A');
    const back = await cycle(m);

    // Assess
    expect(paged.delivered).toHaveLength(1);
    expect(back.suppressed).toEqual([]);
    // Nothing held back: no write of what is held ever happened.
    expect((await m.store.load()).heldRev).toBeUndefined();
    expect(back.delivered).toEqual([expect.objectContaining({ event: 'filter.status_changed' })]);
    expect(sns.documents.map((d) => [d['action'], d['incident']])).toEqual([
      ['trigger', expect.any(String)],
      ['resolve', sns.documents[0]!['incident']],
    ]);
  });

  it('a change held back that still holds when the silence ends: announced once, across an SNS outage at that moment and duplicate and concurrent cycles; its reverse later is sent', async () => {
    // Prepare: B away from the expected A is suppressed inside the silence.
    const sns = mockedSns();
    status('A');
    const env = { SHIELDWATCH_EXPECTED_STATUS: 'A' };
    await cycle(monitor(sns.client, env));
    const s = await silence('10m');
    status('B');
    const during = await cycle(monitor(sns.client, env));

    // Act: the silence ends while SNS is down; cycles in three processes, each twice at once.
    nextTick(11 * 60_000);
    sns.down = true;
    const processes = [monitor(sns.client, env), monitor(sns.client, env), monitor(sns.client, env)];
    const outage = await Promise.all(processes.flatMap((p) => [cycle(p), cycle(p)]));
    const waiting = (await processes[0]!.store.load()).outbox;
    sns.down = false;
    nextTick();
    const back = await Promise.all(processes.flatMap((p) => [cycle(p), cycle(p)]));
    nextTick();
    const later = await Promise.all(processes.map((p) => cycle(p)));
    status('A');
    nextTick();
    const reverse = await cycle(processes[0]!);

    // Assess
    expect(during.suppressed).toEqual([expect.objectContaining({ suppressedBy: s.id })]);
    // One announcement committed; a cycle that found its claim handed back may have tried it again (SNS down).
    const attempts = all(outage, 'failed');
    expect(attempts.length).toBeGreaterThanOrEqual(1);
    expect(new Set(attempts.map((f) => `${f.event}#${f.seq}`))).toEqual(
      new Set([`silence.still_holding#${attempts[0]!.seq}`]),
    );
    expect(waiting.map((e) => e.event)).toEqual(['silence.still_holding']);
    expect(all([...back, ...later], 'delivered').map((d) => d.event)).toEqual(['silence.still_holding']);
    expect(reverse.delivered.map((d) => d.event)).toEqual(['filter.status_changed']);
    expect(sns.subjects).toEqual([
      `[shieldwatch] still B after silence ${s.id}`,
      '[shieldwatch] RESOLVED: Filter status changed: B -> A',
    ]);
    // PagerDuty: the announcement opens the incident the silence held back, the change back resolves it.
    const [announced, resolved] = sns.documents;
    expect(announced).toMatchObject({ event: 'silence.still_holding', action: 'trigger', to: 'B' });
    expect(resolved).toMatchObject({ action: 'resolve', incident: announced!['incident'] });
    expect((await events(processes[0]!)).filter((e) => e.event === 'silence.still_holding')).toHaveLength(1);
  });

  it('a change and its reverse both inside a silence: nothing is announced when it ends', async () => {
    // Prepare
    const sns = mockedSns();
    const m = monitor(sns.client);
    status('A');
    await cycle(m);
    const s = await silence('10m');
    status('B');
    const there = await cycle(m);
    nextTick();
    status('A');
    const back = await cycle(m);

    // Act
    nextTick(11 * 60_000);
    const after = [await cycle(m)];
    nextTick();
    after.push(await cycle(m));

    // Assess
    expect([...there.suppressed, ...back.suppressed].map((o) => o.suppressedBy)).toEqual([s.id, s.id]);
    expect(all(after, 'delivered')).toEqual([]);
    expect(sns.subjects).toEqual([]);
    // Only the marker of the alert that closed it is left (dropped by the next write of what is held back).
    expect(Object.values((await m.store.load()).held ?? {})).toEqual([
      expect.objectContaining({ from: 'A', to: 'B', closedBy: back.suppressed[0]!.seq }),
    ]);
  });

  it('a rule trigger suppressed and still holding when the silence ends: announced once, its resolve then sent', async () => {
    // Prepare: one reading over the threshold triggers the rule (for 1).
    const sns = mockedSns();
    let pps = 100;
    api.network = () => ({ body: { traffic: { in: { pps } } } });
    const env = {
      SHIELDWATCH_NETWORKS: 'net-1',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 50k',
      SHIELDWATCH_GROUP_BY: 'none',
    };
    const m = monitor(sns.client, env);
    status('A');
    await cycle(m);
    const s = await silence('10m', 'network.*');
    pps = 90_000;
    const attack = await cycle(m);

    // Act: the silence ends during the attack; duplicate cycles in two processes; then the attack ends.
    nextTick(11 * 60_000);
    const other = monitor(sns.client, env);
    const ended = await Promise.all([cycle(m), cycle(m), cycle(other)]);
    nextTick();
    const next = await cycle(other);
    pps = 100;
    nextTick();
    const calm = await cycle(m);

    // Assess
    expect(attack.suppressed).toEqual([
      expect.objectContaining({ event: 'network.rule_triggered', suppressedBy: s.id }),
    ]);
    expect(all([...ended, next], 'delivered').map((d) => d.event)).toEqual(['silence.still_holding']);
    expect(calm.delivered.map((d) => d.event)).toEqual(['network.rule_resolved']);
    expect(sns.subjects[0]).toBe(`[shieldwatch] still flood triggered on net net-1 after silence ${s.id}`);
    expect(sns.subjects).toHaveLength(2);
    const [announced, resolved] = sns.documents;
    expect(announced).toMatchObject({ action: 'trigger', rule: 'flood', network: 'net-1' });
    expect(resolved).toMatchObject({ action: 'resolve', incident: announced!['incident'] });
  });

  describe('incidents across networks (SHIELDWATCH_GROUP_BY=rule, the default)', () => {
    let pps: Record<string, number>;
    const grouped = {
      SHIELDWATCH_NETWORKS: 'net-1,net-2',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 50k',
      SHIELDWATCH_GROUP_INTERVAL: '1m',
    };
    beforeEach(() => {
      pps = { 'net-1': 100, 'net-2': 100 };
      api.network = (id: string) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 } } } });
      status('A');
    });
    /** Each published alert as PagerDuty reads it: event, dedup_key (incident), event_action (action). */
    const paged = (sns: ReturnType<typeof mockedSns>) =>
      sns.documents.map((d) => `${String(d['event'])} ${String(d['incident'])} ${String(d['action'])}`);
    const heldOf = async (m: Monitor) => {
      const items = await m.store.findRuleItems(0);
      const incidents = await m.store.findIncidentScopes();
      return {
        rules: items.map((item) => item.loaded.held ?? {}),
        incidents: incidents.map((f) => f.loaded.held ?? {}),
      };
    };

    it('an incident opened inside a silence that expires while it holds: announced once with the incident id (duplicate and concurrent cycles), its update and resolve then close the same PagerDuty incident', async () => {
      // Prepare
      const sns = mockedSns();
      const m = monitor(sns.client, grouped);
      await cycle(m);
      const s = await silence('10m');

      // Act: the attack starts inside the silence; the silence expires while it holds; then it spreads and ends.
      pps['net-1'] = 90_000;
      const attack = await cycle(m);
      nextTick();
      const during = await cycle(m);
      const whileHeld = await heldOf(m);
      nextTick(11 * 60_000);
      const other = monitor(sns.client, grouped);
      const ended = await Promise.all([cycle(m), cycle(m), cycle(other)]);
      nextTick(2 * 60_000);
      pps['net-2'] = 95_000;
      const spread = await cycle(m);
      nextTick(2 * 60_000);
      await cycle(m);
      pps['net-1'] = 100;
      pps['net-2'] = 100;
      nextTick();
      const calm = await cycle(m);

      // Assess: the incident's opening held back (the per-network alert is recorded only, silences aside).
      expect(attack.suppressed.map((o) => [o.event, o.suppressedBy])).toEqual([['incident.opened', s.id]]);
      expect(attack.delivered).toEqual([]);
      expect(during.delivered).toEqual([]);
      // Held back in the incident item, under the incident's id; the rule item remembers nothing.
      expect(whileHeld.rules.every((held) => Object.keys(held).length === 0)).toBe(true);
      expect(whileHeld.incidents.map((held) => Object.keys(held))).toEqual([
        [expect.stringMatching(/^flood@/)],
      ]);
      expect(all(ended, 'delivered').map((d) => d.event)).toEqual(['silence.still_holding']);
      expect(all([spread, calm], 'delivered').map((d) => d.event)).toEqual([
        'incident.updated',
        'incident.resolved',
      ]);
      const [announced, updated, resolved] = paged(sns);
      const incident = announced!.split(' ')[1]!;
      expect(incident).toMatch(/^flood@/);
      expect([announced, updated, resolved]).toEqual([
        `silence.still_holding ${incident} trigger`,
        `incident.updated ${incident} trigger`,
        `incident.resolved ${incident} resolve`,
      ]);
      expect(sns.subjects[0]).toBe(`[shieldwatch] still rule flood triggered after silence ${s.id}`);
      expect(sns.subjects).toHaveLength(3);
      // The per-network transitions are recorded as events, none suppressed (they are never published).
      const stored = await events(m);
      const perNetwork = stored.filter((e) => e.event.startsWith('network.rule_'));
      expect(perNetwork).toHaveLength(4);
      expect(perNetwork.every((e) => e.suppressedBy === undefined)).toBe(true);
      expect(stored.find((e) => e.event === 'incident.opened')?.suppressedBy).toBe(s.id);
    });

    it('an incident opened and resolved inside a silence: nothing published, nothing announced when it ends', async () => {
      // Prepare
      const sns = mockedSns();
      const m = monitor(sns.client, grouped);
      await cycle(m);
      const s = await silence('10m');

      // Act
      pps['net-1'] = 90_000;
      await cycle(m);
      nextTick();
      pps['net-1'] = 100;
      const calm = await cycle(m);
      nextTick(11 * 60_000);
      const after = await cycle(m);

      // Assess
      expect(calm.suppressed.map((o) => [o.event, o.suppressedBy])).toEqual([['incident.resolved', s.id]]);
      expect(after.delivered).toEqual([]);
      expect(sns.subjects).toEqual([]);
      // Nothing left to announce (a marker of the closed one may stay until the item's next alert).
      const held = await heldOf(m);
      expect(held.rules.every((h) => Object.keys(h).length === 0)).toBe(true);
      expect(held.incidents.every((h) => Object.values(h).every((c) => c.closedBy !== undefined))).toBe(true);
    });

    it('an incident paged before a silence: its update inside is held back, its resolve inside is sent, under the same incident', async () => {
      // Prepare
      const sns = mockedSns();
      const m = monitor(sns.client, grouped);
      await cycle(m);
      pps['net-1'] = 90_000;
      await cycle(m);
      const s = await silence('1h');

      // Act: net-2 joins inside the silence (its update due a minute later), then both resolve.
      nextTick();
      pps['net-2'] = 95_000;
      await cycle(m);
      nextTick(2 * 60_000);
      const update = await cycle(m);
      pps['net-1'] = 100;
      pps['net-2'] = 100;
      nextTick();
      const calm = await cycle(m);

      // Assess
      expect(update.suppressed.map((o) => [o.event, o.suppressedBy])).toEqual([['incident.updated', s.id]]);
      expect(calm.delivered.map((d) => d.event)).toEqual(['incident.resolved']);
      const [opened, resolved] = paged(sns);
      expect(opened).toMatch(/^incident\.opened flood@\S+ trigger$/);
      expect(resolved).toBe(`incident.resolved ${opened!.split(' ')[1]} resolve`);
      expect(sns.subjects).toHaveLength(2);
      const held = await heldOf(m);
      expect(held.incidents.every((h) => Object.keys(h).length === 0)).toBe(true);
    });

    it('a network.* silence holds a rule incident back, as it holds the per-network rule alerts it groups; a status change still goes out', async () => {
      // Prepare
      const sns = mockedSns();
      const m = monitor(sns.client, grouped);
      await cycle(m);
      const s = await silence('1h', 'network.*');

      // Act
      pps['net-1'] = 90_000;
      status('B');
      const attack = await cycle(m);
      nextTick();
      pps['net-1'] = 100;
      const calm = await cycle(m);

      // Assess
      expect([...attack.suppressed, ...calm.suppressed].map((o) => [o.event, o.suppressedBy])).toEqual([
        ['incident.opened', s.id],
        ['incident.resolved', s.id],
      ]);
      expect(sns.subjects).toHaveLength(1);
      expect(paged(sns)).toEqual([expect.stringMatching(/^filter\.status_changed /)]);
    });
  });

  it('a silence stored with an end 30 days out (another tool) is honoured for 7 days only', async () => {
    // Prepare: the item as another tool writes it, past the CLI's 7-day limit.
    const sns = mockedSns();
    const m = monitor(sns.client);
    status('A');
    await cycle(m);
    const made = newSilence({ duration: '1h', pattern: '*' }, now(), 's-bbbbbbbb');
    if (!made.ok) throw new Error(made.problems.join('; '));
    const startsAt = made.silence.startsAt;
    await dynamo.client.send(
      new PutItemCommand({
        TableName: dynamo.table,
        Item: marshall({
          pk: 'silence',
          sk: 's-bbbbbbbb',
          ...made.silence,
          endsAt: new Date(Date.parse(startsAt) + 30 * 86_400_000).toISOString(),
        }),
      }),
    );

    // Act: a change on day 6 (silenced), and one on day 8 (past the cap).
    nextTick(6 * 86_400_000);
    status('B');
    const day6 = await cycle(m);
    nextTick(2 * 86_400_000);
    status('C');
    const day8 = await cycle(m);
    const listed = await silences.list();
    const ending = await silences.end('s-bbbbbbbb', now());

    // Assess
    expect(day6.suppressed).toEqual([expect.objectContaining({ suppressedBy: 's-bbbbbbbb' })]);
    expect(day8.suppressed).toEqual([]);
    expect(day8.delivered.map((d) => d.event)).toEqual(['filter.status_changed']);
    expect(sns.subjects).toEqual(['[shieldwatch] Filter status changed: B -> C']);
    expect(listed[0]!.endsAt).toBe(new Date(Date.parse(startsAt) + 7 * 86_400_000).toISOString());
    // `silence end` agrees: it ended at the cap.
    expect(ending).toEqual({ outcome: 'already-ended', silence: listed[0] });
  });
});
