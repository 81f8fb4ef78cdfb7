/**
 * `npx tsx bench/poll-cycle.ts`: a cycle as an operator sees it (issue 30.7). The API simulator runs as its
 * own process (`shieldwatch simulate --latency 100`), each cycle is `shieldwatch poll` in a fresh process on
 * the embedded store (its own dynalite server, in a temporary directory), and the figure is the cycle time
 * `poll` prints (`took N ms`), against the ideal `ceil((networks + 1) / concurrency) x latency`. Runs the
 * cycles with three rules and with none, alternately, so a machine whose load drifts weighs on both alike.
 *
 * `BENCH_NETWORKS` (1000), `BENCH_LATENCY` (100 ms), `BENCH_CONCURRENCY` (10), `BENCH_RUNS` (5 measured polls
 * of each, after one warm-up that creates the store and the baselines), `BENCH_BIN` (another checkout's
 * `bin/shieldwatch.mjs`, to compare). Prints a table (min, median, max) and writes bench/results/poll-cycle.json.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTable } from '../cli/format.ts';
import { runCli } from '../test/cli/helpers.ts';
import { BENCH_RULES } from './rule-cycles.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = process.env['BENCH_BIN'] ?? `${ROOT}bin/shieldwatch.mjs`;
const NETWORKS = Number(process.env['BENCH_NETWORKS'] ?? 1000);
const LATENCY_MS = Number(process.env['BENCH_LATENCY'] ?? 100);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 10);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const KEY = 'bench-key-0123456789';

/** Starts `shieldwatch simulate` on a free port and resolves with its URL once it listens. */
function startSimulatorProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'simulate',
      '--port',
      '0',
      '--key',
      KEY,
      '--networks',
      '*',
      '--scenario',
      'steady',
      '--latency',
      String(LATENCY_MS),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '', SHIELDWATCH_ENV_FILE: '/dev/null' },
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const url = /export SHIELDWATCH_API_URL=(\S+)/.exec(out);
      if (url !== null) resolve({ url: url[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`the simulator exited (${code}): ${out}`)));
  });
}

interface Poll {
  readonly rules: 'three' | 'none';
  readonly cycleMs: number;
  readonly wallMs: number;
}

async function main(): Promise<void> {
  const { url, child } = await startSimulatorProcess();
  const dirs = {
    three: mkdtempSync(path.join(tmpdir(), 'sw-poll-3-')),
    none: mkdtempSync(path.join(tmpdir(), 'sw-poll-0-')),
  };
  const networks = Array.from({ length: NETWORKS }, (_, i) => `net-${i}`).join(',');
  const poll = async (rules: 'three' | 'none'): Promise<Poll> => {
    const run = await runCli(
      ['poll'],
      {
        SHIELDWATCH_API_URL: url,
        SHIELDWATCH_API_KEY: KEY,
        SHIELDWATCH_NETWORKS: networks,
        SHIELDWATCH_CONCURRENCY: String(CONCURRENCY),
        SHIELDWATCH_TIMEOUT_MS: '10000',
        SHIELDWATCH_RETRIES: '0',
        SHIELDWATCH_CYCLE_TIMEOUT_MS: '300000',
        ...(rules === 'three' ? { SHIELDWATCH_RULES: BENCH_RULES } : {}),
      },
      { cwd: dirs[rules], timeoutMs: 600_000 },
    );
    const took = /took (\d+) ms/.exec(run.stdout);
    if (run.code !== 0 || took === null)
      throw new Error(`poll failed (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
    return { rules, cycleMs: Number(took[1]), wallMs: run.ms };
  };
  const polls: Poll[] = [];
  try {
    await poll('three');
    await poll('none');
    for (let i = 0; i < RUNS; i++) {
      polls.push(await poll('three'));
      polls.push(await poll('none'));
    }
  } finally {
    // The embedded stores' servers stop by themselves once idle; their directories go now.
    child.kill();
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
  }
  const idealMs = Math.ceil((NETWORKS + 1) / CONCURRENCY) * LATENCY_MS;
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { min: sorted[0]!, median: sorted[Math.floor((sorted.length - 1) / 2)]!, max: sorted.at(-1)! };
  };
  const rows = (['three', 'none'] as const).map((rules) => {
    const mine = polls.filter((p) => p.rules === rules);
    const cycle = stats(mine.map((p) => p.cycleMs));
    const wall = stats(mine.map((p) => p.wallMs));
    return {
      rules,
      idealMs,
      cycle,
      wall,
      ratio: { min: cycle.min / idealMs, median: cycle.median / idealMs, max: cycle.max / idealMs },
    };
  });
  const range = (s: { min: number; median: number; max: number }, f: (n: number) => string) =>
    `${f(s.median)} (${f(s.min)}-${f(s.max)})`;
  process.stdout.write(
    `\n${NETWORKS} networks at ${LATENCY_MS} ms, concurrency ${CONCURRENCY}, embedded store, ${RUNS} polls each (median (min-max))\n` +
      renderTable(
        ['rules', 'cycle poll reports', 'ideal', 'cycle / ideal', 'poll process wall'],
        rows.map((r) => [
          r.rules,
          range(r.cycle, (n) => `${(n / 1000).toFixed(2)} s`),
          `${(r.idealMs / 1000).toFixed(1)} s`,
          range(r.ratio, (n) => `${n.toFixed(3)}x`),
          range(r.wall, (n) => `${(n / 1000).toFixed(1)} s`),
        ]),
      ) +
      '\n',
  );
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  writeFileSync(
    `${ROOT}bench/results/poll-cycle.json`,
    `${JSON.stringify({ networks: NETWORKS, latencyMs: LATENCY_MS, concurrency: CONCURRENCY, bin: BIN, rows, polls }, null, 2)}\n`,
  );
}

await main();
