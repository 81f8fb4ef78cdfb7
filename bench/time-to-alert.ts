/**
 * `npm run bench:detect`: detection in seconds (CONTRACT §18.5), measured, not asserted.
 *
 * The deployed handler's loop as EventBridge drives it: one invocation a minute, a second or so late; in it the
 * slots of `pollEvery` planned and run as `lambda/handler.ts` plans and runs them (`planSlots`, `runSlots`), each
 * slot one real cycle of the composition root (`buildMonitor`, `runCycle`) against a loopback API and dynalite.
 * The monitor runs on its own clock: waiting for a slot moves it on at once, a cycle moves it on by the real
 * time the cycle took. The API changes its filter status and one network's traffic (across a rule's threshold)
 * at random moments of that clock; the figure is the time from each change to the publish of its alert, over
 * every change, at `60s` and at `10s`. Beside it: Lambda-seconds (billed: from the invocation's start to its
 * last cycle's end, the waits between slots included) and DynamoDB write requests, per hour of monitoring.
 *
 * Env: BENCH_CHANGES (default 40 changes of each kind), BENCH_SEED.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderTable } from '../cli/format.ts';
import { buildMonitor } from '../lambda/composition-root.ts';
import { loadConfig } from '../lambda/config.ts';
import { planSlots } from '../lambda/core/poll-slots.ts';
import { runCycle } from '../lambda/cycle.ts';
import { runSlots } from '../lambda/poll-loop.ts';
import type { AlertPublisher } from '../lambda/ports.ts';
import { startDynamo } from '../test/fixtures/dynalite.ts';
import { startFakeApi } from '../test/fixtures/fake-api.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CHANGES = Number(process.env['BENCH_CHANGES'] ?? 40);
const KEY = 'bench-time-to-alert-key-7f3e';
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** A small deterministic generator (mulberry32), so two runs change the API at the same moments. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Figures {
  readonly pollEvery: string;
  readonly changes: number;
  readonly alerted: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  readonly lambdaSecondsPerHour: number;
  readonly dynamoWritesPerHour: number;
  readonly cyclesPerHour: number;
}

const nearestRank = (sorted: readonly number[], p: number) =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

async function measure(pollEvery: '60s' | '10s', seed: number): Promise<Figures> {
  const rand = random(seed);
  const api = await startFakeApi({ key: KEY });
  const dynamo = await startDynamo();
  // The monitor's clock: a whole minute, a day ahead of real time (the clients' own time-outs use real time).
  const start = Math.ceil((Date.now() + 86_400_000) / 60_000) * 60_000;
  let now = start;
  // The changes: the status flips, the traffic crosses the rule's threshold, at random moments 1-3 minutes apart.
  const statusAt: number[] = [];
  const trafficAt: number[] = [];
  for (let t = start + 90_000, i = 0; i < CHANGES; i++) {
    t += 60_000 + Math.floor(rand() * 120_000);
    statusAt.push(t);
  }
  for (let t = start + 100_000, i = 0; i < CHANGES; i++) {
    t += 60_000 + Math.floor(rand() * 120_000);
    trafficAt.push(t);
  }
  const flips = (times: readonly number[]) => times.filter((t) => t <= now).length;
  api.filter = () => ({ body: { status: flips(statusAt) % 2 === 0 ? 'active' : 'mitigating' } });
  api.network = () => ({ body: { traffic: { in_pps: flips(trafficAt) % 2 === 0 ? 100 : 50_000 } } });
  const published: Array<{ at: number; event: string; to?: string }> = [];
  const publisher: AlertPublisher = {
    target: 'bench',
    publish: async (alert) => {
      published.push({
        at: now,
        event: alert.attributes['event'] ?? '',
        ...(alert.attributes['to'] === undefined ? {} : { to: alert.attributes['to'] }),
      });
      return `m-${published.length}`;
    },
  };
  const env = {
    SHIELDWATCH_API_URL: api.url,
    SHIELDWATCH_API_KEY: KEY,
    SHIELDWATCH_NETWORKS: 'edge-1',
    SHIELDWATCH_TABLE: dynamo.table,
    SHIELDWATCH_RULES: 'pps: traffic.in_pps > 1000',
    SHIELDWATCH_GROUP_BY: 'none',
    SHIELDWATCH_POLL_EVERY: pollEvery,
  };
  const config = loadConfig(env);
  const monitor = buildMonitor({
    config,
    env,
    dynamo: dynamo.client,
    log: { info: () => {}, warn: () => {}, error: () => {} },
    fallbackPublisher: publisher,
    now: () => now,
  });
  const everyMs = config.pollEveryMs ?? 60_000;
  const end = Math.max(...statusAt, ...trafficAt) + 5 * 60_000;
  let billedMs = 0;
  let cycles = 0;
  dynamo.operations.length = 0;
  for (let minute = start; minute < end; minute += 60_000) {
    // EventBridge invokes within a second or two of the minute; the function has 70 s (30 s at 60s).
    const invokedAt = minute + 200 + Math.floor(rand() * 1500);
    now = Math.max(now, invokedAt);
    const endByMs = invokedAt + (everyMs < 60_000 ? 70_000 : 30_000) - 3000;
    const slots = planSlots({ scheduledMs: minute, nowMs: now, everyMs, endByMs });
    await runSlots({
      slots,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
      cycle: async (slot) => {
        const real = performance.now();
        const result = await runCycle(monitor.deps, monitor.settings, slot.deadlineMs);
        now += Math.ceil(performance.now() - real);
        cycles++;
        return result;
      },
    });
    billedMs += now - invokedAt;
  }
  const hours = (end - start) / 3_600_000;
  const writes = dynamo.operations.filter((op) => WRITES.has(op)).length;
  // Each change's alert: the first publish of its kind after it.
  const delays: number[] = [];
  const after = (t: number, matches: (p: (typeof published)[number]) => boolean) =>
    published.find((p) => p.at >= t && matches(p));
  statusAt.forEach((t, i) => {
    const to = i % 2 === 0 ? 'mitigating' : 'active';
    const alert = after(t, (p) => p.event === 'filter.status_changed' && p.to === to);
    if (alert !== undefined) delays.push(alert.at - t);
  });
  trafficAt.forEach((t, i) => {
    const event = i % 2 === 0 ? 'network.rule_triggered' : 'network.rule_resolved';
    const alert = after(t, (p) => p.event === event);
    if (alert !== undefined) delays.push(alert.at - t);
  });
  delays.sort((a, b) => a - b);
  await monitor.close();
  await api.close();
  await dynamo.close();
  return {
    pollEvery,
    changes: statusAt.length + trafficAt.length,
    alerted: delays.length,
    p50Ms: nearestRank(delays, 50),
    p95Ms: nearestRank(delays, 95),
    maxMs: delays.at(-1) ?? Number.NaN,
    lambdaSecondsPerHour: Math.round(billedMs / 1000 / hours),
    dynamoWritesPerHour: Math.round(writes / hours),
    cyclesPerHour: Math.round(cycles / hours),
  };
}

const seed = Number(process.env['BENCH_SEED'] ?? 20261127);
const figures = [await measure('60s', seed), await measure('10s', seed)];
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log(
  renderTable(
    ['pollEvery', 'changes', 'alerted', 'p50', 'p95', 'max', 'cycles/h', 'Lambda-s/h', 'DynamoDB writes/h'],
    figures.map((f) => [
      f.pollEvery,
      String(f.changes),
      String(f.alerted),
      s(f.p50Ms),
      s(f.p95Ms),
      s(f.maxMs),
      String(f.cyclesPerHour),
      String(f.lambdaSecondsPerHour),
      String(f.dynamoWritesPerHour),
    ]),
  ),
);
mkdirSync(`${ROOT}bench/results`, { recursive: true });
writeFileSync(`${ROOT}bench/results/time-to-alert.json`, `${JSON.stringify(figures, null, 2)}\n`);
