/**
 * CLI start-up (issue 21.5): median wall time of `shieldwatch --help`, `--version`, `status` and `events` (on an
 * embedded store with the demo's history) as ratios to a bare `node -e 0` on the same machine, each process
 * started from outside as a user starts it. The variants run in turns (one of each, then again), so a change in
 * the machine's load weighs on all of them alike. Part `cli` of bench/bench.ts; or alone:
 * `npx tsx bench/cli-start.ts` (BENCH_CLI_RUNS, default 21).
 *
 * It builds the CLI first (scripts/build-cli.mjs) and checks that the bin runs that build, not the TypeScript
 * sources: a source edited during the bench would otherwise be measured through tsx.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTable } from '../cli/format.ts';
import { stopEmbeddedStore } from '../cli/store/embedded.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'shieldwatch.mjs');
const RUNS = Number(process.env['BENCH_CLI_RUNS'] ?? 21);

/** One variant: what is started, and its target as a ratio to `node -e 0`. */
interface Variant {
  readonly label: string;
  readonly args: readonly string[];
  readonly target?: number;
}

const VARIANTS: readonly Variant[] = [
  { label: 'node -e 0', args: ['-e', '0'] },
  { label: 'shieldwatch --help', args: [BIN, '--help'], target: 4 },
  { label: 'shieldwatch --version', args: [BIN, '--version'], target: 4 },
  { label: 'shieldwatch status', args: [BIN, 'status'], target: 6 },
  { label: 'shieldwatch events', args: [BIN, 'events'], target: 6 },
];

/** The figures of one variant. */
export interface CliStartFigure {
  readonly label: string;
  readonly medianMs: number;
  readonly minMs: number;
  readonly ratio: number;
  readonly target?: number;
}

/** The figures of the part. */
export interface CliStartFigures {
  readonly runs: number;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly figures: readonly CliStartFigure[];
}

/** Wall time of one process, start to exit, ms; throws when it fails. */
function timed(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(Number(process.hrtime.bigint() - started) / 1e6);
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Builds the CLI, makes an embedded store with history in a temporary directory, and measures. */
export async function measureCliStart(runs = RUNS): Promise<CliStartFigures> {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-cli.mjs'), '--quiet'], {
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the CLI build failed');
  const dir = mkdtempSync(path.join(tmpdir(), 'shieldwatch-bench-cli-'));
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/tmp',
    SHIELDWATCH_ENV_FILE: '/dev/null',
    SHIELDWATCH_TABLE: 'shieldwatch-demo',
  };
  try {
    process.stderr.write('cli start: the demo fills an embedded store...\n');
    await timed([BIN, 'demo', '--cycles', '12', '--every', '500ms'], dir, env);
    const which = spawnSync(process.execPath, [BIN, '--version'], {
      env: { ...env, NODE_DEBUG: 'shieldwatch' },
      encoding: 'utf8',
    });
    if (!which.stderr.includes('running the build')) {
      throw new Error(`the bin does not run the build: ${which.stderr.trim()}`);
    }
    // A warm-up of each (disk cache, the store's server running), then the measured turns.
    for (const variant of VARIANTS) await timed(variant.args, dir, env);
    const loadBefore = loadavg();
    const times = VARIANTS.map((): number[] => []);
    for (let run = 0; run < runs; run++) {
      process.stderr.write(`\rcli start: turn ${run + 1} of ${runs}`);
      for (const [i, variant] of VARIANTS.entries()) times[i]!.push(await timed(variant.args, dir, env));
    }
    process.stderr.write('\n');
    const loadAfter = loadavg();
    const base = median(times[0]!);
    const figures = VARIANTS.map((variant, i) => ({
      label: variant.label,
      medianMs: median(times[i]!),
      minMs: Math.min(...times[i]!),
      ratio: median(times[i]!) / base,
      ...(variant.target === undefined ? {} : { target: variant.target }),
    }));
    return { runs, loadBefore, loadAfter, figures };
  } finally {
    await stopEmbeddedStore(path.join(dir, '.shieldwatch'));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the figures as a table. */
export function printCliStart(result: CliStartFigures): void {
  const load = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');
  console.log(
    `\nCLI start-up: median wall time of ${result.runs} runs each, in turns, as a ratio to node -e 0\n` +
      `(load average ${load(result.loadBefore)} before, ${load(result.loadAfter)} after)\n`,
  );
  console.log(
    renderTable(
      ['command', 'median', 'fastest', 'ratio', 'target'],
      result.figures.map((f) => [
        f.label,
        `${f.medianMs.toFixed(0)} ms`,
        `${f.minMs.toFixed(0)} ms`,
        `${f.ratio.toFixed(2)}x`,
        f.target === undefined ? '-' : `<= ${f.target}x ${f.ratio <= f.target ? 'ok' : 'MISSED'}`,
      ]),
    ),
  );
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  printCliStart(await measureCliStart());
}
