/**
 * `shieldwatch incidents` lists every kind of incident (CONTRACT §13), as real CLI processes: polls against a
 * loopback API on dynalite in which the filter goes away from the expected status, a network keeps answering
 * 404 (a blind spot), then the whole API fails; then everything comes back. The list, the JSON rows, `--open`,
 * `--since`, acknowledgement and `incidents show` of each kind.
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
  networks: { network: string; peak?: number; peakAt?: string }[];
  acknowledged?: { by: string; at: string; note?: string };
}

async function ok(running: Promise<CliRun>): Promise<CliRun> {
  const run = await running;
  expect(run.code, describeRun(run)).toBe(0);
  return run;
}

// One test after the other: each builds on the store the one before left.
describe('shieldwatch incidents of every kind', () => {
  let world: World;
  let filterStatus = 'active';
  let edge2Fails = false;
  let apiDown = false;
  const poll = () => ok(runCli(['poll'], world.env));
  const list = async (...args: string[]) =>
    parseJsonOutput<Row[]>(await ok(runCli(['incidents', ...args, '--format', 'json'], world.storeEnv)));

  beforeAll(async () => {
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
        SHIELDWATCH_EXPECTED_STATUS: 'active',
        SHIELDWATCH_ALERT_AFTER: '1',
        SHIELDWATCH_RETRIES: '0',
      },
      api: {
        filter: () => (apiDown ? { status: 503 } : { body: { status: filterStatus } }),
        network: (id) =>
          apiDown
            ? { status: 503 }
            : id === 'edge-2' && edge2Fails
              ? { status: 404, body: { error: 'not_found' } }
              : { body: { traffic: { in: { pps: 10 } } } },
      },
    });
  });
  afterAll(async () => {
    await world.close();
  });

  it(
    'a status away and a network unreachable: both open, the blind spot with its network, then acknowledged',
    async () => {
      // Prepare: a quiet cycle, then the filter goes away from "active" and edge-2 answers 404.
      await poll();
      filterStatus = 'mitigating';
      edge2Fails = true;
      await poll();

      // Act
      const open = await list('--open');
      const table = await ok(runCli(['incidents'], world.storeEnv));
      const blind = open.find((r) => r.kind === 'network');
      const show = await ok(runCli(['incidents', 'show', blind?.id ?? '?'], world.storeEnv));
      await ok(runCli(['ack', blind?.id ?? '?', '--note', 'provider ticket'], world.storeEnv));
      const acked = await list('--open');

      // Assess
      expect(open).toEqual([
        {
          id: expect.stringMatching(/^filter\.status_changed\//),
          kind: 'status',
          state: 'open',
          openedAt: expect.any(String),
          networks: [],
        },
        {
          id: expect.stringMatching(/^network\.unreachable\/0\//),
          kind: 'network',
          state: 'open',
          openedAt: expect.any(String),
          networks: [{ network: 'edge-2' }],
        },
      ]);
      expect(table.stdout).toMatch(/^filter\.status_changed\/\S+\s+status away: "mitigating"\s+open\s/m);
      expect(table.stdout).toMatch(/^network\.unreachable\/0\/\S+\s+network unreachable\s+open\s.*\s1\s+-$/m);
      expect(show.stdout).toContain(`incident ${blind?.id}`);
      expect(show.stdout).toContain('  kind:      network: network unreachable');
      expect(show.stdout).toMatch(/^edge-2\s+\|?\s*\d{4}-\d\d-\d\dT\S+Z\s+\|?\s*-/m);
      expect(show.stdout).toMatch(/opened(?: \(1\))? - edge-2 \(client, HTTP 404\)/);
      expect(show.stdout).toMatch(/alerts: 1 sent, 0 suppressed/);
      expect(acked.find((r) => r.id === blind?.id)).toMatchObject({
        state: 'acknowledged',
        acknowledged: { by: expect.any(String), note: 'provider ticket' },
      });
    },
    cliTestTimeout(8),
  );

  it(
    'the API down: its incident opens beside the others, shown with its error',
    async () => {
      // Prepare
      apiDown = true;
      await poll();

      // Act
      const open = await list('--open');
      const api = open.find((r) => r.kind === 'api');
      const show = await ok(
        runCli(['incidents', 'show', api?.id ?? '?', '--format', 'json'], world.storeEnv),
      );

      // Assess
      expect(open.map((r) => r.kind)).toEqual(['status', 'network', 'api']);
      expect(api).toMatchObject({
        id: expect.stringMatching(/^api\.unreachable\//),
        state: 'open',
        networks: [],
      });
      expect(api?.rule).toBeUndefined();
      expect(parseJsonOutput<Record<string, unknown>>(show)).toMatchObject({
        id: api?.id,
        kind: 'api',
        about: 'API unreachable',
        detail: expect.stringContaining('503'),
        timeline: [{ what: 'opened' }],
        alerts: [{ event: 'api.unreachable' }],
      });
    },
    cliTestTimeout(3),
  );

  it(
    'everything back: each resolved at its end, none open, none ended since a later --since',
    async () => {
      // Prepare
      const before = await list('--open');
      apiDown = false;
      filterStatus = 'active';
      edge2Fails = false;
      await poll();
      await sleep(5);
      const later = new Date().toISOString();

      // Act
      const all = await list();
      const none = await ok(runCli(['incidents', '--open'], world.storeEnv));
      const since = await ok(runCli(['incidents', '--since', later], world.storeEnv));
      const status = all.find((r) => r.kind === 'status');
      const show = await ok(runCli(['incidents', 'show', status?.id ?? '?'], world.storeEnv));

      // Assess: the same three incidents, by id, oldest first, each resolved after it opened.
      expect(all.map((r) => r.id)).toEqual(before.map((r) => r.id));
      for (const row of all) {
        expect(row.state, row.id).toBe('resolved');
        expect(row.resolvedAt! > row.openedAt, row.id).toBe(true);
      }
      expect(none.stdout.trim()).toBe('no open incident');
      expect(since.stdout.trim()).toBe('no incident');
      expect(show.stdout).toMatch(/ opened - status "mitigating"$/m);
      expect(show.stdout).toMatch(/resolved - status "active"/);
      expect(show.stdout).toMatch(/alerts: 2 sent, 0 suppressed/);
    },
    cliTestTimeout(7),
  );
});
