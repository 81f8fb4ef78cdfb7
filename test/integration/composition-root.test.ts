/**
 * The composition root hands each store role to the cycle by its own adapter (issue 20.5): one table, five
 * roles, each an object that is only that role, all counting on the table's one set of counters.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DynamoHealthStateStore,
  DynamoIncidentStore,
  DynamoMonitorStateStore,
  DynamoRuleStateStore,
  DynamoSnapshotStore,
} from '../../lambda/adapters/dynamo-store.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

describe('the composition root (dynalite, loopback API)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let monitor: Monitor;
  beforeEach(async () => {
    [api, dynamo] = await Promise.all([startFakeApi({ key: 'test-key-0123456789' }), startDynamo()]);
    api.filter = () => ({ body: { status: 'active' } });
    api.network = () => ({ body: { traffic: { in: { pps: 1 } } } });
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: 'net-1',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 100',
    };
    monitor = buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
    });
  });
  afterEach(async () => {
    await monitor?.close();
    await Promise.all([api.close(), dynamo.close()]);
  });

  it('hands each store role in as its own adapter, named for the role', () => {
    // Prepare
    const { deps } = monitor;

    // Act
    const roles = [deps.snapshots, deps.state, deps.ruleState, deps.networkHealth, deps.incidents];

    // Assess
    expect(deps.snapshots).toBeInstanceOf(DynamoSnapshotStore);
    expect(deps.state).toBeInstanceOf(DynamoMonitorStateStore);
    expect(deps.ruleState).toBeInstanceOf(DynamoRuleStateStore);
    expect(deps.networkHealth).toBeInstanceOf(DynamoHealthStateStore);
    expect(deps.incidents).toBeInstanceOf(DynamoIncidentStore);
    expect(new Set(roles).size).toBe(roles.length);
    // Each is only its role: the snapshot store holds no state, the state no snapshots.
    expect('load' in deps.snapshots).toBe(false);
    expect('putSnapshots' in deps.state).toBe(false);
    expect('findIncidentScopes' in (deps.ruleState ?? {})).toBe(false);
  });

  it('the roles share one table and its counters: a cycle through them is read back through the table', async () => {
    // Prepare
    const before = { ...monitor.store.stats };

    // Act
    await runCycle(monitor.deps, monitor.settings, Date.now() + 10_000);

    // Assess: the snapshots, the state and the rule item written through the roles, counted on the table
    expect(monitor.store.stats.writes).toBeGreaterThan(before.writes);
    expect(await monitor.store.querySnapshots({ kind: 'network', networkId: 'net-1' }, {})).toHaveLength(1);
    expect((await monitor.store.load()).version).toBeGreaterThan(0);
    expect(await monitor.store.findRuleItems(0)).toHaveLength(1);
  });
});
