/**
 * `shieldwatch simulate`: the real command with a fake terminal (and once in its own process, for Ctrl-C).
 * The printed export lines are run through a real shell and then used to poll the simulator.
 */
import { execFileSync, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { simulateCommand } from '../../cli/commands/simulate.ts';
import type { CliIo, Command } from '../../cli/io.ts';
import { startSimulator } from '../../cli/simulator.ts';
import { ProtectionApiClient } from '../../lambda/adapters/protection-api.ts';
import { extractStatus } from '../../lambda/core/status.ts';
import { PROJECT_ROOT } from './helpers.ts';

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
        '1500ms',
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
    // Flapping at 10x: a change every 0.5 s of real time, each printed once.
    const changes = out()
      .split('\n')
      .filter((line) => line.startsWith('['));
    expect(changes.slice(0, 3)).toEqual([
      expect.stringMatching(/^\[ {3}0\.0s \(scenario 0\.\ds\)\] filter status "active"$/),
      '[   0.5s (scenario 5.0s)] filter status "mitigating"  attack: udp_flood x8 on edge-1',
      '[   1.0s (scenario 10.0s)] filter status "active"',
    ]);
    expect(out()).toMatch(/# stopped: duration elapsed after 1\.\ds; 3 request\(s\) on \d connection\(s\)/);
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
    for (const name of Object.keys(simulateCommand.options)) {
      expect(simulateCommand.help).toContain(`--${name}`);
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
