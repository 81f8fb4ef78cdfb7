/**
 * `shieldwatch incidents` and `incidents show` as real CLI processes (CONTRACT §13): polls against a loopback
 * API whose networks are attacked, then recover, on dynalite; the list, the JSON rows and one incident's story.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliTestTimeout, describeRun, parseJsonOutput, runCli, startWorld, type World } from './helpers.ts';

interface Row {
  id: string;
  kind: string;
  rule?: string;
  state: string;
  openedAt: string;
  resolvedAt?: string;
  networks: { network: string; peak?: number; peakAt?: string }[];
}

describe('shieldwatch incidents', () => {
  let world: World;
  let pps: Record<string, number>;

  beforeEach(async () => {
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2,edge-3',
        SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
      },
    });
    pps = {};
    world.api.network = (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 } } } });
  });
  afterEach(async () => {
    await world.close();
  });

  const poll = async () => {
    const run = await runCli(['poll'], world.env);
    expect(run.code, describeRun(run)).toBe(0);
  };

  it(
    'lists the open incident with its networks, shows its story, then lists it resolved with every peak',
    async () => {
      // Prepare: one quiet cycle, then an attack on all three networks.
      await poll();
      pps = { 'edge-1': 1_200_000, 'edge-2': 600_000, 'edge-3': 700_000 };
      await poll();

      // Act
      const open = await runCli(['incidents', '--open', '--format', 'json'], world.storeEnv);
      const rows = parseJsonOutput<Row[]>(open);
      const show = await runCli(['incidents', 'show', rows[0]?.id ?? 'none'], world.storeEnv);
      pps = {};
      await poll();
      const all = await runCli(['incidents', '--format', 'json'], world.storeEnv);
      const none = await runCli(['incidents', '--open'], world.storeEnv);
      const table = await runCli(['incidents'], world.storeEnv);

      // Assess
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ kind: 'rule', rule: 'flood', state: 'open' });
      expect(rows[0]!.networks.map((n) => n.network).sort()).toEqual(['edge-1', 'edge-2', 'edge-3']);
      expect(show.code, describeRun(show)).toBe(0);
      expect(show.stdout).toContain(`incident ${rows[0]!.id}`);
      expect(show.stdout).toMatch(/edge-1\s+\|?\s*1200000/);
      expect(show.stdout).toMatch(/alerts: 1 sent, 0 suppressed/);
      const resolved = parseJsonOutput<Row[]>(all);
      expect(resolved).toEqual([
        expect.objectContaining({ id: rows[0]!.id, state: 'resolved', resolvedAt: expect.any(String) }),
      ]);
      expect(resolved[0]!.networks.find((n) => n.network === 'edge-1')?.peak).toBe(1_200_000);
      expect(none.stdout.trim()).toBe('no open incident');
      expect(table.stdout).toMatch(/flood\s.*resolved.*1\.2M on edge-1/);
      // What the topic received: one opened, one resolved; no per-network alert.
      const events = world.sns.publishes.map((p) => p.attributes['event']);
      expect(events).toEqual(['incident.opened', 'incident.resolved']);
    },
    cliTestTimeout(8),
  );

  it(
    'incidents show of an unknown id exits 1 and says so',
    async () => {
      const run = await runCli(['incidents', 'show', 'nope@2026'], world.storeEnv);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('no incident nope@2026');
    },
    cliTestTimeout(1),
  );
});
