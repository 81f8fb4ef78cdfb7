/**
 * `shieldwatch backtest` through the real CLI: twenty real poll cycles (the CLI's own monitor, run in this
 * process so the history takes seconds, not a process per cycle) against a loopback API whose
 * figures change from cycle to cycle (an attack flag on edge-2, a surge over edge-2's baseline after a dozen
 * normal cycles, a pps spike on edge-1 with a failed request in the middle of it) make the history in
 * dynalite; backtest then replays it with the store settings and the rules only.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BacktestAlert } from '../../cli/backtest/render.ts';
import type { HistoryEntry } from '../../cli/entries.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { runCycle } from '../../lambda/cycle.ts';
import { describeRun, dumpTable, parseJsonOutput, runCli, startWorld, type World } from './helpers.ts';

const CYCLES = 20;

/** edge-1's incoming pps in cycle k: a spike in 14..16, its request failing in 15. */
function edge1(k: number) {
  if (k === 15) return { status: 503 };
  return {
    body: {
      traffic: { in: { pps: k >= 14 && k <= 16 ? 90_000 : 1000 + k } },
      // edge-1 is attacked too, but the flag rule watches edge-2 only.
      attack: { active: k >= 5 && k <= 7 },
    },
  };
}

/** edge-2: its attack flag up in 5..7; its pps about 1000, five times that in cycle 13. */
function edge2(k: number) {
  return {
    body: {
      traffic: { in: { pps: k === 13 ? 5000 : 1000 + (k % 3) * 10 } },
      attack: { active: k >= 5 && k <= 7 },
    },
  };
}

const RULES = [
  'pps: traffic.in.pps > 50k for 2',
  'flag: attack.active == true on edge-2',
  'surge: traffic.in.pps > 3x baseline on edge-2',
].join('; ');

describe('shieldwatch backtest, run for real', () => {
  let world: World;
  let cycle = 0;
  /** What backtest needs: the store settings, the networks, the rules. Nothing of the API. */
  let backtestEnv: Record<string, string>;
  /** Per cycle k, the earliest snapshot time of its networks: the time its alerts carry. */
  const cycleAt: string[] = [];

  const backtest = (args: string[], env: Record<string, string> = backtestEnv) =>
    runCli(['backtest', ...args], env);

  beforeAll(async () => {
    world = await startWorld({
      settings: { SHIELDWATCH_NETWORKS: 'edge-1,edge-2', SHIELDWATCH_RETRIES: '0' },
      api: {
        filter: () => ({ body: { status: 'active' } }),
        network: (id) => (id === 'edge-1' ? edge1(cycle) : edge2(cycle)),
      },
    });
    // No topic: the rule alerts are backtest's to find, and none is configured here.
    const { SHIELDWATCH_TOPIC_ARN: _topic, ...env } = world.env;
    const monitor = buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: world.dynamo.client,
      log: { info: () => {}, warn: () => {}, error: () => {} },
      fallbackPublisher: new LogAlertPublisher(() => {}),
    });
    try {
      for (cycle = 0; cycle < CYCLES; cycle++) {
        const result = await runCycle(monitor.deps, monitor.settings, Date.now() + 20_000);
        expect(result.networks).toHaveLength(2);
      }
    } finally {
      await monitor.close();
    }
    const history = async (network: string) => {
      const run = await runCli(['history', '--network', network, '--format', 'json'], world.storeEnv);
      return parseJsonOutput<HistoryEntry[]>(run);
    };
    const [one, two] = await Promise.all([history('edge-1'), history('edge-2')]);
    expect([one.length, two.length]).toEqual([CYCLES, CYCLES]);
    for (let k = 0; k < CYCLES; k++) cycleAt.push(one[k]!.at < two[k]!.at ? one[k]!.at : two[k]!.at);
    backtestEnv = { ...world.storeEnv, SHIELDWATCH_NETWORKS: 'edge-1,edge-2', SHIELDWATCH_RULES: RULES };
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  const expected = (): BacktestAlert[] => [
    { at: cycleAt[5]!, event: 'network.rule_triggered', rule: 'flag', network: 'edge-2', value: true },
    { at: cycleAt[8]!, event: 'network.rule_resolved', rule: 'flag', network: 'edge-2', value: false },
    { at: cycleAt[13]!, event: 'network.rule_triggered', rule: 'surge', network: 'edge-2', value: 5000 },
    { at: cycleAt[14]!, event: 'network.rule_resolved', rule: 'surge', network: 'edge-2', value: 1020 },
    // Cycles 14 and 16 in a row: the failed request in 15 is no evidence, it does not reset the count.
    { at: cycleAt[16]!, event: 'network.rule_triggered', rule: 'pps', network: 'edge-1', value: 90_000 },
    { at: cycleAt[18]!, event: 'network.rule_resolved', rule: 'pps', network: 'edge-1', value: 1018 },
  ];

  it('--format json: the alerts the rules would have sent, oldest first, as {at, event, rule, network, value}', async () => {
    // Act
    const run = await backtest(['--format', 'json']);

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(parseJsonOutput<BacktestAlert[]>(run)).toEqual(expected());
    // The counts go to stderr, so stdout stays one JSON document.
    expect(run.stderr).toMatch(/^pps\s+edge-1\s+19\s+1000\s+90000\s+1\s+1\s+closed$/m);
    expect(run.stderr).toContain(`replayed ${CYCLES} cycle(s) of 2 network(s)`);
  });

  it('a table of the alerts, and a count per rule and network', async () => {
    // Act
    const run = await backtest([]);

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^at\s+event\s+rule\s+network\s+value\s+against$/);
    expect(lines.slice(2, 8)).toEqual([
      expect.stringMatching(new RegExp(`^${cycleAt[5]}\\s+triggered\\s+flag\\s+edge-2\\s+true\\s+== true$`)),
      expect.stringMatching(/resolved\s+flag\s+edge-2\s+false\s+== true$/),
      // The baseline is the median of edge-2's 12 normal cycles before: 1010; three times that is 3030.
      expect.stringMatching(/triggered\s+surge\s+edge-2\s+5000\s+> 3x baseline 1010 \(3030\)$/),
      expect.stringMatching(/resolved\s+surge\s+edge-2\s+1020\s+> 3x baseline 1010 \(3030\)$/),
      expect.stringMatching(new RegExp(`^${cycleAt[16]}\\s+triggered\\s+pps\\s+edge-1\\s+90000\\s+> 50000$`)),
      expect.stringMatching(/resolved\s+pps\s+edge-1\s+1018\s+> 50000$/),
    ]);
    expect(run.stdout).toMatch(/^rule\s+network\s+values\s+min\s+max\s+triggered\s+resolved\s+at end$/m);
    expect(run.stdout).toMatch(/^pps\s+edge-1\s+19\s+1000\s+90000\s+1\s+1\s+closed$/m);
    expect(run.stdout).toMatch(/^pps\s+edge-2\s+20\s+1000\s+5000\s+0\s+0\s+closed$/m);
    // The flag rule watches edge-2 only, although edge-1 raised its flag too.
    expect(run.stdout).toMatch(/^flag\s+edge-2\s+20\s+-\s+-\s+1\s+1\s+closed$/m);
    expect(run.stdout).not.toMatch(/^flag\s+edge-1/m);
    expect(run.stdout).toMatch(/^surge\s+edge-2\s+20\s+1000\s+5000\s+1\s+1\s+closed$/m);
    expect(run.stdout).toContain(
      `replayed ${CYCLES} cycle(s) of 2 network(s), ${cycleAt[0]} to ${cycleAt[19]}: 6 alert(s)`,
    );
  });

  it('--since and --until: only the snapshots in the window, the rules starting afresh there', async () => {
    // Act: from cycle 10, the baseline has only 3 values before the surge; up to cycle 9, only the flag.
    const late = await backtest(['--since', cycleAt[10]!, '--format', 'json']);
    const early = await backtest(['--until', cycleAt[9]!, '--format', 'json']);

    // Assess
    expect(late.code, describeRun(late)).toBe(0);
    expect(parseJsonOutput<BacktestAlert[]>(late)).toEqual(expected().filter((a) => a.rule === 'pps'));
    expect(late.stderr).toMatch(/^surge\s+edge-2\s+10\s+1000\s+5000\s+0\s+0\s+closed$/m);
    expect(late.stderr).toContain('replayed 10 cycle(s)');
    expect(early.code, describeRun(early)).toBe(0);
    expect(parseJsonOutput<BacktestAlert[]>(early)).toEqual(expected().filter((a) => a.rule === 'flag'));
    expect(early.stderr).toContain('replayed 10 cycle(s)');
  });

  it('--rules overrides the configured rules: for 3 never holds across the failed request, 100k never', async () => {
    // Act
    const run = await backtest([
      '--rules',
      'pps: traffic.in.pps > 50k for 3; high: traffic.in.pps > 100k on edge-1',
    ]);

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(/^no alert would have been sent$/m);
    expect(run.stdout).toMatch(/^pps\s+edge-1\s+19\s+1000\s+90000\s+0\s+0\s+closed$/m);
    expect(run.stdout).toMatch(/^high\s+edge-1\s+19\s+1000\s+90000\s+0\s+0\s+closed$/m);
    expect(run.stdout).not.toMatch(/^(flag|surge)\s/m);
  });

  it('networks come from the rules\' "on" too: with no SHIELDWATCH_NETWORKS, only those are replayed', async () => {
    // Act
    const run = await backtest(['--format', 'json'], { ...world.storeEnv, SHIELDWATCH_RULES: RULES });

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    // A cycle's time is its earliest replayed snapshot: with edge-1 left out, edge-2's own (the same cycle,
    // a millisecond or so later), so the times are compared to the cycle's within a second.
    const alerts = parseJsonOutput<BacktestAlert[]>(run);
    const wanted = expected().filter((a) => a.network === 'edge-2');
    expect(alerts.map(({ at: _at, ...rest }) => rest)).toEqual(wanted.map(({ at: _at, ...rest }) => rest));
    alerts.forEach((alert, i) => {
      const late = Date.parse(alert.at) - Date.parse(wanted[i]!.at);
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(1000);
    });
    expect(run.stderr).toContain('of 1 network(s)');
  });

  it.each([
    [
      '--rules',
      ['--rules', 'pps: traffic.in.pps >> 5; ok: a > 1'],
      backtestEnvWithout(),
      [/--rules: rule "pps": /],
    ],
    [
      'SHIELDWATCH_RULES',
      [],
      { SHIELDWATCH_RULES: 'pps: traffic.in.pps > lots; flag: attack.active > true' },
      [
        /SHIELDWATCH_RULES: rule "pps": the value "lots" is not a number/,
        /SHIELDWATCH_RULES: rule "flag": true and false/,
      ],
    ],
  ])(
    'a bad rule in %s: exit 2, naming the source, the rule and what is wrong',
    async (_name, args, env, messages) => {
      // Act
      const run = await backtest(args, { ...world.storeEnv, ...env });

      // Assess
      expect(run.code, describeRun(run)).toBe(2);
      for (const message of messages) expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
    },
  );

  it('no rules at all: a clear message, exit 2', async () => {
    // Act
    const run = await backtest([], { ...world.storeEnv, SHIELDWATCH_NETWORKS: 'edge-1' });

    // Assess
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toContain('no rules to replay: SHIELDWATCH_RULES is empty');
    expect(run.stderr).toContain('--rules');
  });

  it('--format csv is refused (table or json)', async () => {
    const run = await backtest(['--format', 'csv']);
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toContain('--format: unknown value "csv"');
  });

  it('sends nothing and changes nothing: the table is byte-identical, SNS gets no request', async () => {
    // Prepare
    const before = await dumpTable(world.dynamo);
    const snsRequests = world.sns.requests.length;

    // Act: with a topic configured too, which backtest must not use.
    const run = await backtest(['--format', 'json'], { ...backtestEnv, AWS_ENDPOINT_URL_SNS: world.sns.url });

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(await dumpTable(world.dynamo)).toBe(before);
    expect(world.sns.requests.length).toBe(snsRequests);
  });

  it('without a store here it creates none: exit 1, saying where the store would be', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'shieldwatch-backtest-'));
    try {
      // Act
      const run = await runCli(['backtest', '--rules', RULES], {}, { cwd: dir });

      // Assess
      expect(run.code, describeRun(run)).toBe(1);
      expect(run.stderr).toContain('no embedded store yet');
      expect(existsSync(join(dir, '.shieldwatch'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--help says what it does', async () => {
    const run = await runCli(['backtest', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: shieldwatch backtest [--since 7d|ISO] [--until ...] [--rules TEXT]');
  });
});

function backtestEnvWithout(): Record<string, string> {
  return { SHIELDWATCH_NETWORKS: 'edge-1' };
}
