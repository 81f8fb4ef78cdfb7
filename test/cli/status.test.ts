/**
 * `shieldwatch status` through the real CLI: a few real poll cycles (loopback API, dynalite, a fake SNS that
 * fails on demand) put a status, a pending alert and an open incident in the store; `status` then reads them
 * with the store settings only, as a table (labels, colour only on a terminal, NO_COLOR respected) and as JSON.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../cli/commands/status.ts';
import { describeRun, PROJECT_ROOT, parseJsonOutput, runCli, startWorld, type World } from './helpers.ts';

/** util-linux `script`, which runs a command on a pseudo-terminal: the only way here to be a TTY. */
const hasScript = spawnSync('script', ['--version']).status === 0;

/** `shieldwatch status` on a pseudo-terminal; all it printed. */
function statusOnTerminal(env: Record<string, string>): Promise<string> {
  const child = spawn('script', ['-qec', 'node bin/shieldwatch.mjs status', '/dev/null'], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: '/tmp',
      SHIELDWATCH_ENV_FILE: '/dev/null',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => {
    child.once('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

const GREEN = '\u001b[32m';
const RED = '\u001b[31m';

describe('shieldwatch status, run for real', () => {
  let world: World;
  let filterStatus = 'active';
  let apiDown = false;
  /** What `status` needs: the store settings, the expected status and the networks. Nothing of the API. */
  let statusEnv: Record<string, string>;

  const poll = async () => {
    const run = await runCli(['poll'], world.env);
    expect(run.code, describeRun(run)).toBe(0);
  };

  beforeAll(async () => {
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
        SHIELDWATCH_ALERT_AFTER: '1',
        SHIELDWATCH_RETRIES: '0',
        SHIELDWATCH_EXPECTED_STATUS: 'active',
      },
      api: {
        filter: () => (apiDown ? { status: 503 } : { body: { status: filterStatus } }),
        network: (id) =>
          apiDown ? { status: 503 } : { body: { traffic: { in: { pps: id === 'edge-1' ? 1200 : 3400 } } } },
      },
    });
    statusEnv = {
      ...world.storeEnv,
      SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
      SHIELDWATCH_EXPECTED_STATUS: 'active',
    };
  });
  afterAll(async () => {
    await world.close();
  });

  it('before any cycle: nothing confirmed, nothing pending, exit 0', async () => {
    // Act
    const run = await runCli(['status'], statusEnv);

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toContain('filter status  (none confirmed yet');
    // The monitor has recorded no network yet: this terminal's SHIELDWATCH_NETWORKS are not shown instead.
    expect(run.stdout).toContain(
      'networks       none recorded yet: no cycle of this version of the monitor has been applied to this store',
    );
    expect(run.stdout).not.toContain('edge-1');
    expect(run.stdout).toContain('pending alerts none (every outbox is empty)');
  });

  it('at the expected status: labelled (expected), the networks with their figures and age', async () => {
    // Prepare
    await poll();

    // Act
    const run = await runCli(['status'], statusEnv);

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(
      /^filter status {2}"active" \(expected\) {2}since \d{4}-\d\d-\d\dT[\d:.]+Z \(for \d+s\)$/m,
    );
    expect(run.stdout).toMatch(/last seen {4}\d+s ago, .*: ok "active" \(HTTP 200, \d+ ms\)/);
    expect(run.stdout).toMatch(/edge-1\s+\d+s ago\s+ok\s+traffic\.in\.pps=1200/);
    expect(run.stdout).toMatch(/edge-2\s+\d+s ago\s+ok\s+traffic\.in\.pps=3400/);
    expect(run.stdout).toContain('incidents      none open');
    expect(run.stdout).not.toContain('\u001b[');
  });

  it('away from it, with the alert stuck in the outbox and the API down: AWAY, the pending alerts, the open incident', async () => {
    // Prepare: SNS refuses, the status changes; then every request fails (one cycle opens the incident).
    world.sns.mode = 'invalid-parameter';
    filterStatus = 'mitigating';
    await poll();
    apiDown = true;
    await poll();

    // Act
    const text = await runCli(['status'], statusEnv);
    const json = await runCli(['status', '--format', 'json'], statusEnv);

    // Assess
    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stdout).toMatch(/^filter status {2}"mitigating" \(AWAY from expected "active"\) {2}since /m);
    expect(text.stdout).toMatch(/last seen .*FAIL server error \(HTTP 503\) \(\d+ ms\)$/m);
    expect(text.stdout).toMatch(/edge-1\s+\d+s ago\s+FAIL\s+/);
    expect(text.stdout).toMatch(/unreachable\s+OPEN\s+since \d{4}-.*Z \(for \d+s\)\s+1\s+/);
    expect(text.stdout).toMatch(/pending alerts 2 \(in the outbox, sent by the next cycle\): monitor 2$/m);
    expect(text.stdout).toMatch(
      /filter\.status_changed\s+\S+\s+"active" -> "mitigating"\s+[1-9]\d*\s+InvalidParameter/,
    );
    expect(text.stdout).toMatch(/api\.unreachable\s+\S+\s+-\s+\d+/);

    expect(json.code, describeRun(json)).toBe(0);
    const report = parseJsonOutput<StatusReport>(json);
    expect(report.filter).toMatchObject({
      status: 'mitigating',
      expected: 'active',
      standing: 'away',
      candidate: null,
      last: { ok: false, httpStatus: 503 },
    });
    expect(Date.parse(report.filter.since ?? '')).toBeLessThanOrEqual(Date.parse(report.at));
    expect(report.networks.map((n) => [n.id, n.last?.ok])).toEqual([
      ['edge-1', false],
      ['edge-2', false],
    ]);
    expect(report.incidents).toEqual([
      expect.objectContaining({ kind: 'unreachable', open: true, cycles: 1 }),
    ]);
    expect(report.pending.map((p) => [p.event, p.from, p.to])).toEqual([
      ['filter.status_changed', 'active', 'mitigating'],
      ['api.unreachable', null, null],
    ]);
    expect(report.pending[0]?.failures).toBeGreaterThanOrEqual(1);
    expect(report.pending[0]?.lastError).toMatch(/InvalidParameter/);
  });

  it('--networks picks the networks; the last figures come with their age in JSON', async () => {
    // Act
    const run = await runCli(['status', '--networks', 'edge-2,edge-9', '--format', 'json'], world.storeEnv);

    // Assess
    const report = parseJsonOutput<StatusReport>(run);
    expect(report.networks.map((n) => n.id)).toEqual(['edge-2', 'edge-9']);
    expect(report.networks[0]?.last?.ageMs).toBeGreaterThanOrEqual(0);
    expect(report.networks[1]?.last).toBeNull();
    expect(report.filter).toMatchObject({ expected: null, standing: 'no expected status' });
  });

  it.skipIf(!hasScript)(
    'on a terminal the status is coloured (red when away, with its label); NO_COLOR turns it off',
    async () => {
      // Act
      const coloured = await statusOnTerminal(statusEnv);
      const plain = await statusOnTerminal({ ...statusEnv, NO_COLOR: '1' });

      // Assess
      expect(coloured).toContain(`${RED}"mitigating"\u001b[0m (AWAY from expected "active")`);
      expect(coloured).toContain(`${RED}OPEN`);
      expect(plain).toContain('"mitigating" (AWAY from expected "active")');
      expect(plain).not.toContain('\u001b[3');
    },
  );

  it.skipIf(!hasScript)('on a terminal the expected status is green, with its label', async () => {
    // Prepare: the API back, SNS back: the next cycle sends what waits and sees "active" again.
    apiDown = false;
    filterStatus = 'active';
    world.sns.mode = 'ok';
    await poll();

    // Act
    const coloured = await statusOnTerminal(statusEnv);

    // Assess
    expect(coloured).toContain(`${GREEN}"active"\u001b[0m (expected)`);
    expect(coloured).toContain(`pending alerts ${GREEN}none`);
  });

  it('needs a store: in a directory without one it says so and exits 1', async () => {
    // Prepare
    const empty = mkdtempSync(join(tmpdir(), 'shieldwatch-status-'));

    // Act
    const run = await runCli(['status'], {}, { cwd: empty });
    rmSync(empty, { recursive: true, force: true });

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toMatch(/shieldwatch status: .*no (embedded )?store/i);
    expect(run.stderr).toContain(empty);
  });
});
