/**
 * `npm run bench:incidents` (docs/design/incidents.md, Cost): 1,000 networks in shards of 150, one traffic rule,
 * every shard's cycle at once (in-process, the Lambda's code path) against a loopback API and a dynalite that
 * counts requests. Quiet cycles, then every network attacked at once, the attack held, then over: the DynamoDB
 * writes of each cycle with SHIELDWATCH_GROUP_BY=rule beside the same cycles with none, and the messages SNS
 * would have received. Prints a table and writes bench/results/incidents.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderTable } from '../cli/format.ts';
import type { RenderedAlert } from '../lambda/core/types.ts';
import { startDynamo } from '../test/fixtures/dynalite.ts';
import { startFakeApi } from '../test/fixtures/fake-api.ts';
import { shardedMonitors, WRITES } from './sharded-monitors.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NETWORKS = Number(process.env['BENCH_NETWORKS'] ?? 1000);
const SHARD_SIZE = 150;
const RULE = 'flood: traffic.in.pps > 500k';

/** One measured cycle of every shard at once. */
interface Phase {
  readonly phase: string;
  readonly groupBy: 'rule' | 'none';
  readonly writes: number;
  /** ceil((N+1)/25) + 3 + one per shard that owns rule state: the budget of a cycle without alerts. */
  readonly budget: number;
  /** Alerts published (SNS messages). */
  readonly published: number;
  /** Alerts queued in the cycle (per-network transitions and incident alerts). */
  readonly queued: number;
}

async function measure(groupBy: 'rule' | 'none'): Promise<Phase[]> {
  const [dynamo, api] = await Promise.all([
    startDynamo({ table: `bench-incidents-${groupBy}` }),
    startFakeApi(),
  ]);
  let pps = 1000;
  api.network = () => ({ body: { traffic: { in: { pps } } } });
  const sent: RenderedAlert[] = [];
  try {
    const sharded = shardedMonitors({
      networks: NETWORKS,
      shardSize: SHARD_SIZE,
      env: {
        SHIELDWATCH_API_URL: api.url,
        SHIELDWATCH_API_KEY: api.key,
        SHIELDWATCH_TABLE: dynamo.table,
        SHIELDWATCH_CONCURRENCY: '50',
        SHIELDWATCH_TIMEOUT_MS: '10000',
        SHIELDWATCH_RETRIES: '0',
        SHIELDWATCH_RULES: RULE,
        SHIELDWATCH_GROUP_BY: groupBy,
      },
      dynamo: dynamo.client,
      onAlert: (alert) => {
        sent.push(alert);
      },
    });
    const round = async (phase: string): Promise<Phase> => {
      dynamo.operations.length = 0;
      sent.length = 0;
      const results = await sharded.cycleAll();
      sharded.advance(60_000);
      return {
        phase,
        groupBy,
        writes: dynamo.operations.filter((op) => WRITES.has(op)).length,
        budget: Math.ceil((NETWORKS + 1) / 25) + 3 + sharded.shards.length,
        published: sent.length,
        queued: results.reduce((sum, r) => sum + r.queued.length, 0),
      };
    };
    const phases: Phase[] = [];
    await round('warm-up');
    phases.push(await round('quiet'));
    pps = 900_000;
    phases.push(await round('attack starts (1,000 networks)'));
    pps = 950_000;
    phases.push(await round('attack held, peaks rise'));
    phases.push(await round('attack held, steady'));
    pps = 1000;
    phases.push(await round('attack over'));
    // The rule items' alert cap spreads 1,000 transitions over cycles: drain until nothing is queued.
    for (let i = 0; i < 40; i++) {
      const more = await round('after: held transitions');
      if (more.queued === 0 && more.published === 0) break;
      phases.push(more);
    }
    await sharded.close();
    return phases;
  } finally {
    await Promise.all([dynamo.close(), api.close()]);
  }
}

async function main() {
  const grouped = await measure('rule');
  const plain = await measure('none');
  const rows = grouped.map((g, i) => {
    const p = plain[i];
    return [
      g.phase,
      `${g.writes} (${g.budget})`,
      p === undefined ? '-' : `${p.writes}`,
      p === undefined ? '-' : String(g.writes - p.writes),
      String(g.published),
      p === undefined ? '-' : String(p.published),
    ];
  });
  process.stdout.write(
    `\n${NETWORKS} networks in shards of ${SHARD_SIZE}, rule ${RULE}, every shard's cycle at once\n` +
      renderTable(
        [
          'cycle',
          'writes, rule (budget)',
          'writes, none',
          'difference',
          'published, rule',
          'published, none',
        ],
        rows,
      ) +
      '\n',
  );
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  writeFileSync(
    `${ROOT}bench/results/incidents.json`,
    `${JSON.stringify({ networks: NETWORKS, shardSize: SHARD_SIZE, rule: RULE, grouped, plain }, null, 2)}\n`,
  );
}

await main();
