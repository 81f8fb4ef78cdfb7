/**
 * `shieldwatch incidents` lists a rule's incidents of one network (CONTRACT §13, `SHIELDWATCH_GROUP_BY=none`), as
 * real CLI processes: polls against a loopback API on dynalite in which networks are attacked, then recover.
 * Open ones from the rule items' cells, resolved ones from their events, each with its peak; with `--since`
 * after the trigger, the peak still read from it. With `groupBy=rule` the same per-network transitions are
 * recorded but listed only as their rule's incident across networks, also after a switch to `none`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliRun,
  cliTestTimeout,
  describeRun,
  parseJsonOutput,
  runCli,
  startWorld,
  type World,
} from './helpers.ts';

interface Row {
  id: string;
  kind: string;
  rule?: string;
  state: string;
  openedAt: string;
  resolvedAt?: string;
  networks: { network: string; peak?: number | boolean; peakAt?: string }[];
  acknowledged?: unknown;
}

async function ok(running: Promise<CliRun>): Promise<CliRun> {
  const run = await running;
  expect(run.code, describeRun(run)).toBe(0);
  return run;
}

/** A time strictly after the last cycle and before the next one. */
async function between(): Promise<string> {
  await sleep(5);
  const at = new Date().toISOString();
  await sleep(5);
  return at;
}

// One test after the other in each block: each builds on the store the one before left.
describe('shieldwatch incidents with SHIELDWATCH_GROUP_BY=none', () => {
  let world: World;
  let pps: Record<string, number> = {};
  const poll = () => ok(runCli(['poll'], world.env));
  const list = async (...args: string[]) =>
    parseJsonOutput<Row[]>(await ok(runCli(['incidents', ...args, '--format', 'json'], world.storeEnv)));
  let triggered = '';
  let afterTrigger = '';

  beforeAll(async () => {
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2,edge-3',
        SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
        SHIELDWATCH_GROUP_BY: 'none',
      },
      api: { network: (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 } } } }) },
    });
  });
  afterAll(async () => {
    await world.close();
  });

  it(
    'an attack on two networks: one open incident per network, each with its trigger as its peak',
    async () => {
      // Prepare: a quiet cycle, then edge-1 and edge-2 attacked.
      await poll();
      pps = { 'edge-1': 1_200_000, 'edge-2': 600_000 };
      await poll();
      afterTrigger = await between();

      // Act
      const open = await list('--open');
      const table = await ok(runCli(['incidents'], world.storeEnv));
      const edge1 = open.find((r) => r.networks[0]?.network === 'edge-1');
      const show = await ok(runCli(['incidents', 'show', edge1?.id ?? '?'], world.storeEnv));

      // Assess
      triggered = edge1?.openedAt ?? '';
      expect(open).toEqual([
        {
          id: `flood/edge-1/${triggered}`,
          kind: 'rule',
          rule: 'flood',
          state: 'open',
          openedAt: triggered,
          networks: [{ network: 'edge-1', peak: 1_200_000, peakAt: triggered }],
        },
        {
          id: `flood/edge-2/${triggered}`,
          kind: 'rule',
          rule: 'flood',
          state: 'open',
          openedAt: triggered,
          networks: [{ network: 'edge-2', peak: 600_000, peakAt: triggered }],
        },
      ]);
      expect(table.stdout).toMatch(/^flood\/edge-1\/\S+\s+flood on edge-1\s+open\s.*\s1\s+1\.2M on edge-1$/m);
      expect(show.stdout).toContain(`incident flood/edge-1/${triggered}`);
      expect(show.stdout).toContain('  kind:      rule: flood on edge-1');
      expect(show.stdout).toContain('  rule:      flood: traffic.in.pps > 500k');
      expect(show.stdout).toMatch(/networks: {2}1, worst peak 1\.2M on edge-1/);
      expect(show.stdout).toMatch(/ opened \(1\) - value 1200000, threshold 500000$/m);
      expect(show.stdout).toMatch(/alerts: 1 sent, 0 suppressed/);
    },
    cliTestTimeout(6),
  );

  it(
    'edge-1 recovers: resolved at its resolve with its peak, edge-2 still open; --since after the trigger keeps both peaks',
    async () => {
      // Prepare
      pps = { 'edge-2': 600_000 };
      await poll();
      const afterResolve = await between();

      // Act
      const all = await list();
      const open = await list('--open');
      const sinceTrigger = await list('--since', afterTrigger);
      const sinceResolve = await list('--since', afterResolve);
      const show = await ok(
        runCli(['incidents', 'show', `flood/edge-1/${triggered}`, '--format', 'json'], world.storeEnv),
      );

      // Assess
      const edge1 = {
        id: `flood/edge-1/${triggered}`,
        state: 'resolved',
        resolvedAt: expect.any(String),
        networks: [{ network: 'edge-1', peak: 1_200_000, peakAt: triggered }],
      };
      const edge2 = {
        id: `flood/edge-2/${triggered}`,
        state: 'open',
        networks: [{ network: 'edge-2', peak: 600_000, peakAt: triggered }],
      };
      expect(all).toEqual([expect.objectContaining(edge1), expect.objectContaining(edge2)]);
      expect(all[0]!.resolvedAt! > afterTrigger && all[0]!.resolvedAt! < afterResolve).toBe(true);
      expect(open).toEqual([expect.objectContaining(edge2)]);
      // The triggers are older than --since: read at their times for the peaks.
      expect(sinceTrigger).toEqual([expect.objectContaining(edge1), expect.objectContaining(edge2)]);
      expect(sinceResolve).toEqual([expect.objectContaining(edge2)]);
      expect(parseJsonOutput<Record<string, unknown>>(show)).toMatchObject({
        about: 'flood on edge-1',
        ruleText: 'flood: traffic.in.pps > 500k',
        members: [{ network: 'edge-1', joinedAt: triggered, peak: 1_200_000, value: expect.any(Number) }],
        timeline: [{ what: 'opened' }, { what: 'resolved' }],
        alerts: [{ event: 'network.rule_triggered' }, { event: 'network.rule_resolved' }],
      });
      const published = world.sns.publishes.map((p) => p.attributes['event']);
      expect(published).toEqual([
        'network.rule_triggered',
        'network.rule_triggered',
        'network.rule_resolved',
      ]);
    },
    cliTestTimeout(7),
  );
});

describe('shieldwatch incidents with SHIELDWATCH_GROUP_BY=rule, then none', () => {
  let world: World;
  let pps: Record<string, number> = {};
  let groupBy = 'rule';
  const poll = () => ok(runCli(['poll'], { ...world.env, SHIELDWATCH_GROUP_BY: groupBy }));
  const list = async (...args: string[]) =>
    parseJsonOutput<Row[]>(await ok(runCli(['incidents', ...args, '--format', 'json'], world.storeEnv)));

  beforeAll(async () => {
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
        SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
      },
      api: { network: (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 } } } }) },
    });
  });
  afterAll(async () => {
    await world.close();
  });

  it(
    'grouped: the per-network transitions are recorded, but only the incident across networks is listed',
    async () => {
      // Prepare: an attack on both networks, open, then over.
      await poll();
      pps = { 'edge-1': 900_000, 'edge-2': 700_000 };
      await poll();
      const whileOpen = await list('--open');
      pps = {};
      await poll();

      // Act
      const all = await list();
      const events = parseJsonOutput<Array<{ event: string }>>(
        await ok(runCli(['events', '--format', 'json'], world.storeEnv)),
      );

      // Assess: the per-network events are there, and listed only as the rule's incident.
      expect(events.filter((e) => e.event.startsWith('network.rule_')).map((e) => e.event)).toEqual([
        'network.rule_triggered',
        'network.rule_triggered',
        'network.rule_resolved',
        'network.rule_resolved',
      ]);
      expect(whileOpen).toEqual([
        expect.objectContaining({ id: expect.stringMatching(/^flood@/), kind: 'rule', state: 'open' }),
      ]);
      expect(all).toEqual([
        expect.objectContaining({
          id: whileOpen[0]!.id,
          state: 'resolved',
          networks: [
            expect.objectContaining({ network: 'edge-1', peak: 900_000 }),
            expect.objectContaining({ network: 'edge-2', peak: 700_000 }),
          ],
        }),
      ]);
    },
    cliTestTimeout(7),
  );

  it(
    'switched to none: a later attack is listed per network, beside the earlier incident across networks',
    async () => {
      // Prepare
      groupBy = 'none';
      pps = { 'edge-2': 800_000 };
      await poll();

      // Act
      const all = await list();
      const open = await list('--open');

      // Assess
      expect(all).toEqual([
        expect.objectContaining({ id: expect.stringMatching(/^flood@/), state: 'resolved' }),
        expect.objectContaining({
          id: expect.stringMatching(/^flood\/edge-2\//),
          state: 'open',
          networks: [expect.objectContaining({ network: 'edge-2', peak: 800_000 })],
        }),
      ]);
      expect(open.map((r) => r.id)).toEqual([all[1]!.id]);
    },
    cliTestTimeout(3),
  );
});
