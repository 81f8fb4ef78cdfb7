/**
 * A sharded deployment in one process, for the benchmarks of rules and incidents: networks `net-0` ... planned
 * into shards as the stack plans them, one monitor per shard (the Lambda's code path: `buildMonitor`, and
 * `runCycle` with each shard's settings as the handler applies its schedule input), and every shard's cycle run
 * at once, as the schedules run them.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LogAlertPublisher } from '../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../lambda/composition-root.ts';
import { loadConfig } from '../lambda/config.ts';
import type { RenderedAlert } from '../lambda/core/types.ts';
import { runCycle } from '../lambda/cycle.ts';
import type { CycleResult } from '../lambda/cycle-types.ts';
import { planShards, type Shard } from '../lib/shards.ts';

/** The DynamoDB operations that write, as the dynalite fixture names them. */
export const WRITES = new Set(['BatchWriteItem', 'PutItem', 'UpdateItem', 'DeleteItem']);

/** Options of {@link shardedMonitors}. */
export interface ShardedMonitorsOptions {
  /** How many networks (`net-0` ... `net-<n-1>`). */
  readonly networks: number;
  readonly shardSize: number;
  /** The monitors' settings (`SHIELDWATCH_*`), but for `SHIELDWATCH_NETWORKS`, which is the networks above. */
  readonly env: Readonly<Record<string, string>>;
  readonly dynamo: DynamoDBClient;
  /** Where the monitors' alerts go (no topic: the log publisher). @default - nowhere */
  readonly onAlert?: (alert: RenderedAlert) => void;
}

/** The shards, their monitors, and their cycles run all at once. */
export interface ShardedMonitors {
  readonly shards: readonly Shard[];
  /** One per shard, in the order of {@link shards}, as each schedule has its own function instances. */
  readonly monitors: readonly Monitor[];
  /** Runs every shard's cycle at once; each result in the order of {@link shards}. */
  cycleAll(): Promise<CycleResult[]>;
  /** Moves the monitors' clock on by `ms`. */
  advance(ms: number): void;
  /** Closes every monitor's API connections. */
  close(): Promise<void>;
}

/** One monitor per shard of `networks` networks, on one clock that {@link ShardedMonitors.advance} moves. */
export function shardedMonitors(options: ShardedMonitorsOptions): ShardedMonitors {
  const ids = Array.from({ length: options.networks }, (_, i) => `net-${i}`);
  const shards = planShards(ids, options.shardSize);
  const env = { ...options.env, SHIELDWATCH_NETWORKS: ids.join(',') };
  const onAlert = options.onAlert ?? (() => {});
  let offset = 0;
  const monitors = shards.map(() =>
    buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: options.dynamo,
      log: { info: () => {}, warn: () => {}, error: () => {} },
      fallbackPublisher: new LogAlertPublisher(onAlert),
      now: () => Date.now() + offset,
    }),
  );
  return {
    shards,
    monitors,
    cycleAll: () =>
      Promise.all(
        shards.map((shard, i) => {
          const monitor = monitors[i]!;
          const settings = {
            ...monitor.settings,
            networks: shard.networks,
            pollFilter: shard.pollFilter,
            ruleShard: shard.index,
          };
          return runCycle(monitor.deps, settings, monitor.deps.now() + 300_000);
        }),
      ),
    advance: (ms) => {
      offset += ms;
    },
    close: async () => {
      await Promise.all(monitors.map((m) => m.close()));
    },
  };
}
