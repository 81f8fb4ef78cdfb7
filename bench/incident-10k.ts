/**
 * `npm run bench:incidents:10k` (issue 30.7, docs/design/incidents.md, Cost): an attack across 10,000 networks
 * in 10 shards, one traffic rule grouped by rule, every shard's cycle at once (in-process, the Lambda's code
 * path) against a loopback API and a dynalite that counts requests. A quiet cycle, then every network attacked
 * at once, the attack held, then over, and cycles until nothing is left to send: per cycle the DynamoDB writes
 * (against the budget of a cycle without alerts), the alerts queued and the messages SNS would have received
 * (by event), the cycles that failed; then the totals from the first trigger to the resolve. Prints a table
 * and writes bench/results/incidents-10k.json.
 *
 * `BENCH_NETWORKS` and `BENCH_SHARDS` change the size (default 10,000 and 10); `BENCH_GROUP_BY=none` runs
 * the same cycles with per-network alerts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderTable } from '../cli/format.ts';
import type { RenderedAlert } from '../lambda/core/types.ts';
import { runCycle } from '../lambda/cycle.ts';
import { startDynamo } from '../test/fixtures/dynalite.ts';
import { startFakeApi } from '../test/fixtures/fake-api.ts';
import { shardedMonitors, WRITES } from './sharded-monitors.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NETWORKS = Number(process.env['BENCH_NETWORKS'] ?? 10_000);
const SHARDS = Number(process.env['BENCH_SHARDS'] ?? 10);
const SHARD_SIZE = Math.ceil(NETWORKS / SHARDS);
const GROUP_BY = process.env['BENCH_GROUP_BY'] === 'none' ? 'none' : 'rule';
const RULE = 'flood: traffic.in.pps > 500k';
/** Cycles after the attack is over, at most, for the held transitions to drain. */
const MAX_DRAIN_CYCLES = 60;

interface Cycle {
  readonly phase: string;
  readonly writes: number;
  readonly budget: number;
  readonly queued: number;
  readonly published: number;
  /** Messages published, by their `event` attribute. */
  readonly events: Record<string, number>;
  /** Shards whose cycle threw (the store refused a write, an item too large...). */
  readonly failed: number;
  readonly firstError?: string;
  readonly ms: number;
}

async function main(): Promise<void> {
  const [dynamo, api] = await Promise.all([startDynamo({ table: 'bench-incidents-10k' }), startFakeApi()]);
  let pps = 1000;
  api.network = () => ({ body: { traffic: { in: { pps } } } });
  const sent: RenderedAlert[] = [];
  const cycles: Cycle[] = [];
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
        SHIELDWATCH_GROUP_BY: GROUP_BY,
      },
      dynamo: dynamo.client,
      onAlert: (alert) => {
        sent.push(alert);
      },
    });
    const budget = Math.ceil((NETWORKS + 1) / 25) + 3 + sharded.shards.length;
    const round = async (phase: string): Promise<Cycle> => {
      dynamo.operations.length = 0;
      sent.length = 0;
      const started = performance.now();
      // Every shard's cycle at once, as cycleAll runs them, each settled on its own to count the failures.
      const results = (
        await Promise.allSettled(
          sharded.shards.map((shard, i) => {
            const monitor = sharded.monitors[i]!;
            return runCycle(
              monitor.deps,
              {
                ...monitor.settings,
                networks: shard.networks,
                pollFilter: shard.pollFilter,
                ruleShard: shard.index,
              },
              monitor.deps.now() + 300_000,
            );
          }),
        )
      ).map((r) =>
        r.status === 'fulfilled'
          ? { ok: true as const, r: r.value }
          : { ok: false as const, error: String((r.reason as Error)?.message ?? r.reason) },
      );
      const ms = performance.now() - started;
      sharded.advance(60_000);
      const events: Record<string, number> = {};
      for (const alert of sent) {
        const event = alert.attributes['event'] ?? '?';
        events[event] = (events[event] ?? 0) + 1;
      }
      const failures = results.filter((r) => !r.ok);
      return {
        phase,
        writes: dynamo.operations.filter((op) => WRITES.has(op)).length,
        budget,
        queued: results.reduce((sum, r) => sum + (r.ok ? r.r.queued.length : 0), 0),
        published: sent.length,
        events,
        failed: failures.length,
        ...(failures[0] === undefined || failures[0].ok ? {} : { firstError: failures[0].error }),
        ms,
      };
    };
    await round('warm-up');
    cycles.push(await round('quiet'));
    pps = 900_000;
    cycles.push(await round(`attack starts (${NETWORKS.toLocaleString('en')} networks)`));
    pps = 950_000;
    cycles.push(await round('attack held, peaks rise'));
    cycles.push(await round('attack held, steady'));
    pps = 1000;
    cycles.push(await round('attack over'));
    for (let i = 0; i < MAX_DRAIN_CYCLES; i++) {
      const more = await round('after: held transitions');
      if (more.queued === 0 && more.published === 0 && more.failed === 0) break;
      cycles.push(more);
    }
    await sharded.close();
  } finally {
    await Promise.all([dynamo.close(), api.close()]);
  }

  // From the first cycle after the quiet one (the first trigger) to the last that still had work.
  const span = cycles.slice(1);
  const sum = (pick: (c: Cycle) => number) => span.reduce((s, c) => s + pick(c), 0);
  const events: Record<string, number> = {};
  for (const c of span) for (const [e, n] of Object.entries(c.events)) events[e] = (events[e] ?? 0) + n;
  const totals = {
    cycles: span.length,
    writes: sum((c) => c.writes),
    budget: sum((c) => c.budget),
    published: sum((c) => c.published),
    failedShardCycles: sum((c) => c.failed),
    events,
  };
  const eventText = (e: Record<string, number>) =>
    Object.entries(e)
      .map(([name, n]) => `${n} ${name}`)
      .join(', ') || '0';
  process.stdout.write(
    `\n${NETWORKS.toLocaleString('en')} networks in ${SHARDS} shards of ${SHARD_SIZE}, rule ${RULE}, groupBy=${GROUP_BY}, every shard's cycle at once\n` +
      renderTable(
        ['cycle', 'writes (budget)', 'queued', 'published', 'failed shards', 'seconds'],
        cycles.map((c) => [
          c.phase,
          `${c.writes} (${c.budget})`,
          String(c.queued),
          eventText(c.events),
          c.failed === 0 ? '0' : `${c.failed}: ${c.firstError ?? ''}`.slice(0, 80),
          (c.ms / 1000).toFixed(1),
        ]),
      ) +
      `\nfirst trigger to resolve: ${totals.cycles} cycles, ${totals.writes} writes (budget of as many quiet cycles ${totals.budget}), ` +
      `${totals.published} published (${eventText(events)}), ${totals.failedShardCycles} failed cycles\n`,
  );
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  writeFileSync(
    `${ROOT}bench/results/incidents-10k.json`,
    `${JSON.stringify({ networks: NETWORKS, shards: SHARDS, shardSize: SHARD_SIZE, rule: RULE, groupBy: GROUP_BY, cycles, totals }, null, 2)}\n`,
  );
}

await main();
