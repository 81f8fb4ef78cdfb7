/**
 * Traffic rules in whole poll cycles (docs/design/rule-state.md): real cycles against a
 * loopback API whose figures change between cycles and dynalite; SNS through aws-sdk-client-mock. Each rule
 * alert is sent exactly once under duplicate, concurrent and crashing cycles and an SNS outage.
 */
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { CLAIM_GRACE_MS, type CycleLog, runCycle, StoreError } from '../../lambda/cycle.ts';
import type { RuleScopeState, RuleStateStore, StateStore } from '../../lambda/ports.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { bySize } from '../scale.ts';

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
    // Every path the rules here read has a value (`traffic.out.pps` for the slow rules of the edit cases), so
    // the health judge's blind spots stay quiet: a path the body lacks is network.rule_unreadable
    // (network-health-cycle.test.ts), not what these tests count.
    api.network = (id) => ({
      body: { traffic: { in: { pps: pps[id] ?? 0 }, out: { pps: 0 } }, attack: (pps[id] ?? 0) > 1000 },
    });
    // Near the real time: the API client bounds its requests by the real clock.
    now = Date.now();
  });
  afterEach(async () => {
    sns.destroy();
    await api.close();
    await dynamo.close();
  });

  const monitor = (
    rules: string,
    clock: () => number = () => now,
    networks = 'net-1,net-2',
    extra: Record<string, string> = {},
  ): Monitor => {
    const env = {
      ...extra,
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: networks,
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '1000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_RULES: rules,
      // Each network's alerts on their own, as these tests check them (incidents: incidents-cycle.test.ts).
      SHIELDWATCH_GROUP_BY: 'none',
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
  /** The monitor's rule state store with every rule item's store (planned or found) passed through `wrap`. */
  const wrapStores = (
    m: Monitor,
    wrap: (store: StateStore<RuleScopeState>, key: string) => StateStore<RuleScopeState>,
  ): RuleStateStore => ({
    ruleScopes: (...args) =>
      m.store.ruleScopes(...args).map((scope) => ({ ...scope, store: wrap(scope.store, scope.key) })),
    findRuleItems: async (shard) =>
      (await m.store.findRuleItems(shard)).map((item) => ({ ...item, store: wrap(item.store, item.key) })),
    discardRuleItem: (...args) => m.store.discardRuleItem(...args),
  });
  const doc = () => DynamoDBDocumentClient.from(dynamo.client);
  /** The sort keys of the rule items in the table. */
  const ruleItemKeys = async () =>
    (
      await doc().send(
        new QueryCommand({
          TableName: dynamo.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rules)',
          ExpressionAttributeValues: { ':pk': 'state', ':rules': 'rules#' },
        }),
      )
    ).Items?.map((item) => item['sk']);
  /** `event network incident` of each rule alert SNS accepted. */
  const ruleIncidents = () =>
    accepted
      .filter((input) => input.MessageAttributes?.['event']?.StringValue?.startsWith('network.rule_'))
      .map((input) => {
        const a = input.MessageAttributes!;
        const sqs = JSON.parse(JSON.parse(input.Message!).sqs) as { incident: string };
        return `${a['event']!.StringValue} ${a['network']!.StringValue} ${sqs.incident}`;
      });
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
    const crashingRules = wrapStores(m, (store) =>
      Object.assign(Object.create(store), { recordEvent: died, release: died }),
    );

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
    const broken = wrapStores(m, (store) =>
      Object.assign(Object.create(store), {
        commit: async () => {
          throw new Error('throttled');
        },
      }),
    );
    pps['net-1'] = 90_000;

    // Act
    const run = cycle(m, { ...m.deps, ruleState: broken });

    // Assess
    await expect(run).rejects.toBeInstanceOf(StoreError);
    await expect(run).rejects.toThrow(/rule state \(rules#0\).*throttled/);
    expect(ruleAlerts()).toEqual([]);
  });

  it("a rule item's write fails in a cycle that writes the health item: the error names that one a state item, not a rule item (issue 19.7)", async () => {
    // Prepare: net-1 attacked while net-2 starts failing (the health item records it); rules#0 cannot be written.
    const m = monitor('flood: traffic.in.pps > 50k');
    await cycle(m);
    tick();
    pps['net-1'] = 90_000;
    const answer = api.network;
    api.network = (id, req) =>
      id === 'net-2' ? { status: 404, body: { error: 'no such network' } } : answer(id, req);
    const broken = wrapStores(m, (store) =>
      Object.assign(Object.create(store), {
        commit: async () => {
          throw new Error('throttled');
        },
      }),
    );

    // Act
    const error = (await cycle(m, { ...m.deps, ruleState: broken }).catch((e: unknown) => e)) as StoreError;

    // Assess
    expect(error).toBeInstanceOf(StoreError);
    expect(await stateItem('health#0')).toBeDefined();
    expect(error.message).toMatch(/rule state \(rules#0\).*throttled/);
    expect(error.message).toMatch(/; state items written: health#0; not written: rules#0 \(/);
    expect(error.message).not.toMatch(/rule items written/);
  });

  it('without rules no rule item is written, and one Query looks for items an earlier configuration left', async () => {
    // Prepare
    const m = monitor('');
    const before = { ...m.store.stats };

    // Act
    await cycle(m);

    // Assess: the state read, the Query of the shard's rule items, the read of the shard's health item
    // (docs/alerts.md, Blind spots: read once a cycle) and the Query of the incident items (an incident an
    // earlier configuration left open is judged until it resolves: docs/design/incidents.md), one snapshot
    // batch plus the state write; the health item is not written while every network answers.
    expect(m.store.stats.reads - before.reads).toBe(4);
    expect(m.store.stats.writes - before.writes).toBe(2);
    expect(await stateItem('rules#0')).toBeUndefined();
    expect(await stateItem('health#0')).toBeUndefined();
  });

  describe('configuration edits across rule items (issue 19.1)', () => {
    /**
     * One rule that trips at once and 19 slow ones (five of them baselines, whose windows count in the worst
     * case): five networks take two items, four take one.
     */
    const TWENTY = [
      'hot: traffic.in.pps > 50k',
      ...Array.from(
        { length: 19 },
        (_, i) => `slow${i}: traffic.out.pps > ${i < 5 ? '3x baseline' : '1'} for 100`,
      ),
    ].join('; ');
    const FIVE = 'net-1,net-2,net-3,net-4,net-5';
    const FOUR = 'net-2,net-3,net-4,net-5';

    it('an alert waiting in rules#0#1 is sent once after an edit fits every network in rules#0, and the attack resolves under its incident', async () => {
      // Prepare: net-5 (in rules#0#1) is attacked while SNS is down.
      const five = monitor(TWENTY, () => now, FIVE);
      await cycle(five);
      tick();
      expect(await ruleItemKeys()).toEqual(['rules#0#0', 'rules#0#1']);
      snsDown = true;
      pps['net-5'] = 90_000;
      const triggered = await cycle(five);
      tick();
      expect(triggered.queued.map((a) => `${a.event} ${a.network}`)).toEqual([
        'network.rule_triggered net-5',
      ]);

      // Act: net-1 is removed (everything fits rules#0); SNS comes back; the attack goes on, then ends.
      const four = monitor(TWENTY, () => now, FOUR);
      snsDown = false;
      const afterEdit = await cycle(four);
      tick();
      const during = await cycle(four);
      tick();
      pps['net-5'] = 100;
      const ended = await cycle(four);
      tick();
      await cycle(four);

      // Assess: the waiting trigger sent by the first cycle after the edit, no second trigger, one resolve of
      // the same incident; the items no longer planned are gone.
      expect(afterEdit.delivered.map((d) => d.event)).toEqual(['network.rule_triggered']);
      expect(afterEdit.queued).toEqual([]);
      expect(during.queued).toEqual([]);
      expect(ended.queued.map((a) => `${a.event} ${a.network}`)).toEqual(['network.rule_resolved net-5']);
      const sent = ruleIncidents();
      expect(sent.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
        'network.rule_triggered net-5',
        'network.rule_resolved net-5',
      ]);
      expect(sent[0]!.split(' ')[2]).toBe(sent[1]!.split(' ')[2]);
      expect(await ruleItemKeys()).toEqual(['rules#0']);
    });

    it('removing every rule: an alert waiting in rules#0 is still sent, once, and the item is deleted', async () => {
      // Prepare: a trigger committed while SNS is down.
      const withRule = monitor('flood: traffic.in.pps > 50k');
      await cycle(withRule);
      tick();
      snsDown = true;
      pps['net-1'] = 90_000;
      await cycle(withRule);
      tick();

      // Act: every rule removed; SNS back.
      const none = monitor('');
      snsDown = false;
      const first = await cycle(none);
      tick();
      const second = await cycle(none);

      // Assess
      expect(first.delivered.map((d) => d.event)).toEqual(['network.rule_triggered']);
      expect(second.delivered).toEqual([]);
      expect(ruleAlerts()).toEqual(['network.rule_triggered flood net-1']);
      expect(await ruleItemKeys()).toEqual([]);
    });

    it('a network moved to another item and back during one attack: one trigger, one resolve, one incident', async () => {
      // Prepare: net-5 attacked and triggered in rules#0#1.
      const five = monitor(TWENTY, () => now, FIVE);
      const four = monitor(TWENTY, () => now, FOUR);
      await cycle(five);
      tick();
      pps['net-5'] = 90_000;
      await cycle(five);
      tick();

      // Act: moved to rules#0 (net-1 removed) for two cycles, back to rules#0#1 (net-1 added again), then the
      // attack ends.
      const moved = [await cycle(four)];
      tick();
      moved.push(await cycle(four));
      tick();
      const back = [await cycle(five)];
      tick();
      back.push(await cycle(five));
      tick();
      pps['net-5'] = 100;
      const ended = await cycle(five);
      tick();
      const after = await cycle(five);

      // Assess
      expect([...moved, ...back].flatMap((r) => r.queued)).toEqual([]);
      expect(ended.queued.map((a) => `${a.event} ${a.network}`)).toEqual(['network.rule_resolved net-5']);
      expect(after.queued).toEqual([]);
      const sent = ruleIncidents();
      expect(sent.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
        'network.rule_triggered net-5',
        'network.rule_resolved net-5',
      ]);
      expect(sent[0]!.split(' ')[2]).toBe(sent[1]!.split(' ')[2]);
      expect(await ruleItemKeys()).toEqual(['rules#0#0', 'rules#0#1']);
    });
  });

  it('more networks than the cap (800 in test:slow) attacked for 2 cycles on one item: every trigger and every resolve is sent once, in the fewest cycles the cap allows (issue 19.2)', {
    timeout: 180_000,
  }, async () => {
    // Prepare: one rule, one item (its cap: 65 alerts a commit); 150 networks in `npm test`, 800 in test:slow:
    // about as many as one item of one rule holds since its cells keep their incident's peak (900 take two items;
    // incidents-cycle attacks 1,000 networks across items).
    const ids = Array.from({ length: bySize(150, 800) }, (_, i) => `n${i + 1}`);
    const text = 'flood: traffic.in.pps > 50k';
    const m = monitor(text, () => now, ids.join(','), { SHIELDWATCH_CONCURRENCY: '64' });
    const scopes = m.store.ruleScopes(0, m.settings.rules ?? [], ids);
    expect(scopes.map((s) => s.key)).toEqual(['rules#0']);
    const cap = scopes[0]!.maxAlerts;
    await cycle(m);
    tick();

    // Act: two cycles of attack on every network, then quiet cycles until nothing is left to send.
    for (const id of ids) pps[id] = 90_000;
    let cycles = 0;
    // Cycles in which a publish or its record missed the deadline (a loaded machine): those alerts stay in the
    // outbox and go in a later cycle, once each; each such cycle may cost one more.
    let slowCycles = 0;
    for (; cycles < 60; cycles++) {
      if (cycles === 2) for (const id of ids) pps[id] = 100;
      const result = await cycle(m);
      tick();
      if (result.failed.length > 0) slowCycles++;
      if (cycles >= 2 && ruleAlerts().length === 2 * ids.length) break;
      // Nothing left to send (before, 856 triggers were forgotten here).
      if (cycles >= 2 && result.queued.length === 0 && result.pending === 0) break;
    }

    // Assess: a trigger and a resolve per network, each once, paired by incident; `cap` a cycle.
    const sent = ruleIncidents();
    expect(new Set(sent).size).toBe(sent.length);
    const triggers = sent.filter((line) => line.startsWith('network.rule_triggered'));
    const resolves = sent.filter((line) => line.startsWith('network.rule_resolved'));
    expect(triggers.map((line) => line.split(' ')[1]).sort()).toEqual([...ids].sort());
    expect(resolves.map((line) => line.split(' ')[1]).sort()).toEqual([...ids].sort());
    expect(resolves.map((line) => line.split(' ')[2]).sort()).toEqual(
      triggers.map((line) => line.split(' ')[2]).sort(),
    );
    // The fewest cycles the cap allows, and one more per cycle the machine's load cut short.
    expect(cycles + 1).toBeGreaterThanOrEqual(Math.ceil((2 * ids.length) / cap));
    expect(cycles + 1).toBeLessThanOrEqual(Math.ceil((2 * ids.length) / cap) + slowCycles);
    const events = (await m.store.queryEvents({})).filter((e) => e.rule !== undefined);
    expect(events).toHaveLength(2 * ids.length);
    expect((await m.store.ruleScope('rules#0').load()).outbox).toEqual([]);
  });

  it("two rule items, one of whose writes fails: the other item's trigger is sent in that cycle, and the error names both (issue 19.7)", async () => {
    // Prepare: net-1 (rules#0#0) and net-5 (rules#0#1) attacked; rules#0#1 cannot be written this cycle.
    const networks = 'net-1,net-2,net-3,net-4,net-5';
    const rulesText = [
      'hot: traffic.in.pps > 50k',
      ...Array.from(
        { length: 19 },
        (_, i) => `slow${i}: traffic.out.pps > ${i < 5 ? '3x baseline' : '1'} for 100`,
      ),
    ].join('; ');
    const m = monitor(rulesText, () => now, networks);
    await cycle(m);
    tick();
    pps['net-1'] = 90_000;
    pps['net-5'] = 90_000;
    const failing = wrapStores(m, (store, key) =>
      key !== 'rules#0#1'
        ? store
        : Object.assign(Object.create(store), {
            commit: async () => {
              throw new Error('ProvisionedThroughputExceededException');
            },
          }),
    );

    // Act
    const run = cycle(m, { ...m.deps, ruleState: failing });
    const error = (await run.catch((e: unknown) => e)) as StoreError;
    const published = ruleAlerts();
    tick();
    const next = await cycle(m);

    // Assess: the committed trigger went out in the failing cycle; the error says what was and was not written.
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toMatch(/rule state \(rules#0#1\).*ProvisionedThroughputExceededException/);
    expect(error.message).toMatch(/state items written: rules#0#0; not written: rules#0#1 \(/);
    expect(error.committed?.queued.map((a) => `${a.event} ${a.network}`)).toEqual([
      'network.rule_triggered net-1',
    ]);
    expect(published).toEqual(['network.rule_triggered hot net-1']);
    expect(next.queued.map((a) => `${a.event} ${a.network}`)).toEqual(['network.rule_triggered net-5']);
    expect(ruleAlerts()).toEqual(['network.rule_triggered hot net-1', 'network.rule_triggered hot net-5']);
  });
});
