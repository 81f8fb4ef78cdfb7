/**
 * `shieldwatch simulate`: the real command with a fake terminal (and once in its own process, for Ctrl-C).
 * The printed export lines are run through a real shell and then used to poll the simulator.
 */
import { execFileSync, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { simulateCommand } from '../../cli/commands/simulate.ts';
import { commandHelp } from '../../cli/help.ts';
import type { CliIo, Command } from '../../cli/io.ts';
import { startSimulator } from '../../cli/simulator/server.ts';
import { keyAction } from '../../cli/simulator/terminal.ts';
import { ProtectionApiClient } from '../../lambda/adapters/protection-api.ts';
import { extractStatus } from '../../lambda/core/detect/status.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { describeRun, PROJECT_ROOT, runCli } from './helpers.ts';

const ENTRY = fileURLToPath(new URL('../../bin/shieldwatch.mjs', import.meta.url));

/** `shieldwatch simulate ARGS` in its own process, as a user starts it in a terminal. */
async function simulateProcess(args: readonly string[]) {
  const child = spawn(process.execPath, [ENTRY, 'simulate', '--port', '0', ...args], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      SHIELDWATCH_ENV_FILE: '/dev/null',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
  });
  await expect.poll(() => stdout, { timeout: 10_000 }).toMatch(/status changes follow/);
  return {
    output: () => stdout,
    /** The settings its export lines set, as a shell would. */
    settings: exportedSettings(stdout),
    port: /^export SHIELDWATCH_API_URL=http:\/\/127\.0\.0\.1:(\d+)$/m.exec(stdout)![1]!,
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

/** The store settings of a dynalite table, for poll and run. */
function storeEnv(dynamo: LocalDynamo): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    SHIELDWATCH_TABLE: dynamo.table,
  };
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** A terminal that keeps what was written. */
function fakeIo() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const io: CliIo = { stdout, stderr, env: {}, now: Date.now };
  return { io, out: () => out, err: () => err };
}

/** Parses arguments as `cli/main.ts` does, then runs the command. */
function runSimulate(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: simulateCommand.options, strict: true });
  return simulateCommand.run(values as Parameters<Command['run']>[0], io);
}

/** The `export NAME=value` lines, evaluated by a real POSIX shell. */
function exportedSettings(output: string): Record<string, string> {
  const lines = output.split('\n').filter((line) => line.startsWith('export '));
  const names = lines.map((line) => /^export ([A-Z_]+)=/.exec(line)![1]!);
  const script = `${lines.join('\n')}\n${names.map((name) => `printf '%s\\0' "$${name}"`).join('\n')}`;
  const values = execFileSync('sh', ['-c', script], { encoding: 'utf8', env: {} }).split('\0');
  return Object.fromEntries(names.map((name, i) => [name, values[i]!]));
}

describe('shieldwatch simulate', () => {
  it('prints settings that work when pasted, follows the scenario, and stops after --duration', async () => {
    // Prepare
    const { io, out, err } = fakeIo();
    const started = Date.now();

    // Act
    const exit = runSimulate(
      [
        '--port',
        '0',
        '--duration',
        '2000ms',
        '--shape',
        'nested',
        '--scenario',
        'flapping',
        '--speed',
        '10',
        '--networks',
        'edge-1,a/b',
        '--key',
        "it's-$ecret",
      ],
      io,
    );
    await expect.poll(() => out(), { timeout: 3_000 }).toMatch(/status changes follow/);
    const settings = exportedSettings(out());
    const api = new ProtectionApiClient({
      baseUrl: settings['SHIELDWATCH_API_URL']!,
      apiKey: async () => settings['SHIELDWATCH_API_KEY']!,
      timeoutMs: 2_000,
      maxBodyBytes: 1024 * 1024,
      concurrency: 2,
      retries: 0,
    });
    cleanups.push(() => api.close());
    const filter = await api.getFilterStatus();
    const networks = await Promise.all(
      settings['SHIELDWATCH_NETWORKS']!.split(',').map((id) => api.getNetworkRealtime(id)),
    );
    const code = await exit;
    const afterStop = await api.getUser();

    // Assess
    expect(code, err()).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(settings).toEqual({
      SHIELDWATCH_API_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      SHIELDWATCH_API_KEY: "it's-$ecret",
      SHIELDWATCH_NETWORKS: 'edge-1,a/b',
      SHIELDWATCH_STATUS_PATH: 'data.filter.state',
    });
    expect(extractStatus(filter.json, settings['SHIELDWATCH_STATUS_PATH'])).toMatchObject({
      ok: true,
      status: 'active',
    });
    expect(networks.map((response) => (response.json as { networkId: string }).networkId)).toEqual([
      'edge-1',
      'a/b',
    ]);
    // Flapping at 10x, from the first request: 0.7 s active, 0.6 s mitigating, each change printed once.
    const changes = out()
      .split('\n')
      .filter((line) => line.startsWith('['));
    expect(changes.slice(0, 3)).toEqual([
      '[   0.0s (scenario 0.0s)] filter status "active"',
      '[   0.7s (scenario 7.0s)] filter status "mitigating"  attack: udp_flood x8 on edge-1',
      '[   1.3s (scenario 13.0s)] filter status "active"',
    ]);
    expect(out()).toMatch(/# stopped: duration elapsed after 2\.\ds; 3 request\(s\) on \d connection\(s\)/);
    expect(afterStop).toMatchObject({ ok: false, errorKind: 'transport' });
    expect(err()).toBe('');
  });

  it('lists every bad option and exits 2 without listening', async () => {
    const { io, out, err } = fakeIo();
    const code = await runSimulate(
      [
        '--error-rate',
        '2',
        '--shape',
        'xml',
        '--port',
        '70000',
        '--duration',
        'forever',
        '--speed',
        '0',
        '--seed=-1',
      ],
      io,
    );
    expect(code).toBe(2);
    expect(out()).toBe('');
    expect(err()).toContain('--error-rate must be a share from 0 to 1, e.g. 0.1 (got "2")');
    expect(err()).toContain('--shape must be one of flat, nested, envelope, numeric, boolean (got "xml")');
    expect(err()).toContain('--port must be a whole number from 0 to 65535 (got "70000")');
    expect(err()).toMatch(/--duration must be a duration like 30s, 5m or 1h/);
    expect(err()).toContain('--speed must be a number above 0');
    expect(err()).toContain('--seed must be a whole number');
    expect(err()).toContain('Run `shieldwatch simulate --help`.');
  });

  it('exits 1 with a hint when the port is taken', async () => {
    const taken = await startSimulator();
    cleanups.push(() => taken.close());
    const { io, err } = fakeIo();
    const code = await runSimulate(['--port', String(taken.port), '--duration', '1s'], io);
    expect(code).toBe(1);
    expect(err()).toMatch(/the port is already in use \(choose another with --port/);
  });

  it('documents every option in --help', () => {
    const help = commandHelp(simulateCommand, false);
    for (const name of Object.keys(simulateCommand.options)) {
      expect(help).toContain(`--${name}`);
    }
  });

  it('closes cleanly and exits 0 on Ctrl-C (SIGINT)', async () => {
    // Prepare: the command in its own process, as `bin/shieldwatch.mjs` would run it.
    const script = [
      "import { parseArgs } from 'node:util';",
      "import { simulateCommand } from './cli/commands/simulate.ts';",
      'const { values } = parseArgs({ args: process.argv.slice(1), options: simulateCommand.options, strict: true });',
      'process.exitCode = await simulateCommand.run(values, { stdout: process.stdout, stderr: process.stderr, env: process.env, now: Date.now });',
    ].join('\n');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, '--', '--port', '0', '--hang-rate', '1'],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    await expect.poll(() => stdout, { timeout: 8_000 }).toMatch(/status changes follow/);
    const url = /^export SHIELDWATCH_API_URL=(\S+)$/m.exec(stdout)![1]!;
    // A request that never gets an answer must not hold the shutdown up.
    const hanging = fetch(`${url}/api/user`, { headers: { authorization: 'Bearer demo-key' } }).catch(
      () => 'dropped',
    );

    // Act
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sent = Date.now();
    child.kill('SIGINT');
    const code = await exited;

    // Assess
    expect(code, stderr).toBe(0);
    expect(Date.now() - sent).toBeLessThan(2_000);
    expect(stdout).toMatch(/# stopped: interrupted \(SIGINT\) after/);
    expect(await hanging).toBe('dropped');
  });
});

describe('a status change on demand and the quick start, all through the real CLI', () => {
  it('simulate --set-status holds a status on the running simulator: the next poll alerts; --resume gives it back', async () => {
    // Prepare
    const sim = await simulateProcess(['--scenario', 'steady', '--key', 'sim-key-1']);
    const dynamo = await startDynamo();
    cleanups.push(() => dynamo.close());
    const env = { ...storeEnv(dynamo), ...sim.settings };
    const control = (...args: string[]) =>
      runCli(['simulate', ...args, '--port', sim.port, '--key', 'sim-key-1']);
    const baseline = await runCli(['poll'], env);

    // Act
    const set = await control('--set-status', 'mitigating');
    const changed = await runCli(['poll'], env);
    const resumed = await control('--resume');
    const back = await runCli(['poll'], env);
    const code = await sim.stop();

    // Assess
    expect(baseline.code, describeRun(baseline)).toBe(0);
    expect(baseline.stdout).not.toMatch(/ALERT/);
    expect(set.code, describeRun(set)).toBe(0);
    expect(set.stdout).toContain(
      `simulator on 127.0.0.1:${sim.port} now serves filter status "mitigating", held until --resume`,
    );
    expect(changed.stdout).toMatch(/ALERT filter\.status_changed: .*active.*mitigating/);
    expect(resumed.code, describeRun(resumed)).toBe(0);
    expect(resumed.stdout).toContain('follows its scenario again: filter status "active"');
    expect(back.stdout).toMatch(/ALERT filter\.status_changed: .*mitigating.*active/);
    expect(sim.output()).toMatch(/\] filter status "mitigating" {2}\(held by hand; --resume or key r/);
    expect(code).toBe(0);
  });

  it.each([
    {
      name: 'the wrong key',
      args: (port: string) => ['--set-status', 'x', '--port', port, '--key', 'not-it'],
      code: 1,
      says: /refused the key: give the --key it was started with/,
    },
    {
      name: 'no simulator on the port',
      args: () => ['--resume', '--port', '1'],
      code: 1,
      says: /no simulator answers on 127\.0\.0\.1:1: start one with `shieldwatch simulate`/,
    },
    {
      name: 'options of a new simulator',
      args: (port: string) => ['--set-status', 'x', '--port', port, '--shape', 'nested', '--speed', '2'],
      code: 2,
      says: /only --port and --key go with it \(not --shape, --speed\)/,
    },
    {
      name: 'both --set-status and --resume',
      args: (port: string) => ['--set-status', 'x', '--resume', '--port', port],
      code: 2,
      says: /give either --set-status or --resume, not both/,
    },
  ])('--set-status / --resume with $name: exit $code, says why', async ({ args, code, says }) => {
    // Prepare
    const sim = await simulateProcess(['--scenario', 'steady', '--key', 'sim-key-2']);

    // Act
    const run = await runCli(['simulate', ...args(sim.port)]);

    // Assess
    expect(run.code, describeRun(run)).toBe(code);
    expect(run.stderr).toMatch(says);
    expect(sim.output()).not.toMatch(/held by hand/);
  });

  it("the README's quick start: simulate, paste the exports a few seconds later, run --every 5s: an alert within a minute", async () => {
    // Prepare
    const sim = await simulateProcess([]);
    const dynamo = await startDynamo();
    cleanups.push(() => dynamo.close());
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // pasting the export lines

    // Act
    const run = await runCli(['run', '--every', '5s', '--cycles', '3'], {
      ...storeEnv(dynamo),
      ...sim.settings,
    });

    // Assess
    expect(sim.output()).toContain('then run: npx shieldwatch run --every 5s');
    expect(sim.output()).toMatch(/npx shieldwatch simulate --port \d+ --set-status mitigating/);
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(/ALERT filter\.status_changed: .*active.*mitigating/);
    expect(run.ms).toBeLessThan(60_000);
  }, 60_000);
});

describe('keys in the simulator terminal', () => {
  it.each([
    { key: 'a', current: 'mitigating', action: { kind: 'hold', status: 'active' } },
    { key: 'm', current: 'active', action: { kind: 'hold', status: 'mitigating' } },
    { key: ' ', current: 'active', action: { kind: 'hold', status: 'mitigating' } },
    { key: ' ', current: 'mitigating', action: { kind: 'hold', status: 'active' } },
    { key: '\r', current: 'maintenance', action: { kind: 'hold', status: 'active' } },
    { key: 'r', current: 'active', action: { kind: 'release' } },
    { key: 'q', current: 'active', action: { kind: 'quit' } },
    { key: '\u0003', current: 'active', action: { kind: 'quit' } },
    { key: 'x', current: 'active', action: { kind: 'none' } },
  ] as const)('$key with $current served: $action.kind', ({ key, current, action }) => {
    expect(keyAction(key, current)).toEqual(action);
  });
});
