/**
 * `npm run bench`, traffic rules: a sharded deployment's cycle (every shard's cycle at once, as the schedules
 * run them) with and without three rules, one of them a baseline
 * (docs/design/rule-state.md). In-process cycles (the Lambda's code path, bench/sharded-monitors.ts) against the
 * API simulator and a dynalite that counts requests.
 */
import { startSimulator } from '../cli/simulator/server.ts';
import { startDynamo } from '../test/fixtures/dynalite.ts';
import { shardedMonitors, WRITES } from './sharded-monitors.ts';

/** Three rules on the simulator's bodies: a threshold, a boolean and a baseline. */
export const BENCH_RULES =
  'flood: traffic.in.pps > 500k for 2; attack: attack.active == true for 2; surge: traffic.in.pps > 3x baseline for 3';

const READS = new Set(['GetItem', 'Query', 'BatchGetItem', 'Scan']);
/** Cycles before the measured one: the first creates the state items, the next fill the baselines' windows. */
const WARM_UP_CYCLES = 2;

export interface ShardedCycleFigures {
  readonly networks: number;
  readonly shardSize: number;
  readonly shards: number;
  readonly rules: number;
  readonly latencyMs: number;
  readonly concurrency: number;
  /** The slowest shard's cycle. */
  readonly cycleMs: number;
  /** The largest shard's ideal: ceil((its requests) / concurrency) x latency. */
  readonly idealMs: number;
  readonly latencyCost?: number;
  /** Rule items the shards wrote (one per shard whose networks some rule watches, at these sizes). */
  readonly ruleItems: number;
  readonly dynamoWrites: number;
  /** ceil((networks + 1) / 25) + 3, plus one per shard that owns rule state. */
  readonly dynamoWriteBudget: number;
  readonly dynamoReads: number;
}

/** One measured cycle of every shard at once, after {@link WARM_UP_CYCLES}. */
export async function measureShardedCycle(options: {
  readonly networks: number;
  readonly latencyMs: number;
  readonly shardSize: number;
  readonly concurrency: number;
  readonly rules: string;
}): Promise<ShardedCycleFigures> {
  const [dynamo, simulator] = await Promise.all([
    startDynamo({ table: 'bench-rules' }),
    startSimulator({
      networks: ['*'],
      scenario: 'steady',
      faults: { latencyMs: options.latencyMs },
      seed: 1,
    }),
  ]);
  try {
    const sharded = shardedMonitors({
      networks: options.networks,
      shardSize: options.shardSize,
      env: {
        SHIELDWATCH_API_URL: simulator.url,
        SHIELDWATCH_API_KEY: simulator.key,
        SHIELDWATCH_TABLE: dynamo.table,
        SHIELDWATCH_CONCURRENCY: String(options.concurrency),
        SHIELDWATCH_TIMEOUT_MS: '10000',
        SHIELDWATCH_RETRIES: '0',
        SHIELDWATCH_RULES: options.rules,
      },
      dynamo: dynamo.client,
    });
    const { shards, monitors } = sharded;
    for (let i = 0; i < WARM_UP_CYCLES; i++) {
      await sharded.cycleAll();
      sharded.advance(60_000);
    }
    dynamo.operations.length = 0;
    const results = await sharded.cycleAll();
    await sharded.close();
    const ruleItems = shards.reduce(
      (sum, shard, i) =>
        sum +
        monitors[i]!.store.ruleScopes(shard.index, monitors[i]!.settings.rules ?? [], shard.networks).length,
      0,
    );
    const cycleMs = Math.max(...results.map((r) => r.durationMs));
    const idealMs =
      Math.max(
        ...shards.map((s) => Math.ceil((s.networks.length + (s.pollFilter ? 1 : 0)) / options.concurrency)),
      ) * options.latencyMs;
    const count = (kinds: Set<string>) => dynamo.operations.filter((op) => kinds.has(op)).length;
    const owners = shards.filter(
      (shard, i) =>
        monitors[i]!.store.ruleScopes(shard.index, monitors[i]!.settings.rules ?? [], shard.networks).length >
        0,
    ).length;
    return {
      networks: options.networks,
      shardSize: options.shardSize,
      shards: shards.length,
      rules: monitors[0]?.settings.rules?.length ?? 0,
      latencyMs: options.latencyMs,
      concurrency: options.concurrency,
      cycleMs,
      idealMs,
      ...(options.latencyMs > 0 ? { latencyCost: cycleMs / idealMs } : {}),
      ruleItems,
      dynamoWrites: count(WRITES),
      dynamoWriteBudget: Math.ceil((options.networks + 1) / 25) + 3 + owners,
      dynamoReads: count(READS),
    };
  } finally {
    await Promise.all([dynamo.close(), simulator.close()]);
  }
}
