/**
 * Traffic rules in whole poll cycles (README, Traffic rules: where rule state lives): real cycles against a
 * loopback API whose figures change between cycles and dynalite; SNS through aws-sdk-client-mock. Each rule
 * alert is sent exactly once under duplicate, concurrent and crashing cycles and an SNS outage.
 */
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { loadConfig } from '../../lambda/config.ts';
import { CLAIM_GRACE_MS, type CycleLog, runCycle, StoreError } from '../../lambda/cycle.ts';
import type { RuleStateStore } from '../../lambda/ports.ts';
import { buildMonitor, type Monitor } from '../../lambda/runtime.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

describe('traffic rules in the poll cycle (dynalite, loopback API)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let sns: SNSClient;
  let snsMock: ReturnType<typeof mockClient>;
  let snsDown: boolean;
  /** The messages SNS accepted, in order. */
  let accepted: PublishCommandInput[];
  /** Packets per second each network reports now. */
  let pps: Record<string, number>;
  /** The monitors' clock: a schedule tick a minute apart per cycle. */
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'rules-cycle-key-0123456' });
    dynamo = await startDynamo();
    sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    snsMock = mockClient(sns);
    snsDown = false;
    let ids = 0;
    accepted = [];
    snsMock.on(PublishCommand).callsFake(async (input: PublishCommandInput) => {
      if (snsDown) throw Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' });
      accepted.push(input);
      return { MessageId: `m-${++ids}` };
    });
    pps = { 'net-1': 100, 'net-2': 100 };
    api.network = (id) => ({
      body: { traffic: { in: { pps: pps[id] ?? 0 } }, attack: (pps[id] ?? 0) > 1000 },
    });
    // Near the real time: the API client bounds its requests by the real clock.
    now = Date.now();
  });
  afterEach(async () => {
    sns.destroy();
    await api.close();
    await dynamo.close();
  });

  const monitor = (rules: string, clock: () => number = () => now): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: 'net-1,net-2',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '1000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_RULES: rules,
    };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: clock,
    });
  };
  const cycle = (m: Monitor, deps = m.deps, settings = m.settings) =>
    runCycle(deps, settings, deps.now() + 10_000);
  /** The next schedule tick. */
  const tick = () => {
    now += 60_000;
  };
  const ruleAlerts = () =>
    accepted
      .filter((input) => input.MessageAttributes?.['event']?.StringValue?.startsWith('network.rule_'))
      .map((input) => {
        const a = input.MessageAttributes!;
        return `${a['event']!.StringValue} ${a['rule']!.StringValue} ${a['network']!.StringValue}`;
      });
  const doc = () => DynamoDBDocumentClient.from(dynamo.client);
  const stateItem = async (sk: string) =>
    (await doc().send(new GetCommand({ TableName: dynamo.table, Key: { pk: 'state', sk } }))).Item;

  it('a threshold rule triggers after N cycles in a row and resolves after N, one alert each', async () => {
    // Prepare
    const m = monitor('flood: traffic.in.pps > 50k for 2');
    const sequence = [100, 90_000, 100, 90_000, 95_000, 99_000, 100, 200, 300];
    const queuedPerCycle: string[][] = [];

    // Act
    for (const value of sequence) {
      pps['net-1'] = value;
      const result = await cycle(m);
      queuedPerCycle.push(result.queued.map((a) => a.event));
      tick();
    }

    // Assess: triggered by the 2nd holding cycle in a row, resolved by the 2nd failing one.
    expect(queuedPerCycle).toEqual([
      [],
      [],
      [],
      [],
      ['network.rule_triggered'],
      [],
      [],
      ['network.rule_resolved'],
      [],
    ]);
    expect(ruleAlerts()).toEqual(['network.rule_triggered flood net-1', 'network.rule_resolved flood net-1']);
    const events = (await m.store.queryEvents({})).filter((e) => e.rule !== undefined);
    expect(events.map((e) => [e.event, e.network, e.value, e.threshold, e.values])).toEqual([
      ['network.rule_triggered', 'net-1', 95_000, 50_000, [90_000, 95_000]],
      ['network.rule_resolved', 'net-1', 200, 50_000, [100, 200]],
    ]);
    expect(events[0]!.incident).toBe(events[1]!.incident);
    expect(await stateItem('monitor')).toBeDefined();
    expect((await stateItem('rules#0'))?.['outbox']).toEqual({});
  });

  it('a duplicate cycle (the same cycle run again) and concurrent cycles send each rule alert once', async () => {
    // Prepare: two processes; a rule that trips at once.
    const first = monitor('hot: traffic.in.pps >= 1000');
    const second = monitor('hot: traffic.in.pps >= 1000');
    await cycle(first);
    tick();
    pps['net-1'] = 5000;
    pps['net-2'] = 7000;

    // Act: the same tick twice in a row (a retried invocation), then twice at once.
    const once = await cycle(first);
    const replayed = await cycle(second);
    tick();
    pps['net-1'] = 10;
    pps['net-2'] = 10;
    const racing = await Promise.all([cycle(first), cycle(second)]);
    tick();
    const after = await cycle(first);

    // Assess
    expect(once.queued).toHaveLength(2);
    expect(replayed.queued).toEqual([]);
    expect(
      racing
        .flatMap((r) => r.queued)
        .map((a) => `${a.event} ${a.network}`)
        .sort(),
    ).toEqual(['network.rule_resolved net-1', 'network.rule_resolved net-2']);
    expect(after.queued).toEqual([]);
    expect(ruleAlerts().sort()).toEqual([
      'network.rule_resolved hot net-1',
      'network.rule_resolved hot net-2',
      'network.rule_triggered hot net-1',
      'network.rule_triggered hot net-2',
    ]);
    expect((await first.store.queryEvents({})).filter((e) => e.rule !== undefined)).toHaveLength(4);
  });

  it('an SNS outage across a trigger and its resolve: both are sent later, in order, once', async () => {
    // Prepare
    const m = monitor('attack: attack == true on net-2');
    await cycle(m);
    tick();
    snsDown = true;

    // Act: the trigger and the resolve both happen while SNS refuses every message.
    pps['net-2'] = 5000;
    const trigger = await cycle(m);
    tick();
    pps['net-2'] = 10;
    const resolve = await cycle(m);
    tick();
    const stillDown = await cycle(m);
    tick();
    snsDown = false;
    const recovered = await cycle(m);
    tick();
    const quietAfter = await cycle(m);

    // Assess
    expect(trigger.queued.map((a) => a.event)).toEqual(['network.rule_triggered']);
    expect(trigger.failed).toHaveLength(1);
    expect(resolve.queued.map((a) => a.event)).toEqual(['network.rule_resolved']);
    expect(stillDown.pending).toBe(2);
    expect(recovered.delivered.map((d) => d.event)).toEqual([
      'network.rule_triggered',
      'network.rule_resolved',
    ]);
    expect(quietAfter.delivered).toEqual([]);
    expect(ruleAlerts()).toEqual([
      'network.rule_triggered attack net-2',
      'network.rule_resolved attack net-2',
    ]);
    expect((await m.store.ruleScope('rules#0').load()).outbox).toEqual([]);
  });

  it('a cycle that crashed between the rule item write and the publish: its alert is sent once, after its claim expires', async () => {
    // Prepare
    const m = monitor('flood: traffic.in.pps > 50k');
    await cycle(m);
    tick();
    pps['net-1'] = 90_000;
    const died = async () => {
      throw new Error('process died');
    };
    // A crash: nothing after the rule item's write reaches the store, the claim taken with it included.
    const crashingRules: RuleStateStore = {
      ruleScopes: (...args) =>
        m.store.ruleScopes(...args).map((scope) => ({
          ...scope,
          store: Object.assign(Object.create(scope.store), { recordEvent: died, release: died }),
        })),
    };

    // Act
    const crashed = await cycle(m, { ...m.deps, ruleState: crashingRules });
    const whileClaimed = await cycle(m);
    now += 10_000 + CLAIM_GRACE_MS + 1000;
    const afterExpiry = await cycle(m);
    tick();
    const later = await cycle(m);

    // Assess
    expect(crashed.queued.map((a) => a.event)).toEqual(['network.rule_triggered']);
    expect(crashed.delivered).toEqual([]);
    expect(whileClaimed.delivered).toEqual([]);
    expect(afterExpiry.queued).toEqual([]);
    expect(afterExpiry.delivered.map((d) => d.event)).toEqual(['network.rule_triggered']);
    expect(later.delivered).toEqual([]);
    expect(ruleAlerts()).toEqual(['network.rule_triggered flood net-1']);
  });

  it('a network-only shard judges its own networks and writes only its own rule item', async () => {
    // Prepare
    const m = monitor('flood: traffic.in.pps > 50k');
    const shard = { ...m.settings, networks: ['net-2'], pollFilter: false, ruleShard: 1 };
    pps['net-1'] = 90_000;
    pps['net-2'] = 90_000;

    // Act
    const result = await cycle(m, m.deps, shard);

    // Assess
    expect(result.queued.map((a) => `${a.event} ${a.network}`)).toEqual(['network.rule_triggered net-2']);
    expect(ruleAlerts()).toEqual(['network.rule_triggered flood net-2']);
    const items = await doc().send(
      new QueryCommand({
        TableName: dynamo.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'state' },
      }),
    );
    expect(items.Items?.map((item) => item['sk'])).toEqual(['rules#1']);
  });

  it('a cycle in which every request fails changes no rule state and writes no rule item', async () => {
    // Prepare: one holding reading of a rule that needs two in a row.
    const m = monitor('flood: traffic.in.pps > 50k for 2');
    pps['net-1'] = 90_000;
    await cycle(m);
    tick();
    const before = await stateItem('rules#0');
    api.network = () => ({ status: 503, body: { error: 'down' } });
    api.filter = () => ({ status: 503, body: { error: 'down' } });

    // Act
    const failed = await cycle(m);
    const after = await stateItem('rules#0');
    tick();
    api.network = (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 0 } } } });
    const next = await cycle(m);

    // Assess: no evidence; the count in a row neither grew nor reset, so the next holding cycle triggers.
    expect(failed.queued).toEqual([]);
    expect(after).toEqual(before);
    expect(next.queued.map((a) => a.event)).toEqual(['network.rule_triggered']);
  });

  it('a rule item that cannot be written fails the cycle with a StoreError naming it', async () => {
    // Prepare
    const m = monitor('flood: traffic.in.pps > 50k');
    const broken: RuleStateStore = {
      ruleScopes: (...args) =>
        m.store.ruleScopes(...args).map((scope) => ({
          ...scope,
          store: Object.assign(Object.create(scope.store), {
            commit: async () => {
              throw new Error('throttled');
            },
          }),
        })),
    };
    pps['net-1'] = 90_000;

    // Act
    const run = cycle(m, { ...m.deps, ruleState: broken });

    // Assess
    await expect(run).rejects.toBeInstanceOf(StoreError);
    await expect(run).rejects.toThrow(/rule state \(rules#0\).*throttled/);
    expect(ruleAlerts()).toEqual([]);
  });

  it('without rules no rule item is read or written', async () => {
    // Prepare
    const m = monitor('');
    const before = { ...m.store.stats };

    // Act
    await cycle(m);

    // Assess: the state read, and one snapshot batch plus the state write.
    expect(m.store.stats.reads - before.reads).toBe(1);
    expect(m.store.stats.writes - before.writes).toBe(2);
    expect(await stateItem('rules#0')).toBeUndefined();
  });
});
