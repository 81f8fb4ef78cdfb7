/**
 * `run` keeps monitoring (issue 15.5, 13.10): a real `run` against the embedded store survives its server being
 * killed between cycles and an interval longer than the server's idle time; and 20 cycles leave no listener
 * behind on the stop signal.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { monitor } from '../../cli/commands/run.ts';
import type { CliIo } from '../../cli/io.ts';
import { openMonitor } from '../../cli/monitor.ts';
import { stopEmbeddedStore } from '../../cli/store/embedded.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import {
  cliTestTimeout,
  describeRun,
  PROJECT_ROOT,
  parseJsonOutput,
  runCli,
  startWorld,
  type World,
} from './helpers.ts';

const ENTRY = path.join(PROJECT_ROOT, 'bin', 'shieldwatch.mjs');
const CYCLE_LINE = /^\d\d:\d\d:\d\d {2}filter "on"/gm;

/** A `run` in its own process, whose output can be watched while it runs. */
function startRun(args: readonly string[], env: Record<string, string>, cwd: string) {
  const child: ChildProcess = spawn(process.execPath, [ENTRY, 'run', ...args], {
    cwd,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: process.env['HOME'] ?? '/tmp',
      SHIELDWATCH_ENV_FILE: '/dev/null',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out.stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    out.stderr += chunk;
  });
  const started = Date.now();
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    out,
    /**
     * Resolves once `n` cycle lines have been printed; fails when `run` has ended, or has taken longer than its
     * start and `n` cycles may on a busy machine (a CLI process's budget each, at least 30 s: helpers.ts).
     */
    async cycles(n: number): Promise<void> {
      while ((out.stdout.match(CYCLE_LINE) ?? []).length < n) {
        if (child.exitCode !== null || Date.now() - started > cliTestTimeout(1 + n)) {
          throw new Error(`run ended or took too long before cycle ${n}:\n${out.stdout}\n${out.stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async end() {
      const code = await exited;
      return { code, ...out, ms: Date.now() - started, timedOut: false };
    },
  };
}

describe('run on the embedded store keeps monitoring', () => {
  let dir: string;
  let api: FakeApi;
  let env: Record<string, string>;

  beforeAll(async () => {
    api = await startFakeApi();
    api.filter = () => ({ body: { status: 'on' } });
  });
  afterAll(async () => api?.close());
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'shieldwatch-run-'));
    env = { SHIELDWATCH_API_URL: api.url, SHIELDWATCH_API_KEY: api.key };
  });
  afterEach(async () => {
    await stopEmbeddedStore(path.join(dir, '.shieldwatch'));
    await rm(dir, { recursive: true, force: true });
  });

  const storePid = async () =>
    (JSON.parse(await readFile(path.join(dir, '.shieldwatch', 'store.json'), 'utf8')) as { pid: number }).pid;

  it(
    'restarts the store server killed between cycles and stores every cycle',
    async () => {
      // Prepare
      const run = startRun(['--every', '1s', '--cycles', '4'], env, dir);
      await run.cycles(2);
      const killed = await storePid();

      // Act: right after a cycle, so the next one is a second away.
      process.kill(killed, 'SIGKILL');
      const result = await run.end();
      const history = await runCli(['history', '--filter', '--format', 'json'], {}, { cwd: dir });

      // Assess
      expect(result.code, describeRun(result)).toBe(0);
      expect(result.stdout.match(CYCLE_LINE)).toHaveLength(4);
      expect(result.stdout).toContain('stopped after 4 cycle(s)');
      expect(result.stderr).not.toContain('could not run');
      expect(await storePid()).not.toBe(killed);
      expect(parseJsonOutput<Array<{ status?: string }>>(history).map((e) => e.status)).toEqual([
        'on',
        'on',
        'on',
        'on',
      ]);
    },
    cliTestTimeout(2 + 4, 4_000),
  );

  it(
    'keeps the store server alive when the interval is longer than its idle time',
    async () => {
      // Prepare: the server would stop after 300 ms without requests; cycles are 1 s apart.
      const run = startRun(
        ['--every', '1s', '--cycles', '3'],
        { ...env, SHIELDWATCH_STORE_IDLE_MS: '300' },
        dir,
      );
      await run.cycles(1);
      const first = await storePid();

      // Act
      await run.cycles(3);
      const last = await storePid();
      const result = await run.end();

      // Assess: one server all along, every cycle ran.
      expect(result.code, describeRun(result)).toBe(0);
      expect(result.stdout.match(CYCLE_LINE)).toHaveLength(3);
      expect(result.stderr).not.toContain('could not run');
      expect(last).toBe(first);
    },
    cliTestTimeout(1 + 3, 3_000),
  );

  it(
    'logs a cycle that could not run, goes on, and exits 1 at the end',
    async () => {
      // Prepare: a store directory the server cannot open (a file where its data must go), fixed after cycle 1.
      const run = startRun(['--every', '1s', '--cycles', '3'], env, dir);
      await run.cycles(1);
      const data = path.join(dir, '.shieldwatch', 'data');
      process.kill(await storePid(), 'SIGKILL');
      await rename(data, `${data}.away`);
      await writeFile(data, 'not a directory');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await rm(data);
      await rename(`${data}.away`, data);

      // Act
      const result = await run.end();

      // Assess
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stderr).toMatch(/cycle could not run .*embedded DynamoDB store/);
      expect(result.stdout.match(CYCLE_LINE)).toHaveLength(2);
      expect(result.stdout).toContain('stopped after 3 cycle(s), 1 of them could not run');
    },
    cliTestTimeout(1 + 3, 3_000 + 1_500),
  );
});

describe('run over many cycles', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => world?.close());

  it('runs 20 cycles without leaking listeners on its stop signal', async () => {
    // Prepare
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const sink = { write: () => true } as unknown as NodeJS.WritableStream;
    const lines: string[] = [];
    const stdout = {
      write: (text: string) => lines.push(text) > 0,
    } as unknown as NodeJS.WritableStream;
    // In this process the SDK reads its endpoints and credentials from process.env, as the CLI's would.
    const saved = { ...process.env };
    Object.assign(process.env, world.env);
    const io: CliIo = { stdout, stderr: sink, env: world.env, now: Date.now };
    const opened = await openMonitor(io, loadConfig(world.env), false);
    const stopping = new AbortController();
    const cutting = new AbortController();

    // Act
    const result = await monitor(opened, io, {
      everyMs: 10,
      maxCycles: 20,
      cycleTimeoutMs: 5000,
      stopping: stopping.signal,
      cutting: cutting.signal,
    }).finally(async () => {
      await opened.close();
      for (const name of Object.keys(world.env)) delete process.env[name];
      Object.assign(process.env, saved);
    });
    // Node reports the warning on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);

    // Assess
    expect(result).toEqual({ cycles: 20, failed: 0 });
    expect(lines).toHaveLength(20);
    expect(warnings.filter((w) => w.includes('MaxListenersExceeded'))).toEqual([]);
  });
});
