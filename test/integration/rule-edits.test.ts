/**
 * Rule state across configuration edits (issue 19.1, second review): a network's cells are judged by exactly
 * one rule item, its alerts leave in order from one outbox, also while cycles of the old and the new network
 * list run at once (a deploy), and a handover cut short by a crash loses nothing (docs/design/rule-state.md).
 * Per-network rule alerts are published (SHIELDWATCH_GROUP_BY=none). dynalite and a loopback API.
 */
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import type { RuleScopeState, RuleStateStore, StateStore } from '../../lambda/ports.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };
/** One rule that trips at once and 19 that never do: five networks take two items (net-5 in rules#0#1), four take one. */
const TWENTY = [
  'hot: traffic.in.pps > 50k',
  ...Array.from({ length: 19 }, (_, i) => `slow${i}: traffic.out.pps > 1e12 for 100`),
].join('; ');
const FIVE = 'net-1,net-2,net-3,net-4,net-5';
const FOUR = 'net-2,net-3,net-4,net-5';

describe('rule state across configuration edits (dynalite, loopback API)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let sns: SNSClient;
  let snsDown: boolean;
  let accepted: PublishCommandInput[];
  let pps: Record<string, number>;
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'rule-edits-key-0123456789' });
    dynamo = await startDynamo();
    sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    snsDown = false;
    accepted = [];
    let ids = 0;
    mockClient(sns)
      .on(PublishCommand)
      .callsFake(async (input: PublishCommandInput) => {
        if (snsDown) throw Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' });
        accepted.push(input);
        return { MessageId: `m-${++ids}` };
      });
    pps = {};
    api.network = (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 }, out: { pps: 5 } } } });
    now = Date.now();
  });
  afterEach(async () => {
    sns.destroy();
    await api.close();
    await dynamo.close();
  });

  const monitor = (networks: string): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: networks,
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_RULES: TWENTY,
      SHIELDWATCH_GROUP_BY: 'none',
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
  const cycle = (m: Monitor, deps = m.deps) => runCycle(deps, m.settings, deps.now() + 10_000);
  const tick = () => {
    now += 60_000;
  };
  /** Each published rule alert: `<event> <network> <incident> <action>`. */
  const sent = () =>
    accepted
      .filter((input) => input.MessageAttributes?.['event']?.StringValue?.startsWith('network.rule_'))
      .map((input) => {
        const a = input.MessageAttributes!;
        const sqs = JSON.parse(JSON.parse(input.Message!).sqs) as { incident: string; action: string };
        return `${a['event']!.StringValue} ${a['network']!.StringValue} ${sqs.incident} ${sqs.action}`;
      });
  /** Exactly one trigger, then one resolve, of one incident on net-5. */
  const expectOnePair = () => {
    const lines = sent();
    expect(lines.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
      'network.rule_triggered net-5',
      'network.rule_resolved net-5',
    ]);
    expect(lines[0]!.split(' ')[2]).toBe(lines[1]!.split(' ')[2]);
  };

  it('SNS down across the edit and the end of the attack: the waiting trigger is published before the resolve', async () => {
    // Prepare: net-5's trigger committed in rules#0#1's outbox while SNS is down.
    const five = monitor(FIVE);
    await cycle(five);
    tick();
    snsDown = true;
    pps['net-5'] = 90_000;
    await cycle(five);
    tick();

    // Act: net-1 removed (everything planned into rules#0); the attack ends; then SNS comes back.
    const four = monitor(FOUR);
    await cycle(four);
    tick();
    pps['net-5'] = 100;
    await cycle(four);
    tick();
    await cycle(four);
    tick();
    snsDown = false;
    for (let i = 0; i < 3; i++) {
      await cycle(four);
      tick();
    }

    // Assess: the trigger first, then its resolve (PagerDuty closes the page).
    expectOnePair();
  });

  it('cycles of the old and the new network list at once: one resolve, from one item', async () => {
    // Prepare: net-5 triggered under five networks (its cells in rules#0#1).
    const five = monitor(FIVE);
    const four = monitor(FOUR);
    await cycle(five);
    tick();
    pps['net-5'] = 90_000;
    await cycle(five);
    tick();

    // Act: a deploy's overlap: both configurations run every tick; the attack ends.
    for (let i = 0; i < 2; i++) {
      await Promise.all([cycle(four), cycle(five)]);
      tick();
    }
    pps['net-5'] = 100;
    for (let i = 0; i < 3; i++) {
      await Promise.all([cycle(four), cycle(five)]);
      tick();
    }

    // Assess
    expectOnePair();
  });

  it('old and new network lists at once while SNS is down across the move: one trigger, one resolve', async () => {
    // Prepare
    const five = monitor(FIVE);
    const four = monitor(FOUR);
    await cycle(five);
    tick();
    pps['net-5'] = 90_000;
    snsDown = true;
    await cycle(five);
    tick();

    // Act
    await Promise.all([cycle(four), cycle(five)]);
    tick();
    snsDown = false;
    await Promise.all([cycle(four), cycle(five)]);
    tick();
    pps['net-5'] = 100;
    for (let i = 0; i < 2; i++) {
      await Promise.all([cycle(four), cycle(five)]);
      tick();
    }
    await cycle(four);
    tick();
    await cycle(five);
    tick();

    // Assess
    expectOnePair();
  });

  it('a cycle that dies between the handover and the new item’s write: the next one takes the cells, nothing lost or judged twice', async () => {
    // Prepare: net-5 triggered in rules#0#1 (sent); then the edit, whose first cycle cannot write rules#0
    // after rules#0#1 handed net-5 over.
    const five = monitor(FIVE);
    await cycle(five);
    tick();
    pps['net-5'] = 90_000;
    await cycle(five);
    tick();
    const four = monitor(FOUR);
    const broken = (store: StateStore<RuleScopeState>, key: string) =>
      key !== 'rules#0'
        ? store
        : Object.assign(Object.create(store) as StateStore<RuleScopeState>, {
            commit: async () => {
              throw new Error('the process died');
            },
          });
    const dying: RuleStateStore = {
      ruleScopes: (...args) =>
        four.store.ruleScopes(...args).map((scope) => ({ ...scope, store: broken(scope.store, scope.key) })),
      findRuleItems: async (shard) =>
        (await four.store.findRuleItems(shard)).map((item) => ({
          ...item,
          store: broken(item.store, item.key),
        })),
      discardRuleItem: (...args) => four.store.discardRuleItem(...args),
      ruleItem: (key) => broken(four.store.ruleItem(key), key),
    };

    // Act: the dying cycle; then the old configuration once more (it takes net-5 back only by a handover of
    // its own), then the new one; the attack ends.
    await cycle(four, { ...four.deps, ruleState: dying }).catch(() => undefined);
    tick();
    const old = await cycle(five);
    tick();
    await cycle(four);
    tick();
    pps['net-5'] = 100;
    await cycle(four);
    tick();
    await cycle(five);
    tick();
    await cycle(four);

    // Assess: no second trigger when the cells came back; one trigger, one resolve, one incident.
    expect(old.queued).toEqual([]);
    expectOnePair();
  });
});
