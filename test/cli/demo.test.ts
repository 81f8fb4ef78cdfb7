import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_RULES, DEMO_TABLE } from '../../cli/commands/demo.ts';
import { stopEmbeddedStore } from '../../cli/store/embedded.ts';
import { runCli } from './helpers.ts';

/** A cycle's line: its time, then the filter. */
const CYCLE_LINE = /^\d\d:\d\d:\d\d {2}filter/;
/** Preloaded into the CLI: every cycle line holds the demo 700 ms, so its cycles run late (a loaded machine). */
const LATE_CYCLES = new URL('../fixtures/late-cycles.mjs', import.meta.url).href;

describe('the demo (npm start)', () => {
  const dirs: string[] = [];
  /** The first test's demo output, which the next ones read. */
  let demoRun = '';
  afterAll(async () => {
    for (const dir of dirs) {
      await stopEmbeddedStore(join(dir, '.shieldwatch'));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs end to end on a fresh directory with no AWS and no terminal, shows the alerts and the history, and exits 0', async () => {
    // Prepare
    const cwd = await mkdtemp(join(tmpdir(), 'shieldwatch-demo-'));
    dirs.push(cwd);

    // Act
    const run = await runCli(
      // Ten cycles: the attack on edge-1 holds for four, two normal ones after it resolve the rule.
      ['demo', '--cycles', '10', '--every', '700ms'],
      { CI: 'true' },
      { cwd, timeoutMs: 60_000 },
    );

    // Assess
    expect(run.timedOut).toBe(false);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /ALERT filter\.status_changed: \[shieldwatch\] HIGH: Filter status changed: active -> mitigating/,
    );
    expect(run.stdout).toMatch(/RESOLVED: Filter status changed: mitigating -> active/);
    // The traffic rule the demo watches with (the replay below shows the attack trips it).
    expect(run.stdout).toContain(`traffic rule   ${DEMO_RULES}`);
    // One incident: opened on edge-1, updated when the attack spreads to edge-2, resolved with both.
    const opened = run.stdout.match(
      /^ALERT incident\.opened: \[shieldwatch\] flood on 1 network: peak [\d.]+M on edge-1 \(traffic\.in\.pps > 500k\)$/gm,
    );
    const updated = run.stdout.match(
      /^ALERT incident\.updated: \[shieldwatch\] flood: 1 more network \(2 in all\): peak [\d.]+M on edge-2 \(traffic\.in\.pps > 500k\)$/gm,
    );
    const resolved = run.stdout.match(
      /^ALERT incident\.resolved: \[shieldwatch\] RESOLVED flood on 2 networks after \S+: peak [\d.]+M on edge-\d \(traffic\.in\.pps > 500k\)$/gm,
    );
    expect([opened?.length, updated?.length, resolved?.length], run.stdout).toEqual([1, 1, 1]);
    expect(run.stdout.indexOf(opened![0]!)).toBeLessThan(run.stdout.indexOf(updated![0]!));
    expect(run.stdout.indexOf(updated![0]!)).toBeLessThan(run.stdout.indexOf(resolved![0]!));
    // No per-network rule alert is sent: they are recorded (events below) and grouped.
    expect(run.stdout).not.toMatch(/^ALERT network\./m);
    // The incidents section and the incident's story.
    expect(run.stdout).toMatch(
      /Incidents \(shieldwatch incidents\)\n.*\n.*\n(?:.*\n)*?flood@\S+\s+flood\s+resolved\s.*\s2\s+[\d.]+M on edge-\d/,
    );
    expect(run.stdout).toMatch(
      /The attack \(shieldwatch incidents show flood@[\s\S]*opened \(1\): edge-1[\s\S]*joined \(1\): edge-2[\s\S]*updated \(1\)[\s\S]*resolved \(2\)[\s\S]*alerts: 3 sent, 0 suppressed/,
    );
    expect(run.stdout).toMatch(/History of the filter status[\s\S]*mitigating/);
    expect(run.stdout).toMatch(
      /Events[\s\S]*filter\.status_changed\s+"active"\s+"mitigating"[\s\S]*filter\.status_changed\s+"mitigating"\s+"active"/,
    );
    // The events list names a rule alert's rule, network and value.
    expect(run.stdout).toMatch(/network\.rule_triggered\s+flood on edge-1: \d+/);
    expect(run.stdout).toMatch(/network\.rule_resolved\s+flood on edge-1: \d+/);
    expect(run.stdout).toMatch(/[╭╮╯╰]/);
    expect(run.stdout).not.toMatch(/\u001b\[/);
    expect(run.stdout.match(/^\d\d:\d\d:\d\d {2}filter/gm)).toHaveLength(10);
    demoRun = run.stdout;
  });

  it('promises no failures in its banner, and shows none', () => {
    // Prepare
    const lines = demoRun.split('\n');
    const firstCycle = lines.findIndex((line) => CYCLE_LINE.test(line));

    // Assess
    expect(firstCycle).toBeGreaterThan(0);
    expect(lines.slice(0, firstCycle).join('\n')).not.toMatch(/fail|error/i);
    const cycles = lines.filter((line) => CYCLE_LINE.test(line));
    expect(cycles.filter((line) => !/filter "[a-z]+" {2}networks 2\/2 ok/.test(line))).toEqual([]);
  });

  it('prints each alert once, on one line, right after the line of the cycle that sent it', () => {
    // Prepare
    const lines = demoRun.split('\n');

    // Act
    const alerts = lines.flatMap((line, i) => (line.startsWith('ALERT ') ? [i] : []));

    // Assess
    expect(alerts).toHaveLength(5);
    for (const i of alerts) {
      let cycle = i - 1;
      while (lines[cycle]?.startsWith('ALERT ')) cycle--;
      expect(lines[cycle], lines.slice(cycle, i + 2).join('\n')).toMatch(CYCLE_LINE);
      // Sent by that cycle: as many alerts follow it as it says it sent.
      const sent = Number(/ {2}(\d+) sent/.exec(lines[cycle]!)?.[1] ?? 0);
      let after = cycle + 1;
      while (lines[after]?.startsWith('ALERT ')) after++;
      expect(after - cycle - 1).toBe(sent);
      // Once: no second rendering of the same alert (its SMS text) below it.
      expect(lines[i + 1]).not.toMatch(/^\s+shieldwatch: /);
    }
    expect(demoRun).not.toMatch(/^\s+shieldwatch: /m);
  });

  it('its events section is what `shieldwatch events` lists', async () => {
    // Act
    const events = await runCli(['events'], { SHIELDWATCH_TABLE: DEMO_TABLE }, { cwd: dirs[0]! });

    // Assess
    expect(events.code, events.stderr).toBe(0);
    const section = /\nEvents \(shieldwatch events\)\n([\s\S]*?)\n\nIncoming packets/.exec(demoRun)?.[1];
    expect(section).toBe(events.stdout.replace(/\n$/, ''));
  });

  it("the simulated attack trips the demo's traffic rule and its end resolves it (backtest over the demo's history)", async () => {
    // Prepare
    const cwd = dirs[0]!;

    // Act
    const run = await runCli(
      ['backtest', '--format', 'json'],
      {
        SHIELDWATCH_TABLE: DEMO_TABLE,
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
        SHIELDWATCH_RULES: DEMO_RULES,
      },
      { cwd },
    );

    // Assess
    expect(run.code, run.stderr).toBe(0);
    const alerts = JSON.parse(run.stdout) as Array<{ event: string; rule: string; network: string }>;
    expect(alerts.map((a) => `${a.event} ${a.rule} ${a.network}`)).toEqual([
      'network.rule_triggered flood edge-1',
      'network.rule_triggered flood edge-2',
      'network.rule_resolved flood edge-2',
      'network.rule_resolved flood edge-1',
    ]);
    // The incidents those alerts would have formed (SHIELDWATCH_GROUP_BY=rule, interval 5m): one, two alerts.
    expect(run.stderr).toMatch(
      /incidents \(SHIELDWATCH_GROUP_BY=rule, group interval 5m\): 1 incident\(s\), 2 incident alert\(s\) instead of 4/,
    );
  });

  it('keeps its data in the embedded store for history afterwards', async () => {
    // Prepare
    const cwd = dirs[0]!;

    // Act
    const events = await runCli(
      ['events', '--format', 'json'],
      { SHIELDWATCH_TABLE: 'shieldwatch-demo' },
      { cwd },
    );

    // Assess
    expect(events.code, events.stderr).toBe(0);
    const transitions = (JSON.parse(events.stdout) as Array<{ event: string; to: string }>).filter(
      (e) => e.event === 'filter.status_changed',
    );
    expect(transitions.map((e) => e.to)).toEqual(['mitigating', 'active']);
  });

  it('tells the same attack when its cycles run late (a loaded machine): the scenario follows the cycles, not the clock', async () => {
    // Prepare: the quick demo of the browser test, 300 ms a cycle, each cycle held 700 ms more. The attack's
    // spread to edge-2 lasts two cycles of the plan: on the wall clock, 600 ms, which cycles 1 s apart miss.
    const cwd = await mkdtemp(join(tmpdir(), 'shieldwatch-demo-late-'));
    dirs.push(cwd);

    // Act
    const run = await runCli(
      ['demo', '--cycles', '10', '--every', '300ms'],
      { CI: 'true', NODE_OPTIONS: `--import=${LATE_CYCLES}` },
      { cwd, timeoutMs: 60_000 },
    );

    // Assess: the cycles did run late, and still the incident is the planned one: edge-1, then edge-2.
    expect(run.code, run.stderr).toBe(0);
    expect(run.ms).toBeGreaterThan(10 * 700);
    expect(run.stdout).toMatch(
      /^ALERT incident\.updated: \[shieldwatch\] flood: 1 more network \(2 in all\): peak [\d.]+M on edge-2/m,
    );
    expect(run.stdout).toMatch(
      /^ALERT incident\.resolved: \[shieldwatch\] RESOLVED flood on 2 networks after /m,
    );
    expect(run.stdout).toMatch(
      /The attack \(shieldwatch incidents show flood@[\s\S]*networks: {2}2, worst peak/,
    );
    // The report's present names both networks, as `incidents` does (the browser test reads it the same way).
    const report = await readFile(join(cwd, 'shieldwatch-report.html'), 'utf8');
    const now = /<section id="now"[\s\S]*?<\/section>/.exec(report)?.[0] ?? '';
    expect(now).toMatch(/edge-1(?:<\/span>)+ <span class="peak">peak /);
    expect(now).toMatch(/edge-2(?:<\/span>)+ <span class="peak">peak /);
  }, 90_000);
});
