import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../cli/simulator/server.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, type Reply, startFakeApi } from '../fixtures/fake-api.ts';
import { type FakeSns, startFakeSns } from '../fixtures/fake-aws.ts';
import { describeRun, runCli, TOPIC_ARN } from './helpers.ts';

const ENTRY = fileURLToPath(new URL('../../bin/shieldwatch.mjs', import.meta.url));

describe('check, run, test-alert, uptime and history --chart, run for real', () => {
  let simulator: Simulator;
  let dynamo: LocalDynamo;
  let sns: FakeSns;
  let store: Record<string, string>;
  let env: Record<string, string>;

  beforeAll(async () => {
    simulator = await startSimulator({ shape: 'nested', scenario: 'steady', networks: ['edge-1', 'edge-2'] });
    dynamo = await startDynamo();
    sns = await startFakeSns();
    store = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_SNS: sns.url,
      SHIELDWATCH_TABLE: dynamo.table,
    };
    env = { ...store, ...simulator.env };
  });
  afterAll(async () => {
    await simulator.close();
    await dynamo.close();
    await sns.close();
  });

  it('check finds the status at the configured path, names the key owner and each network, and exits 0', async () => {
    // Act
    const run = await runCli(['check'], env);

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(/key owner\s+ok .*Demo Operator/);
    expect(run.stdout).toMatch(/filter status\s+ok "active" at data\.filter\.state/);
    expect(run.stdout).toMatch(/edge-1\s+ok/);
    expect(run.stdout).toContain('ready to monitor');
    expect(run.stdout + run.stderr).not.toContain(simulator.key);
  });

  it('check shows the body and how to set SHIELDWATCH_STATUS_PATH when no status is found, and exits 1', async () => {
    // Prepare
    const { SHIELDWATCH_STATUS_PATH: _unused, ...withoutPath } = env;

    // Act
    const run = await runCli(['check'], withoutPath);

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stdout).toMatch(/filter status\s+FAIL no status found/);
    expect(run.stdout).toMatch(/state: string "active"/);
    expect(run.stdout).toContain('export SHIELDWATCH_STATUS_PATH=data.filter.state');
  });

  it('check exits 1 naming the kind when the key is rejected', async () => {
    // Act
    const run = await runCli(['check'], { ...env, SHIELDWATCH_API_KEY: 'wrong-key-123' });

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stdout).toMatch(/filter status\s+FAIL auth/);
    expect(run.stdout).not.toContain('wrong-key-123');
  });

  it('test-alert publishes one labelled monitor.test notification, needing no API settings', async () => {
    // Prepare
    const before = sns.publishes.length;

    // Act
    const run = await runCli(['test-alert', '--note', 'from the test suite'], {
      ...store,
      SHIELDWATCH_TOPIC_ARN: TOPIC_ARN,
    });

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    const published = sns.publishes.slice(before);
    expect(published).toHaveLength(1);
    expect(published[0]?.attributes['event']).toBe('monitor.test');
    expect(published[0]?.subject).toMatch(/TEST/);
    expect(JSON.parse(published[0]!.message).email).toContain('from the test suite');
  });

  it('test-alert without a topic says that nothing was delivered, never that delivery works, and exits 1', async () => {
    // Prepare
    const before = sns.publishes.length;

    // Act
    const run = await runCli(['test-alert'], store);

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toContain(
      'no topic configured (SHIELDWATCH_TOPIC_ARN is not set): nothing was delivered',
    );
    expect(run.stderr).toContain('only logged to the terminal');
    expect(run.stdout + run.stderr).not.toMatch(/delivery works/i);
    expect(sns.publishes.length).toBe(before);
  });

  it('run prints one line per cycle and stops after --cycles', async () => {
    // Act
    const run = await runCli(['run', '--every', '1s', '--cycles', '3'], env);

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout.match(/^\d\d:\d\d:\d\d {2}filter "active" {2}networks 2\/2 ok/gm)).toHaveLength(3);
    expect(run.stdout).toContain('stopped after 3 cycle(s)');
  });

  it('run stops cleanly on Ctrl-C, after the cycle in flight', async () => {
    // Prepare
    const child = spawn(process.execPath, [ENTRY, 'run', '--every', '1s'], {
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (/^\d\d:\d\d:\d\d {2}filter/m.test(stdout)) {
          clearInterval(check);
          resolve();
        }
      }, 50);
    });

    // Act
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));

    // Assess
    expect(code).toBe(0);
    expect(stdout).toMatch(/stopped after \d+ cycle\(s\)/);
  });

  it('uptime reports the share of each status and the API availability from the stored history', async () => {
    // Act
    const text = await runCli(['uptime', '--since', '1h'], store);
    const json = await runCli(['uptime', '--since', '1h', '--format', 'json'], store);

    // Assess
    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stdout).toMatch(/"active"\s+100\.0%/);
    expect(text.stdout).toMatch(/API availability\s+100\.0%/);
    const report = JSON.parse(json.stdout) as {
      statuses: Array<{ status: string; share: number }>;
      availability: { cycles: number };
    };
    expect(report.statuses).toEqual([expect.objectContaining({ status: 'active', share: 1 })]);
    expect(report.availability.cycles).toBeGreaterThanOrEqual(4);
  });

  it('history --chart draws a numeric field over time, and names the fields there are when it is missing', async () => {
    // Act
    const chart = await runCli(['history', '--network', 'edge-1', '--chart', 'traffic.in.pps'], store);
    const missing = await runCli(['history', '--network', 'edge-1', '--chart', 'no.such.field'], store);

    // Assess
    expect(chart.code, describeRun(chart)).toBe(0);
    expect(chart.stdout).toMatch(/network edge-1 traffic\.in\.pps \(\d+ points\)/);
    expect(chart.stdout).toMatch(/[┤└]/);
    expect(missing.stdout).toMatch(/no numeric values at "no\.such\.field".*traffic\.in\.pps/);
  });
});

describe('check says which networks are not ready, run for real against a fake API', () => {
  let api: FakeApi;
  const replies = new Map<string, Reply>();

  beforeAll(async () => {
    api = await startFakeApi({
      filter: () => ({ body: { status: 'active' } }),
      user: () => ({ body: { name: 'Check Owner' } }),
      network: (id) => replies.get(id) ?? { body: { traffic: { pps: 10 } } },
    });
  });
  afterAll(async () => {
    await api.close();
  });

  const settings = () => ({
    SHIELDWATCH_API_URL: api.url,
    SHIELDWATCH_API_KEY: api.key,
    SHIELDWATCH_NETWORKS: 'net-a,net-b,net-c',
    SHIELDWATCH_RETRIES: '0',
    SHIELDWATCH_TIMEOUT_MS: '1000',
  });

  it.each([
    {
      name: 'a network answers 404',
      failing: { 'net-b': { status: 404, body: { error: 'not_found' } } },
      notReady: /not ready: network "net-b" not ready \(1 of 3 failed\)/,
    },
    {
      name: 'two networks fail: a 503 and a reset connection',
      failing: {
        'net-a': { status: 503, body: { error: 'unavailable' } },
        'net-c': { destroy: true },
      },
      notReady: /not ready: networks "net-a", "net-c" not ready \(2 of 3 failed\)/,
    },
    {
      name: 'a network times out',
      failing: { 'net-c': { hang: true } },
      notReady: /not ready: network "net-c" not ready \(1 of 3 failed\)/,
    },
  ] satisfies Array<{ name: string; failing: Record<string, Reply>; notReady: RegExp }>)(
    '$name: FAIL on its line, named in the verdict, exit 1',
    async ({ failing, notReady }) => {
      // Prepare
      replies.clear();
      for (const [id, reply] of Object.entries(failing)) replies.set(id, reply);

      // Act
      const run = await runCli(['check'], settings());

      // Assess
      expect(run.code, describeRun(run)).toBe(1);
      expect(run.stdout).toMatch(/filter status\s+ok "active"/);
      for (const id of Object.keys(failing)) expect(run.stdout).toMatch(new RegExp(`${id}\\s+FAIL`));
      expect(run.stdout).toMatch(notReady);
      expect(run.stdout).not.toContain('ready to monitor');
    },
  );

  it('lists the numeric paths of each network body and suggests figure fields without ids and times (issue 14.3)', async () => {
    // Prepare
    replies.clear();
    replies.set('net-a', {
      body: { id: 48213, ts: 1_767_225_600, traffic: { in_pps: 900, in_bps: 7.5e6 }, label: 'edge' },
    });
    replies.set('net-b', { body: { id: 7, traffic: { in_pps: 12, drops: 1 } } });
    replies.set('net-c', { status: 503, body: { error: 'unavailable' } });

    // Act
    const run = await runCli(['check'], settings());

    // Assess
    expect(run.stdout).toMatch(/^ {2}net-a: id, ts, traffic\.in_pps, traffic\.in_bps$/m);
    expect(run.stdout).toMatch(/^ {2}net-b: id, traffic\.in_pps, traffic\.drops$/m);
    expect(run.stdout).not.toMatch(/^ {2}net-c: /m);
    expect(run.stdout).toContain(
      '    export SHIELDWATCH_FIGURE_FIELDS=traffic.in_pps,traffic.in_bps,traffic.drops\n',
    );
    expect(run.stdout).toContain(
      '    npx cdk deploy -c figureFields=traffic.in_pps,traffic.in_bps,traffic.drops\n',
    );
  });

  it('warns about a chosen figure field that no answer holds as a number, without failing the check', async () => {
    // Prepare
    replies.clear();

    // Act
    const run = await runCli(['check'], {
      ...settings(),
      SHIELDWATCH_FIGURE_FIELDS: 'traffic.pps,traffic.bps',
    });

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(/chosen\s+traffic\.pps,traffic\.bps/);
    expect(run.stdout).toMatch(/warn\s+not a number in any answer: traffic\.bps/);
  });

  it('every network answering and only /api/user failing (404) is ready: a warning, exit 0', async () => {
    // Prepare
    replies.clear();
    const user = api.user;
    api.user = () => ({ status: 404, body: { error: 'not_found' } });

    // Act
    const run = await runCli(['check'], settings());
    api.user = user;

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(/key owner\s+warn client: .*\(not needed to monitor\)/);
    expect(run.stdout).toMatch(/net-b\s+ok/);
    expect(run.stdout).toContain('ready to monitor');
  });
});
