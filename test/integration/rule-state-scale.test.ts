/**
 * Rule state at scale (docs/design/rule-state.md): 1000 networks x 3 rules, one of them a
 * baseline, with sharding. The worst case (every cell open, every list full of the longest doubles, every
 * rule item's outbox as full as it can get) is written to dynalite and every item's DynamoDB size checked;
 * real cycles per shard count their writes.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import {
  decodeRuleScope,
  encodeRuleScope,
  ruleStateBytes,
  STATE_BUDGET_BYTES,
} from '../../lambda/adapters/rule-items.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { createApiClient } from '../../lambda/composition-root.ts';
import { BASELINE_WINDOW } from '../../lambda/core/rules/rule-eval.ts';
import type { Rule, RuleCell } from '../../lambda/core/rules/rule-types.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';
import { type CycleSettings, runCycle } from '../../lambda/cycle.ts';
import type { RuleScopeState } from '../../lambda/ports.ts';
import { planShards } from '../../lib/shards.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

/** DynamoDB's item size: attribute names plus values (a number counted at its largest, 21 bytes). */
function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return 21;
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueBytes(v), 0);
  return (
    3 +
    Object.entries(value as Record<string, unknown>).reduce(
      (sum, [name, v]) => sum + 1 + Buffer.byteLength(name, 'utf8') + valueBytes(v),
      0,
    )
  );
}
const itemBytes = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce((sum, [name, v]) => sum + Buffer.byteLength(name, 'utf8') + valueBytes(v), 0);

const NETWORKS = Array.from({ length: 1000 }, (_, i) => `network-${String(i).padStart(4, '0')}`);
const RULES_TEXT =
  'flood: traffic.in.pps > 50k for 3; attack: attack == true for 3; surge: traffic.in.pps > 3x baseline for 3';
const SHARD_SIZE = 150;
const ITEM_LIMIT = 400 * 1024;
/** The longest JSON text of a double, as a reading could be. */
const WORST = -1.2345678901234567e-308;
const AT = '2026-03-01T10:00:00.000Z';
const PEAK_AT = '1950-01-01T00:00:00.000Z';

const rules: Rule[] = parseRules(RULES_TEXT).rules;

/** Every cell open with a full run of values (and a full window for the baseline) and its peak. */
function worstState(networks: readonly string[]): RuleScopeState {
  const cells: Record<string, Record<string, RuleCell>> = {};
  for (const rule of rules) {
    const row: Record<string, RuleCell> = {};
    for (const network of networks) {
      const value = rule.threshold.kind === 'boolean' ? false : WORST;
      row[network] = {
        open: true,
        run: rule.forCycles - 1,
        values: Array.from({ length: rule.forCycles - 1 }, () => value),
        ...(rule.threshold.kind === 'baseline'
          ? { window: Array.from({ length: BASELINE_WINDOW }, (_, i) => WORST * (i + 1)) }
          : {}),
        triggeredAt: AT,
        incident: `${rule.name}/${network}/${AT}`,
        // Its peak at the longest: the longest double, read long before its trigger (the longest offset).
        peak: { value, at: PEAK_AT },
      };
    }
    cells[rule.name] = row;
  }
  return { rules: { lastAt: AT, cells }, nextSeq: 1 };
}

/** A rule alert at its largest: every value the longest double, claimed, with a last error of 500 characters. */
function worstAlert(seq: number, network: string): AlertRecord {
  const rule = rules.reduce((a, b) => (a.text.length >= b.text.length ? a : b));
  return {
    seq,
    event: 'network.rule_triggered',
    at: AT,
    rule: rule.name,
    network,
    value: WORST,
    threshold: WORST,
    baseline: WORST,
    ruleText: rule.text,
    values: Array.from({ length: rule.forCycles }, () => WORST),
    incident: `${rule.name}/${network}/${AT}`,
    since: AT,
    peak: WORST,
    peakAt: AT,
    severity: 'resolved',
    ...{ claimedBy: '00000000-0000-0000-0000-000000000000', claimUntil: Date.now(), failures: 99 },
    ...{ lastError: 'x'.repeat(500) },
  } as AlertRecord;
}

describe('rule state of 1000 networks x 3 rules (one baseline), sharded', () => {
  let dynamo: LocalDynamo;
  let api: FakeApi;
  let store: DynamoStore;
  beforeAll(async () => {
    dynamo = await startDynamo();
    api = await startFakeApi({ key: 'rule-scale-key-0123456' });
    api.network = (id) => ({ body: { traffic: { in: { pps: 100 + (id.length % 7) } }, attack: false } });
    store = new DynamoStore(dynamo.client, dynamo.table);
  });
  afterAll(async () => {
    await api.close();
    await dynamo.close();
  });

  const shards = planShards(NETWORKS, SHARD_SIZE);

  it('one rule item per shard, each far below the item limit at the worst, its state text within the bound', async () => {
    const doc = DynamoDBDocumentClient.from(dynamo.client);
    const sizes: number[] = [];
    for (const shard of shards) {
      // Prepare
      const scopes = store.ruleScopes(shard.index, rules, shard.networks);
      expect(scopes.map((s) => s.key)).toEqual([`rules#${shard.index}`]);
      for (const scope of scopes) {
        const state = worstState(scope.networks);
        const text = encodeRuleScope(state);
        // The bound is a bound, and the text round-trips.
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(ruleStateBytes(rules, scope.networks));
        expect(ruleStateBytes(rules, scope.networks)).toBeLessThanOrEqual(STATE_BUDGET_BYTES);
        expect(decodeRuleScope(text)).toEqual(state);
        // The outbox at its fullest: as many waiting alerts as the item keeps, and one commit's worth more.
        const waiting = Array.from({ length: scope.maxAlerts }, (_, i) =>
          worstAlert(i + 1, scope.networks[i]!),
        );
        const fresh = Array.from({ length: scope.maxAlerts }, (_, i) =>
          worstAlert(scope.maxAlerts + i + 1, scope.networks[i]!),
        );

        // Act
        expect(await scope.store.commit(state, 0, waiting)).toBe(true);
        expect(await scope.store.commit(state, 1, fresh, { claimant: 'c', untilMs: Date.now() })).toBe(true);

        // Assess
        const item = (
          await doc.send(new GetCommand({ TableName: dynamo.table, Key: { pk: 'state', sk: scope.key } }))
        ).Item!;
        sizes.push(itemBytes(item));
        expect((await scope.store.load()).outbox).toHaveLength(2 * scope.maxAlerts);
      }
    }
    expect(sizes).toHaveLength(shards.length);
    expect(Math.max(...sizes)).toBeLessThan(ITEM_LIMIT * 0.8);
  });

  it('a cycle per shard writes within ceil((n + 1) / 25) + 3 plus one per rule item', async () => {
    const own = await startDynamo();
    const writes: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (const shard of shards) {
        // Prepare
        const settings: CycleSettings = {
          networks: shard.networks,
          pollFilter: shard.pollFilter,
          retentionDays: 1,
          alertAfter: 3,
          confirmations: 1,
          monitorName: 'scale',
          rules,
          ruleShard: shard.index,
        };
        const fresh = new DynamoStore(own.client, own.table);
        const deps = {
          api: createApiClient(
            {
              apiUrl: api.url,
              timeoutMs: 5000,
              maxBodyBytes: 65_536,
              concurrency: 64,
              retries: 0,
            } as never,
            { get: async () => api.key, invalidate: () => {} },
          ),
          snapshots: fresh,
          state: fresh,
          ruleState: fresh,
          publisher: new LogAlertPublisher(() => {}),
          log: { info: () => {}, warn: () => {}, error: () => {} },
          now: () => Date.now() + round * 60_000,
          newId: () => `cycle-${round}-${shard.index}`,
        };

        // Act
        await runCycle(deps, settings, deps.now() + 20_000);
        await deps.api.close();

        // Assess
        const polled = shard.networks.length + (shard.pollFilter ? 1 : 0);
        expect(fresh.stats.writes).toBeLessThanOrEqual(Math.ceil(polled / 25) + 3 + 1);
        writes.push(fresh.stats.writes);
      }
    }
    await own.close();
    const perCycle = writes.slice(shards.length).reduce((a, b) => a + b, 0);
    expect(perCycle).toBeLessThanOrEqual(Math.ceil((NETWORKS.length + 1) / 25) + 3 + shards.length);
  }, 60_000);
});
