/**
 * `shieldwatch status` and `shieldwatch events` show the monitor as its own cycles left it (issue 22.3, 22.4):
 * real poll cycles (loopback API, dynalite, a fake SNS that fails on demand) with a traffic rule trigger it,
 * keep its alert waiting through an SNS outage, and run under a silence; `status` then reads the store with a
 * terminal whose SHIELDWATCH_NETWORKS names other networks than the monitor's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../cli/commands/status.ts';
import type { EventEntry } from '../../cli/entries.ts';
import {
  type CliRun,
  cliTestTimeout,
  describeRun,
  parseJsonOutput,
  runCli,
  startWorld,
  type World,
} from './helpers.ts';

const RULE = 'flood: traffic.in.pps > 50000';

async function ok(running: Promise<CliRun>): Promise<CliRun> {
  const run = await running;
  expect(run.code, describeRun(run)).toBe(0);
  return run;
}

// One test after the other: each builds on the store the one before left.
describe('shieldwatch status and events show the monitor as it is', () => {
  let world: World;
  const pps: Record<string, number> = { 'edge-1': 1200, 'edge-2': 3400 };
  let filterStatus = 'active';
  /** The terminal `status` runs in: the store, and networks that are not the monitor's. */
  let statusEnv: Record<string, string>;
  const poll = () => ok(runCli(['poll'], world.env));

  beforeAll(async () => {
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
        SHIELDWATCH_RULES: RULE,
        SHIELDWATCH_RETRIES: '0',
        // Each network's rule alert on its own: status lists open rule incidents network by network.
        SHIELDWATCH_GROUP_BY: 'none',
      },
      api: {
        filter: () => ({ body: { status: filterStatus } }),
        network: (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 0 } } } }),
      },
    });
    statusEnv = { ...world.storeEnv, SHIELDWATCH_NETWORKS: 'local-only-9' };
  });
  afterAll(async () => {
    await world.close();
  });

  it(
    "a triggered rule: its rule, network, since when and the last value read; the monitor's networks and rules, not the terminal's",
    async () => {
      // Prepare: edge-1 floods for two cycles (the second reads a higher value).
      await poll();
      pps['edge-1'] = 90_000;
      await poll();
      pps['edge-1'] = 95_000;
      await poll();

      // Act
      const text = await ok(runCli(['status'], statusEnv));
      const json = parseJsonOutput<StatusReport>(await ok(runCli(['status', '--format', 'json'], statusEnv)));

      // Assess
      expect(text.stdout).toMatch(/^incidents {6}1 open$/m);
      expect(text.stdout).toMatch(
        /^ {2}flood\s+edge-1\s+OPEN\s+since \d{4}-\d\d-\d\dT[\d:.]+Z \(for \d+s\)\s+95000 at \d{4}-/m,
      );
      expect(text.stdout).not.toContain('none open');
      expect(text.stdout).toMatch(/^networks {7}2 polled by the monitor/m);
      expect(text.stdout).toMatch(/^ {2}edge-1\s+\d+s ago\s+ok\s+traffic\.in\.pps=95000/m);
      expect(text.stdout).toMatch(/^ {2}edge-2\s+\d+s ago\s+ok\s+traffic\.in\.pps=3400/m);
      expect(text.stdout).not.toContain('local-only-9');
      expect(text.stdout).toMatch(/^rules {10}1 in force\n {2}flood: traffic\.in\.pps > 50000$/m);
      expect(text.stdout).toContain('pending alerts none');

      expect(json.ruleIncidents).toEqual([
        expect.objectContaining({
          rule: 'flood',
          network: 'edge-1',
          value: 95_000,
          held: false,
          item: 'rules#0',
        }),
      ]);
      const [incident] = json.ruleIncidents;
      expect(Date.parse(incident?.since ?? '')).toBeLessThanOrEqual(Date.parse(json.at));
      expect(incident?.forMs).toBeGreaterThanOrEqual(0);
      expect(incident?.incident).toMatch(/flood/);
      expect(json.monitor).toMatchObject({ networks: ['edge-1', 'edge-2'], rules: [RULE] });
      expect(json.networksFrom).toBe('monitor');
      expect(json.networks.map((n) => n.id)).toEqual(['edge-1', 'edge-2']);
    },
    cliTestTimeout(5),
  );

  it(
    "an SNS outage: the alerts waiting in every outbox, the monitor's and the rule item's, counted per outbox",
    async () => {
      // Prepare: SNS refuses; edge-2 floods (a rule alert) and the filter status changes (a monitor alert).
      world.sns.mode = 'invalid-parameter';
      pps['edge-2'] = 70_000;
      filterStatus = 'mitigating';
      await poll();

      // Act
      const text = await ok(runCli(['status'], statusEnv));
      const json = parseJsonOutput<StatusReport>(await ok(runCli(['status', '--format', 'json'], statusEnv)));

      // Assess
      expect(text.stdout).toMatch(
        /^pending alerts 2 \(in the outbox, sent by the next cycle\): monitor 1, rules#0 1$/m,
      );
      expect(text.stdout).toMatch(
        /^ {2}rules#0\s+\d+\s+network\.rule_triggered\s+\S+\s+flood on edge-2: 70000\s+[1-9]\d*\s+InvalidParameter/m,
      );
      expect(text.stdout).toMatch(
        /^ {2}monitor\s+\d+\s+filter\.status_changed\s+\S+\s+"active" -> "mitigating"/m,
      );
      expect(text.stdout).toMatch(/^incidents {6}2 open$/m);
      expect(json.outboxes).toEqual([
        { outbox: 'monitor', pending: 1 },
        { outbox: 'rules#0', pending: 1 },
      ]);
      expect(json.pending.map((p) => [p.outbox, p.event, p.rule, p.network, p.value])).toEqual([
        ['monitor', 'filter.status_changed', null, null, null],
        ['rules#0', 'network.rule_triggered', 'flood', 'edge-2', 70_000],
      ]);
      expect(json.ruleIncidents.map((i) => [i.network, i.value])).toEqual([
        ['edge-1', 95_000],
        ['edge-2', 70_000],
      ]);
    },
    cliTestTimeout(3),
  );

  it(
    'a silence: shown with what it covers and the time left, in the table and in JSON',
    async () => {
      // Prepare: SNS back; a silence over the network alerts.
      world.sns.mode = 'ok';
      await poll();
      await ok(
        runCli(
          ['silence', '--for', '2h', '--event', 'network.*', '--reason', 'scrubbing test'],
          world.storeEnv,
        ),
      );

      // Act
      const text = await ok(runCli(['status'], statusEnv));
      const json = parseJsonOutput<StatusReport>(await ok(runCli(['status', '--format', 'json'], statusEnv)));

      // Assess
      expect(text.stdout).toMatch(/^silences {7}1 active \(matching alerts are recorded, not sent\)$/m);
      expect(text.stdout).toMatch(
        /^ {2}s-[a-z2-7]{8}\s+network\.\*\s+until \d{4}-[\d\-T:.]+Z \(1h 59m( \d+s)? left\)\s+scrubbing test$/m,
      );
      expect(text.stdout).toContain('pending alerts none');
      expect(json.silences).toEqual([
        expect.objectContaining({ status: 'active', pattern: 'network.*', reason: 'scrubbing test' }),
      ]);
      const [silence] = json.silences;
      expect(silence?.remainingMs).toBeGreaterThan(110 * 60_000);
      expect(silence?.remainingMs).toBeLessThanOrEqual(120 * 60_000);
      expect(json.pending).toEqual([]);
    },
    cliTestTimeout(4),
  );

  it(
    "--networks still picks the networks shown; the monitor's record stays in JSON",
    async () => {
      // Act
      const json = parseJsonOutput<StatusReport>(
        await ok(runCli(['status', '--networks', 'edge-2,edge-9', '--format', 'json'], statusEnv)),
      );

      // Assess
      expect(json.networksFrom).toBe('option');
      expect(json.networks.map((n) => [n.id, n.last?.ok ?? null])).toEqual([
        ['edge-2', true],
        ['edge-9', null],
      ]);
      expect(json.monitor.networks).toEqual(['edge-1', 'edge-2']);
    },
    cliTestTimeout(1),
  );

  it(
    'events lists every kind by default, rule alerts included; --event narrows to a name or a family',
    async () => {
      // Act
      const all = parseJsonOutput<EventEntry[]>(
        await ok(runCli(['events', '--format', 'json'], world.storeEnv)),
      );
      const table = await ok(runCli(['events'], world.storeEnv));
      const rules = parseJsonOutput<EventEntry[]>(
        await ok(runCli(['events', '--event', 'network.*', '--format', 'json'], world.storeEnv)),
      );
      const changes = parseJsonOutput<EventEntry[]>(
        await ok(runCli(['events', '--event', 'filter.status_changed', '--format', 'json'], world.storeEnv)),
      );
      const legacy = parseJsonOutput<EventEntry[]>(
        await ok(runCli(['events', '--all', '--format', 'json'], world.storeEnv)),
      );
      const none = await runCli(['events', '--event', 'nothing.*'], world.storeEnv);

      // Assess
      expect(all.map((e) => [e.event, e.network ?? e.to])).toEqual([
        ['network.rule_triggered', 'edge-1'],
        ['filter.status_changed', 'mitigating'],
        ['network.rule_triggered', 'edge-2'],
      ]);
      expect(all[0]).toMatchObject({ rule: 'flood', value: 90_000 });
      expect(table.stdout).toMatch(/network\.rule_triggered\s+flood on edge-1: 90000/);
      expect(rules.map((e) => e.network)).toEqual(['edge-1', 'edge-2']);
      expect(changes.map((e) => e.to)).toEqual(['mitigating']);
      expect(legacy).toEqual(all);
      expect(none.code, describeRun(none)).toBe(2);
      expect(none.stderr).toMatch(
        /--event: the pattern "nothing\.\*" matches no event; families: filter\.\*, api\.\*/,
      );
    },
    cliTestTimeout(6),
  );
});

describe('shieldwatch status with incidents across networks (SHIELDWATCH_GROUP_BY=rule, the default)', () => {
  let world: World;
  const pps: Record<string, number> = { 'edge-1': 1200, 'edge-2': 3400, 'edge-3': 10 };
  const poll = () => ok(runCli(['poll'], world.env));

  beforeAll(async () => {
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2,edge-3',
        SHIELDWATCH_RULES: RULE,
        SHIELDWATCH_RETRIES: '0',
      },
      api: {
        filter: () => ({ body: { status: 'active' } }),
        network: (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 0 } } } }),
      },
    });
  });
  afterAll(async () => {
    await world.close();
  });

  it(
    'one row per open incident (id, rule, since, networks with peaks), not one per network; acknowledged shown; JSON lists them with every member',
    async () => {
      // Prepare: edge-1 and edge-2 flood (edge-2 peaks then eases), then someone acknowledges the incident.
      await poll();
      pps['edge-1'] = 90_000;
      pps['edge-2'] = 120_000;
      await poll();
      pps['edge-2'] = 60_000;
      await poll();

      // Act
      const text = await ok(runCli(['status'], world.storeEnv));
      const json = parseJsonOutput<StatusReport>(
        await ok(runCli(['status', '--format', 'json'], world.storeEnv)),
      );
      const [incident] = json.groupedIncidents;
      await ok(runCli(['ack', incident?.id ?? '?', '--note', 'on it'], world.storeEnv));
      const acked = await ok(runCli(['status'], world.storeEnv));
      const ackedJson = parseJsonOutput<StatusReport>(
        await ok(runCli(['status', '--format', 'json'], world.storeEnv)),
      );

      // Assess
      expect(text.stdout).toMatch(/^incidents {6}1 open$/m);
      expect(text.stdout).toMatch(
        /^ {2}flood@\S+\s+flood\s+OPEN\s+since \d{4}-\d\d-\d\dT[\d:.]+Z \(for \d+s\)\s+2: edge-1 peak 90000, edge-2 peak 120000$/m,
      );
      // The rule's per-network rows are folded into the incident's row.
      expect(text.stdout).not.toMatch(/^ {2}flood\s+edge-1\s+OPEN/m);
      expect(json.groupedIncidents).toEqual([
        {
          id: expect.stringMatching(/^flood@\d{4}-/),
          rule: 'flood',
          state: 'open',
          since: expect.any(String),
          forMs: expect.any(Number),
          stage: 1,
          networks: [
            expect.objectContaining({ network: 'edge-1', active: true, peak: 90_000 }),
            expect.objectContaining({ network: 'edge-2', active: true, peak: 120_000 }),
          ],
          acknowledged: null,
        },
      ]);
      expect(incident?.since).toBe(incident?.id.slice('flood@'.length));
      // The per-network view stays in JSON.
      expect(json.ruleIncidents.map((i) => i.network)).toEqual(['edge-1', 'edge-2']);
      expect(acked.stdout).toMatch(/^ {2}flood@\S+\s+flood\s+ACKNOWLEDGED by \S+/m);
      expect(ackedJson.groupedIncidents[0]).toMatchObject({
        state: 'acknowledged',
        acknowledged: { by: expect.any(String), at: expect.any(String), note: 'on it' },
      });
    },
    cliTestTimeout(8),
  );

  it(
    'the incident resolved: none open, no grouped row',
    async () => {
      // Prepare
      pps['edge-1'] = 100;
      pps['edge-2'] = 100;
      await poll();

      // Act
      const text = await ok(runCli(['status'], world.storeEnv));
      const json = parseJsonOutput<StatusReport>(
        await ok(runCli(['status', '--format', 'json'], world.storeEnv)),
      );

      // Assess
      expect(text.stdout).toMatch(/^incidents {6}none open$/m);
      expect(json.groupedIncidents).toEqual([]);
      expect(json.ruleIncidents).toEqual([]);
    },
    cliTestTimeout(3),
  );
});

describe('shieldwatch status with a blind spot open (a network whose own request keeps failing)', () => {
  let world: World;
  let failing = true;
  const poll = () => ok(runCli(['poll'], world.env));

  beforeAll(async () => {
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
        SHIELDWATCH_RULES: RULE,
        SHIELDWATCH_RETRIES: '0',
        SHIELDWATCH_ALERT_AFTER: '2',
      },
      api: {
        filter: () => ({ body: { status: 'active' } }),
        // edge-2 answers 404 while the API (the filter, edge-1) answers: edge-2 alone is blind.
        network: (id) =>
          id === 'edge-2' && failing
            ? { status: 404, body: { error: 'not_found' } }
            : { body: { traffic: { in: { pps: 10 } } } },
      },
    });
  });
  afterAll(async () => {
    await world.close();
  });

  it(
    'after ALERT_AFTER failed cycles: the incident (id, kind, the network and how it fails, since), its waiting alert, then acknowledged',
    async () => {
      // Prepare: two failed cycles of edge-2, the second (the crossing one) with SNS refusing.
      await poll();
      world.sns.mode = 'invalid-parameter';
      await poll();

      // Act
      const text = await ok(runCli(['status'], world.storeEnv));
      const json = parseJsonOutput<StatusReport>(
        await ok(runCli(['status', '--format', 'json'], world.storeEnv)),
      );
      world.sns.mode = 'ok';
      await poll();
      const [incident] = json.networkIncidents;
      await ok(runCli(['ack', incident?.id ?? '?', '--note', 'provider ticket'], world.storeEnv));
      const acked = await ok(runCli(['status'], world.storeEnv));

      // Assess
      expect(text.stdout).toMatch(/^incidents {6}1 open$/m);
      expect(text.stdout).toMatch(
        /^ {2}network\.unreachable\/0\/\S+\s+unreachable\s+OPEN\s+since \d{4}-\d\d-\d\dT[\d:.]+Z \(for \d+s\)\s+1: edge-2 \(client, HTTP 404\)$/m,
      );
      expect(text.stdout).toMatch(
        /^pending alerts 1 \(in the outbox, sent by the next cycle\): health#0 1$/m,
      );
      expect(text.stdout).toMatch(/^ {2}health#0\s+\d+\s+network\.unreachable\s/m);
      expect(json.networkIncidents).toEqual([
        {
          id: expect.stringMatching(/^network\.unreachable\/0\//),
          kind: 'unreachable',
          shard: 0,
          rule: null,
          path: null,
          since: expect.any(String),
          forMs: expect.any(Number),
          stage: 1,
          networks: [
            { network: 'edge-2', since: expect.any(String), cycles: 2, failure: 'client', httpStatus: 404 },
          ],
          acknowledged: null,
        },
      ]);
      expect(json.outboxes).toEqual([{ outbox: 'health#0', pending: 1 }]);
      expect(acked.stdout).toMatch(/^ {2}network\.unreachable\/0\/\S+\s+unreachable\s+ACKNOWLEDGED by \S+/m);
    },
    cliTestTimeout(9),
  );

  it(
    'edge-2 answers again: the incident is gone',
    async () => {
      // Prepare
      failing = false;
      await poll();

      // Act
      const text = await ok(runCli(['status'], world.storeEnv));
      const json = parseJsonOutput<StatusReport>(
        await ok(runCli(['status', '--format', 'json'], world.storeEnv)),
      );

      // Assess
      expect(text.stdout).toMatch(/^incidents {6}none open$/m);
      expect(text.stdout).not.toContain('network.unreachable/');
      expect(json.networkIncidents).toEqual([]);
    },
    cliTestTimeout(3),
  );
});
