/**
 * `npm run bench`: what a poll cycle costs, measured side by side in one run.
 *
 * Each cycle is the real CLI (`node bin/shieldwatch.mjs poll`) against the API simulator on 127.0.0.1 with
 * injected latency and a dynalite that counts DynamoDB requests, so the figures are what an operator gets.
 * Then hostile answers: one cycle of the CLI against a loopback API whose every network answers a body just
 * under the size cap, shaped to cost the most heap once parsed (peak RSS is the figure to watch).
 * Then the Lambda bundle: its size, its cold import time (wall and CPU) beside the same modules imported
 * unbundled, and what that CPU time means as init time at each memory size.
 * Prints a table and writes every figure to bench/results/bench.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build } from 'esbuild';
import { renderTable } from '../cli/format.ts';
import { startSimulator } from '../cli/simulator/server.ts';
import { dumpTable, runCli } from '../test/cli/helpers.ts';
import { nearCapBody } from '../test/fixtures/big-bodies.ts';
import { startDynamo } from '../test/fixtures/dynalite.ts';
import { startFakeApi } from '../test/fixtures/fake-api.ts';
import { measureCliStart, printCliStart } from './cli-start.ts';
import { BENCH_RULES, measureShardedCycle, type ShardedCycleFigures } from './rule-cycles.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${ROOT}bench/results`;
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 10);
const NETWORKS = (process.env['BENCH_NETWORKS'] ?? '1,10,100,1000').split(',').map(Number);
const LATENCIES = (process.env['BENCH_LATENCIES'] ?? '0,100').split(',').map(Number);
/** Rules of the unsharded cycles: `none`, `three` ({@link BENCH_RULES}), or both. */
const CYCLE_RULES = (process.env['BENCH_CYCLE_RULES'] ?? 'none,three').split(',');
/** Networks of the hostile-answers run, each answering a body just under the cap. */
const BIG_NETWORKS = Number(process.env['BENCH_BIG_NETWORKS'] ?? 100);
/** The body cap of the hostile-answers run: the default `SHIELDWATCH_MAX_BODY_BYTES`. */
const BIG_BODY_CAP = 1024 * 1024;
/**
 * Heap flags of the hostile-answers run: what the Lambda Node.js runtime passes for a 256 MB function (new
 * space a tenth of the memory, half of it per semi-space; old space the rest), so the peak RSS is the one the
 * function would see, not that of a heap left to grow as it likes.
 */
const FUNCTION_256_MB_HEAP = ['--max-semi-space-size=12', '--max-old-space-size=231'];
/** `BENCH_BIG_HEAP=default` runs the hostile answers with Node's own heap limits instead. */
const BIG_HEAP = process.env['BENCH_BIG_HEAP'] === 'default' ? [] : FUNCTION_256_MB_HEAP;
/**
 * Which parts run: `cycles`, `rules` (sharded, with and without rules), `big` (hostile answers), `bundle`, `cli`
 * (the CLI's start-up, bench/cli-start.ts).
 */
const PARTS = new Set((process.env['BENCH_PARTS'] ?? 'cycles,rules,big,bundle,cli').split(','));
/** Networks and shard size of the sharded runs with and without traffic rules. */
const RULE_NETWORKS = Number(process.env['BENCH_RULE_NETWORKS'] ?? 1000);
const RULE_SHARD_SIZE = Number(process.env['BENCH_SHARD_SIZE'] ?? 150);
/** A sequential baseline is run when it takes at most this long; beyond, it is computed from the run. */
const SEQUENTIAL_RUN_LIMIT_MS = 12_000;
const DYNAMO_WRITES = new Set(['BatchWriteItem', 'PutItem', 'UpdateItem', 'DeleteItem']);
const DYNAMO_READS = new Set(['GetItem', 'Query', 'BatchGetItem', 'Scan']);

interface PollRun {
  readonly cycleMs: number;
  readonly wallMs: number;
  readonly maxRssMb: number;
}

/** Runs one `shieldwatch poll` and reads the cycle time from its summary and the peak RSS from a hook. */
async function poll(env: Record<string, string>, nodeArgs: readonly string[] = []): Promise<PollRun> {
  const run = await runCli(['poll'], env, {
    nodeArgs: [...nodeArgs, '--import', `${ROOT}bench/rss-hook.mjs`],
    timeoutMs: 600_000,
  });
  const cycle = /took (\d+) ms/.exec(run.stdout);
  const rss = /BENCH maxrss_kb=(\d+)/.exec(run.stderr);
  if (run.code !== 0 || cycle === null || rss === null) {
    throw new Error(`poll failed (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return { cycleMs: Number(cycle[1]), wallMs: run.ms, maxRssMb: Number(rss[1]) / 1024 };
}

interface CycleFigures {
  readonly networks: number;
  /** Traffic rules in force (0 or the three of {@link BENCH_RULES}). */
  readonly rules: number;
  readonly latencyMs: number;
  readonly concurrency: number;
  readonly requests: number;
  readonly cycleMs: number;
  readonly idealMs: number;
  /** cycle time / ideal; undefined at 0 ms latency, where the ideal is 0. */
  readonly latencyCost?: number;
  readonly sequentialMs: number;
  readonly sequentialMeasured: boolean;
  readonly speedup: number;
  readonly maxInFlight: number;
  readonly connections: number;
  readonly dynamoWrites: number;
  readonly dynamoWriteBudget: number;
  readonly dynamoReads: number;
  readonly dynamoOther: number;
  readonly peakRssMb: number;
}

async function measureCycle(networks: number, latencyMs: number, rules: string): Promise<CycleFigures> {
  const ids = Array.from({ length: networks }, (_, i) => `net-${i}`);
  const dynamo = await startDynamo({ table: 'bench' });
  const run = async (concurrency: number) => {
    const simulator = await startSimulator({
      networks: ['*'],
      scenario: 'steady',
      faults: { latencyMs },
      seed: 1,
    });
    const env = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      SHIELDWATCH_API_URL: simulator.url,
      SHIELDWATCH_API_KEY: simulator.key,
      SHIELDWATCH_NETWORKS: ids.join(','),
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_CONCURRENCY: String(concurrency),
      SHIELDWATCH_TIMEOUT_MS: '10000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_CYCLE_TIMEOUT_MS: '300000',
      ...(rules === '' ? {} : { SHIELDWATCH_RULES: rules }),
    };
    try {
      await poll(env); // warm-up: the baseline status, a warm disk cache
      const before = { requests: simulator.stats.requests, connections: simulator.stats.connections };
      dynamo.operations.length = 0;
      const measured = await poll(env);
      return {
        ...measured,
        requests: simulator.stats.requests - before.requests,
        connections: simulator.stats.connections - before.connections,
        maxInFlight: simulator.stats.maxInFlight,
        operations: [...dynamo.operations],
      };
    } finally {
      await simulator.close();
    }
  };
  try {
    const concurrent = await run(CONCURRENCY);
    const idealMs = Math.ceil((networks + 1) / CONCURRENCY) * latencyMs;
    const sequentialEstimate = (networks + 1) * Math.max(latencyMs, concurrent.cycleMs / (networks + 1));
    const sequentialMeasured = sequentialEstimate <= SEQUENTIAL_RUN_LIMIT_MS;
    const sequentialMs = sequentialMeasured ? (await run(1)).cycleMs : Math.round(sequentialEstimate);
    const count = (kinds: Set<string>) => concurrent.operations.filter((op) => kinds.has(op)).length;
    // Rule items of the cycle, each one more write in the budget (docs/design/rule-state.md).
    const ruleItems = (
      JSON.parse(await dumpTable(dynamo)) as Array<{ pk?: { S?: string }; sk?: { S?: string } }>
    ).filter(
      (item) =>
        item.pk?.S === 'state' && item.sk?.S?.startsWith('rules#') === true && !item.sk.S.includes('/'),
    ).length;
    return {
      networks,
      rules: rules === '' ? 0 : rules.split(';').length,
      latencyMs,
      concurrency: CONCURRENCY,
      requests: concurrent.requests,
      cycleMs: concurrent.cycleMs,
      idealMs,
      ...(latencyMs > 0 ? { latencyCost: concurrent.cycleMs / idealMs } : {}),
      sequentialMs,
      sequentialMeasured,
      speedup: sequentialMs / Math.max(1, concurrent.cycleMs),
      maxInFlight: concurrent.maxInFlight,
      connections: concurrent.connections,
      dynamoWrites: count(DYNAMO_WRITES),
      dynamoWriteBudget: Math.ceil((networks + 1) / 25) + 3 + ruleItems,
      dynamoReads: count(DYNAMO_READS),
      dynamoOther: concurrent.operations.length - count(DYNAMO_WRITES) - count(DYNAMO_READS),
      peakRssMb: concurrent.maxRssMb,
    };
  } finally {
    await dynamo.close();
  }
}

interface BigBodyFigures {
  readonly networks: number;
  readonly bodyBytes: number;
  readonly concurrency: number;
  readonly cycleMs: number;
  readonly peakRssMb: number;
  /** Snapshots the measured cycle stored (one per network and the filter when it completes). */
  readonly snapshots: number;
}

/**
 * One `shieldwatch poll` against a loopback API (not the simulator) whose every network answers a body of
 * just under {@link BIG_BODY_CAP}, after a warm-up poll with small bodies that sets the baseline status.
 */
async function measureBigBodies(networks: number): Promise<BigBodyFigures> {
  const ids = Array.from({ length: networks }, (_, i) => `net-${i}`);
  const body = nearCapBody(BIG_BODY_CAP);
  const [dynamo, api] = await Promise.all([
    startDynamo({ table: 'bench-big' }),
    startFakeApi({ key: 'bench-key-0123456789' }),
  ]);
  try {
    const env = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: ids.join(','),
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_CONCURRENCY: String(CONCURRENCY),
      SHIELDWATCH_MAX_BODY_BYTES: String(BIG_BODY_CAP),
      SHIELDWATCH_TIMEOUT_MS: '10000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_CYCLE_TIMEOUT_MS: '300000',
    };
    const snapshotCount = async () =>
      (JSON.parse(await dumpTable(dynamo)) as Array<{ pk?: { S?: string } }>).filter(
        (item) => item.pk?.S === 'filter' || item.pk?.S?.startsWith('network#') === true,
      ).length;
    await poll(env);
    api.network = () => ({ body });
    const before = await snapshotCount();
    const measured = await poll(env, BIG_HEAP);
    const snapshots = (await snapshotCount()) - before;
    return {
      networks,
      bodyBytes: body.length,
      concurrency: CONCURRENCY,
      cycleMs: measured.cycleMs,
      peakRssMb: measured.maxRssMb,
      snapshots,
    };
  } finally {
    await Promise.all([dynamo.close(), api.close()]);
  }
}

/** The Lambda bundle, built as the stack builds it (see lib/constructs/poller-function.ts). */
const LAMBDA_BUNDLE: BuildOptions = {
  entryPoints: [`${ROOT}lambda/handler.ts`],
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  minify: true,
  keepNames: true,
  mainFields: ['module', 'main'],
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
};

/** One cold import: wall time, and the CPU time (user + system) the process spent on it. */
interface ImportRun {
  readonly wallMs: number;
  readonly cpuMs: number;
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Medians of `runs` cold imports of `file`, each in a fresh Node process: wall time, and CPU time from
 * `process.cpuUsage()` around the import (user + system, every thread of the process). CPU time is what a
 * Lambda function's fraction of a vCPU has to get through; wall time here is on this machine's whole cores.
 */
async function coldImport(file: string, runs = 9): Promise<ImportRun> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const script =
      'const c = process.cpuUsage(); const t = performance.now(); ' +
      `await import(${JSON.stringify(file)}); ` +
      'const u = process.cpuUsage(c); ' +
      'console.log(JSON.stringify({ wallMs: performance.now() - t, cpuMs: (u.user + u.system) / 1000 }));';
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    await new Promise((resolve) => child.once('close', resolve));
    const run = JSON.parse(out.trim()) as ImportRun;
    wall.push(run.wallMs);
    cpu.push(run.cpuMs);
  }
  return { wallMs: median(wall), cpuMs: median(cpu) };
}

/** Memory at which a Lambda function gets one full vCPU; below it, a proportional fraction of one. */
const FULL_VCPU_MB = 1769;
/** Memory sizes whose init time is estimated from the CPU time measured. */
const MEMORY_SIZES_MB = [128, 256, 512, 1024, 1769];

async function measureBundle() {
  const bundled = `${OUT}/bundle/index.mjs`;
  // The same modules unbundled: our code in one file, every package imported from node_modules.
  const unbundled = `${ROOT}bench/.unbundled/handler.mjs`;
  await build({ ...LAMBDA_BUNDLE, outfile: bundled });
  await build({ ...LAMBDA_BUNDLE, minify: false, banner: {}, packages: 'external', outfile: unbundled });
  const bundledRun = await coldImport(bundled);
  const unbundledRun = await coldImport(unbundled);
  return {
    bundleBytes: statSync(bundled).size,
    bundledImportMs: bundledRun.wallMs,
    bundledImportCpuMs: bundledRun.cpuMs,
    unbundledImportMs: unbundledRun.wallMs,
    unbundledImportCpuMs: unbundledRun.cpuMs,
    importRatio: bundledRun.wallMs / unbundledRun.wallMs,
    /** Init wall time at each memory size if the CPU time is the bound: cpu × 1769 / memory (at most 1 vCPU). */
    estimatedInitMs: Object.fromEntries(
      MEMORY_SIZES_MB.map((mb) => [mb, bundledRun.cpuMs * Math.max(1, FULL_VCPU_MB / mb)]),
    ),
  };
}

const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

async function main() {
  mkdirSync(OUT, { recursive: true });
  const cycles: CycleFigures[] = [];
  for (const latencyMs of PARTS.has('cycles') ? LATENCIES : []) {
    for (const networks of NETWORKS) {
      for (const rules of CYCLE_RULES.map((r) => (r === 'three' ? BENCH_RULES : ''))) {
        process.stderr.write(
          `measuring ${networks} network(s) at ${latencyMs} ms, ${rules === '' ? 'no rules' : 'three rules'}...\n`,
        );
        cycles.push(await measureCycle(networks, latencyMs, rules));
      }
    }
  }
  const sharded: ShardedCycleFigures[] = [];
  for (const latencyMs of PARTS.has('rules') ? LATENCIES : []) {
    for (const rules of ['', BENCH_RULES]) {
      process.stderr.write(
        `measuring ${RULE_NETWORKS} networks in shards of ${RULE_SHARD_SIZE} at ${latencyMs} ms, ${rules === '' ? 'no rules' : 'three rules'}...\n`,
      );
      sharded.push(
        await measureShardedCycle({
          networks: RULE_NETWORKS,
          latencyMs,
          shardSize: RULE_SHARD_SIZE,
          concurrency: CONCURRENCY,
          rules,
        }),
      );
    }
  }
  let big: BigBodyFigures | undefined;
  if (PARTS.has('big')) {
    process.stderr.write(`measuring ${BIG_NETWORKS} network(s) answering near-cap bodies...\n`);
    big = await measureBigBodies(BIG_NETWORKS);
  }
  let bundle: Awaited<ReturnType<typeof measureBundle>> | undefined;
  if (PARTS.has('bundle')) {
    process.stderr.write('measuring the Lambda bundle...\n');
    bundle = await measureBundle();
  }

  console.log(
    `\nPoll cycle, concurrency ${CONCURRENCY} (the real CLI against the simulator and a counting dynalite)\n`,
  );
  console.log(
    renderTable(
      [
        'networks',
        'rules',
        'latency',
        'requests',
        'cycle',
        'ideal',
        'cost/ideal',
        'sequential',
        'speed-up',
        'in flight',
        'TCP conns',
        'DDB writes (budget)',
        'DDB reads',
        'peak RSS',
      ],
      cycles.map((c) => [
        String(c.networks),
        String(c.rules),
        `${c.latencyMs} ms`,
        String(c.requests),
        fmt(c.cycleMs),
        c.latencyMs > 0 ? fmt(c.idealMs) : '-',
        c.latencyCost === undefined ? '-' : `${c.latencyCost.toFixed(2)}x`,
        `${fmt(c.sequentialMs)}${c.sequentialMeasured ? '' : ' (est.)'}`,
        `${c.speedup.toFixed(1)}x`,
        String(c.maxInFlight),
        String(c.connections),
        `${c.dynamoWrites} (${c.dynamoWriteBudget})`,
        String(c.dynamoReads),
        `${c.peakRssMb.toFixed(0)} MB`,
      ]),
    ),
  );
  if (sharded.length > 0) {
    console.log(
      `\nSharded: every shard's cycle at once (in-process, the Lambda's code path), concurrency ${CONCURRENCY} per shard;\n` +
        `rules: ${BENCH_RULES}\n`,
    );
    console.log(
      renderTable(
        [
          'networks',
          'shards',
          'rules',
          'latency',
          'cycle',
          'ideal',
          'cost/ideal',
          'rule items',
          'DDB writes (budget)',
          'DDB reads',
        ],
        sharded.map((c) => [
          String(c.networks),
          `${c.shards} x ${c.shardSize}`,
          String(c.rules),
          `${c.latencyMs} ms`,
          fmt(c.cycleMs),
          c.latencyMs > 0 ? fmt(c.idealMs) : '-',
          c.latencyCost === undefined ? '-' : `${c.latencyCost.toFixed(2)}x`,
          String(c.ruleItems),
          `${c.dynamoWrites} (${c.dynamoWriteBudget})`,
          String(c.dynamoReads),
        ]),
      ),
    );
  }
  if (big !== undefined) {
    console.log(
      `\nHostile answers: every network answers a ${(big.bodyBytes / 1024).toFixed(0)} KiB body (cap 1 MiB) of empty objects;\n` +
        (BIG_HEAP.length === 0
          ? "the CLI runs with Node's default heap limits\n"
          : `the CLI runs with the heap flags of a 256 MB Lambda function (${BIG_HEAP.join(' ')})\n`),
    );
    console.log(
      renderTable(
        ['networks', 'concurrency', 'cycle', 'snapshots stored', 'peak RSS'],
        [
          [
            String(big.networks),
            String(big.concurrency),
            fmt(big.cycleMs),
            String(big.snapshots),
            `${big.peakRssMb.toFixed(0)} MB`,
          ],
        ],
      ),
    );
  }
  if (bundle !== undefined) {
    console.log('\nLambda bundle (lambda/handler.ts, built as the stack builds it)\n');
    console.log(
      renderTable(
        ['bundle size', 'cold import, bundled (CPU)', 'cold import, unbundled (CPU)', 'ratio'],
        [
          [
            `${(bundle.bundleBytes / 1024).toFixed(0)} KiB`,
            `${fmt(bundle.bundledImportMs)} (${fmt(bundle.bundledImportCpuMs)})`,
            `${fmt(bundle.unbundledImportMs)} (${fmt(bundle.unbundledImportCpuMs)})`,
            `${bundle.importRatio.toFixed(2)}x`,
          ],
        ],
      ),
    );
    console.log(
      `\nInit of the bundle at each memory size, if CPU-bound: CPU time x ${FULL_VCPU_MB} / memory (a function\n` +
        `gets a fraction memory / ${FULL_VCPU_MB} of one vCPU)\n`,
    );
    console.log(
      renderTable(
        MEMORY_SIZES_MB.map((mb) => `${mb} MB`),
        [MEMORY_SIZES_MB.map((mb) => fmt(bundle.estimatedInitMs[mb] ?? 0))],
      ),
    );
  }
  console.log(
    '\nDDB writes: BatchWriteItem, PutItem and UpdateItem requests of the measured cycle, beside the budget\n' +
      'ceil((networks + 1) / 25) + 3 (sharded: plus one per shard that owns rule state). DDB reads: the state\n' +
      'reads (and the rule items). The CLI also sends one DescribeTable per run\n' +
      '(the Lambda does not). Peak RSS is the whole CLI process, TypeScript loader included.',
  );
  const cliStart = PARTS.has('cli') ? await measureCliStart() : undefined;
  if (cliStart !== undefined) printCliStart(cliStart);
  const results = {
    at: new Date().toISOString(),
    node: process.version,
    cpus: (await import('node:os')).cpus().length,
    concurrency: CONCURRENCY,
    cycles,
    sharded,
    ...(big === undefined ? {} : { big }),
    ...(bundle === undefined ? {} : { bundle }),
    ...(cliStart === undefined ? {} : { cliStart }),
  };
  writeFileSync(`${OUT}/bench.json`, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nfigures written to bench/results/bench.json`);
}

await main();
