/**
 * A command whose output is closed by its reader (`shieldwatch check | head -2`) stops quietly: no stack
 * trace, no "EPIPE", and a command that would go on (`run`, `simulate`) ends by itself. Each case is a real
 * shell pipeline (`bash -c 'node bin/shieldwatch.mjs ... | head -N'`) against the simulator on loopback; the
 * simulator answers slowly (latency) so the command still writes after `head` has gone.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../cli/simulator/server.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { CLI_PROCESS_BUDGET_MS, cliTestTimeout } from './helpers.ts';

const ENTRY = fileURLToPath(new URL('../../bin/shieldwatch.mjs', import.meta.url));

interface Pipeline {
  /** What `head` passed on. */
  readonly stdout: string;
  /** The command's stderr (and the shell's). */
  readonly stderr: string;
  /** The command's own exit code (`PIPESTATUS[0]`), or undefined when the pipeline was killed. */
  readonly code: number | undefined;
  readonly ms: number;
}

/** `node bin/shieldwatch.mjs ARGS | head -LINES` in bash, with only `env` (plus PATH and HOME). */
function pipeline(
  args: readonly string[],
  lines: number,
  env: Readonly<Record<string, string>>,
  cwd: string,
  timeoutMs: number,
  onOutput: (stdout: string) => void = () => {},
): Promise<Pipeline> {
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const script = `"$NODE" "$ENTRY" ${quoted} | head -n ${lines}; echo "exit=\${PIPESTATUS[0]}" >&2`;
  const started = Date.now();
  const child = spawn('bash', ['-c', script], {
    cwd,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: process.env['HOME'] ?? '/tmp',
      SHIELDWATCH_ENV_FILE: '/dev/null',
      NODE: process.execPath,
      ENTRY,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    onOutput(stdout);
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('close', () => {
      clearTimeout(timer);
      const match = /exit=(\d+)\n$/.exec(stderr);
      resolve({
        stdout,
        stderr: match === null ? stderr : stderr.slice(0, match.index),
        code: match === null ? undefined : Number(match[1]),
        ms: Date.now() - started,
      });
    });
  });
}

function describePipeline(p: Pipeline): string {
  return `exit ${p.code} after ${p.ms} ms\n--- stdout\n${p.stdout}--- stderr\n${p.stderr}`;
}

describe('a command whose output is closed stops quietly', () => {
  let sim: Simulator;
  let dynamo: LocalDynamo;
  let dir: string;
  let apiEnv: Record<string, string>;
  let storeEnv: Record<string, string>;

  beforeAll(async () => {
    sim = await startSimulator({ faults: { latencyMs: 300 } });
    dynamo = await startDynamo();
    dir = mkdtempSync(path.join(tmpdir(), 'shieldwatch-closed-'));
    apiEnv = { ...sim.env };
    storeEnv = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      SHIELDWATCH_TABLE: dynamo.table,
    };
  });

  afterAll(async () => {
    await Promise.all([sim?.close(), dynamo?.close()]);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'check | head -2: two lines, nothing on stderr, its own exit code (ready)',
    async () => {
      const p = await pipeline(['check'], 2, apiEnv, dir, CLI_PROCESS_BUDGET_MS * 2);
      expect(p.stdout.split('\n').filter(Boolean), describePipeline(p)).toHaveLength(2);
      expect(p.stderr, describePipeline(p)).toBe('');
      expect(p.code, describePipeline(p)).toBe(0);
    },
    cliTestTimeout(2),
  );

  // `head -n 0` goes before reading anything: the command's first write finds the pipe closed.
  it.each(['poll', 'status', 'events', 'history --filter', 'incidents', 'uptime', '--help'])(
    '%s | head -n 0: nothing on stderr, its own exit code (0)',
    async (command) => {
      const p = await pipeline(
        command.split(' '),
        0,
        { ...apiEnv, ...storeEnv },
        dir,
        CLI_PROCESS_BUDGET_MS * 2,
      );
      expect(p.stdout, describePipeline(p)).toBe('');
      expect(p.stderr, describePipeline(p)).toBe('');
      expect(p.code, describePipeline(p)).toBe(0);
    },
    cliTestTimeout(2),
  );

  it(
    'run --every 1s | head -2: stops by itself after the cycle in flight, quietly, exit 0',
    async () => {
      const p = await pipeline(
        ['run', '--every', '1s'],
        2,
        { ...apiEnv, ...storeEnv },
        dir,
        CLI_PROCESS_BUDGET_MS * 3,
      );
      expect(p.code, describePipeline(p)).toBe(0);
      expect(p.stdout.split('\n').filter(Boolean), describePipeline(p)).toHaveLength(2);
      expect(p.stderr, describePipeline(p)).toBe('');
    },
    cliTestTimeout(3),
  );

  it(
    'simulate | head -4: stops at its next line (a status held from its control), quietly, exit 0',
    async () => {
      let held: Promise<unknown> | undefined;
      const p = await pipeline(['simulate', '--port', '0'], 4, {}, dir, CLI_PROCESS_BUDGET_MS * 3, (out) => {
        // The fourth line is the URL's export line: head has passed it on and gone. The simulator's next lines
        // usually follow at once; should they all reach the pipe before head goes, holding a status makes it
        // print one more, into the closed pipe (refused once it has stopped).
        const url = /export SHIELDWATCH_API_URL=(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
        if (url === undefined || held !== undefined) return;
        held = new Promise((r) => setTimeout(r, 300)).then(() =>
          fetch(`${url}/simulator/status`, {
            method: 'POST',
            headers: { authorization: 'Bearer demo-key', 'content-type': 'application/json' },
            body: JSON.stringify({ status: 'maintenance' }),
          }).catch(() => undefined),
        );
      });
      expect(held, describePipeline(p)).toBeDefined();
      await held;
      expect(p.stderr, describePipeline(p)).toBe('');
      expect(p.code, describePipeline(p)).toBe(0);
    },
    cliTestTimeout(3),
  );
});
