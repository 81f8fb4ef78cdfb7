/**
 * One store, one monitor (issue 32.1), as operators meet it: a real `run` keeps a heartbeat in the store
 * (dynalite on loopback) while it polls the simulator; a `poll` or another `run` with other settings is refused
 * with exit 2 naming what differs and how to go on, and changes nothing; the same settings, `--take-over`, a
 * stopped or killed `run`, and `poll` after `poll` with edited settings all go on as before.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../cli/simulator/server.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { cliTestTimeout, describeRun, PROJECT_ROOT, runCli } from './helpers.ts';

const ENTRY = `${PROJECT_ROOT}bin/shieldwatch.mjs`;
const RULES = 'pps: traffic.in.pps > 300k for 2';

/** A `run` in its own process, watched while it runs. */
function startRun(args: readonly string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [ENTRY, 'run', ...args], {
    cwd: PROJECT_ROOT,
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
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    child,
    out,
    async cycles(n: number): Promise<void> {
      const started = Date.now();
      while ((out.stdout.match(/^\d\d:\d\d:\d\d {2}filter/gm) ?? []).length < n) {
        if (child.exitCode !== null || Date.now() - started > cliTestTimeout(1 + n)) {
          throw new Error(`run ended or took too long before cycle ${n}:\n${out.stdout}\n${out.stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    exited,
  };
}

describe('one store, one monitor', () => {
  let sim: Simulator;
  let dynamo: LocalDynamo;
  let env: Record<string, string>;
  const runs: ReturnType<typeof startRun>[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'steady' });
    dynamo = await startDynamo();
    env = {
      ...sim.env,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_RULES: RULES,
    };
  });
  afterEach(async () => {
    for (const run of runs.splice(0)) {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
      await run.exited;
    }
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), dynamo?.close()]);
  });

  const heartbeat = async () =>
    (
      await DynamoDBDocumentClient.from(dynamo.client).send(
        new GetCommand({
          TableName: dynamo.table,
          Key: { pk: 'state', sk: 'heartbeat' },
          ConsistentRead: true,
        }),
      )
    ).Item;

  it(
    'while a run is live: poll with other settings (rules, key) is refused naming them; the same settings and --take-over go on',
    async () => {
      const run = startRun(['--every', '1s'], env);
      runs.push(run);
      await run.cycles(1);

      // The heartbeat names its run and holds no value.
      const item = await heartbeat();
      expect(item?.['owner']).toMatchObject({ kind: 'run', pid: run.child.pid });
      const stored = JSON.stringify(item);
      for (const value of ['demo-key', 'traffic.in.pps', '127.0.0.1', 'edge-1'])
        expect(stored).not.toContain(value);

      const noRules = await runCli(['poll'], { ...env, SHIELDWATCH_RULES: '' });
      expect(noRules.code, describeRun(noRules)).toBe(2);
      expect(noRules.stdout).toBe('');
      expect(noRules.stderr).toContain('shieldwatch poll: refused: another monitor is live on this store');
      expect(noRules.stderr).toMatch(
        new RegExp(`live monitor {2}run \\(pid ${run.child.pid} on .+, every 1s\\)`),
      );
      expect(noRules.stderr).toContain('differs       SHIELDWATCH_RULES (compared by keyed hashes');
      expect(noRules.stderr).toContain(`SHIELDWATCH_TABLE=shieldwatch-trial npx shieldwatch poll`);
      expect(noRules.stderr).toContain('npx shieldwatch poll --take-over');

      const wrongKey = await runCli(['poll'], { ...env, SHIELDWATCH_API_KEY: 'not-the-key' });
      expect(wrongKey.code, describeRun(wrongKey)).toBe(2);
      expect(wrongKey.stderr).toContain('differs       the API key (SHIELDWATCH_API_KEY or the secret of');
      expect(wrongKey.stderr).not.toContain('not-the-key');

      const same = await runCli(['poll'], env);
      expect(same.code, describeRun(same)).toBe(0);
      const takeOver = await runCli(['poll', '--take-over'], { ...env, SHIELDWATCH_RULES: '' });
      expect(takeOver.code, describeRun(takeOver)).toBe(0);
      expect(takeOver.stdout).toMatch(/^cycle /);

      const secondRun = await runCli(['run', '--every', '1s', '--cycles', '1'], {
        ...env,
        SHIELDWATCH_EXPECTED_STATUS: 'active',
      });
      expect(secondRun.code, describeRun(secondRun)).toBe(2);
      expect(secondRun.stderr).toContain('shieldwatch run: refused');
      expect(secondRun.stderr).toContain('differs       SHIELDWATCH_EXPECTED_STATUS');
      expect(secondRun.stdout).not.toMatch(/filter "active"/);
    },
    cliTestTimeout(7, 3_000),
  );

  it(
    'a run stopped with Ctrl-C removes its heartbeat: poll with the edited settings goes on at once',
    async () => {
      const run = startRun(['--every', '1s'], env);
      runs.push(run);
      await run.cycles(1);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      expect(await heartbeat()).toBeUndefined();

      const edited = await runCli(['poll'], {
        ...env,
        SHIELDWATCH_RULES: 'pps: traffic.in.pps > 400k for 2',
      });
      expect(edited.code, describeRun(edited)).toBe(0);
    },
    cliTestTimeout(3, 3_000),
  );

  it(
    'a run killed on this machine leaves a heartbeat that no longer counts: its process is gone',
    async () => {
      const run = startRun(['--every', '1s'], env);
      runs.push(run);
      await run.cycles(1);
      run.child.kill('SIGKILL');
      await run.exited;
      expect(await heartbeat()).toBeDefined();

      const edited = await runCli(['poll'], { ...env, SHIELDWATCH_RULES: '' });
      expect(edited.code, describeRun(edited)).toBe(0);
    },
    cliTestTimeout(3, 3_000),
  );

  it(
    'poll after poll with edited settings, nothing else running: each applies its own (poll keeps no heartbeat)',
    async () => {
      const first = await runCli(['poll'], { ...env, SHIELDWATCH_RULES: 'a: traffic.in.pps > 1M' });
      const second = await runCli(['poll'], { ...env, SHIELDWATCH_RULES: 'b: traffic.in.pps > 2M' });
      expect(first.code, describeRun(first)).toBe(0);
      expect(second.code, describeRun(second)).toBe(0);
    },
    cliTestTimeout(2),
  );

  it(
    'a run --take-over with other settings ends the live run: it stops with exit 2, saying so',
    async () => {
      const first = startRun(['--every', '1s'], env);
      runs.push(first);
      await first.cycles(1);
      const second = startRun(['--every', '1s', '--take-over'], { ...env, SHIELDWATCH_RULES: '' });
      runs.push(second);
      await second.cycles(1);
      expect(await first.exited).toBe(2);
      expect(first.out.stderr).toContain('shieldwatch run: stopped: another monitor went live on this store');
      expect(first.out.stderr).toContain('differs       SHIELDWATCH_RULES');
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
    },
    cliTestTimeout(4, 4_000),
  );
});
