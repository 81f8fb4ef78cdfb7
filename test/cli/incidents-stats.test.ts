/**
 * `incidents show` with its acknowledgement and `incidents --stats` as real CLI processes (issue 31.4, 31.6):
 * polls against a loopback API whose networks are attacked open a rule incident; `ack --note` acknowledges it;
 * `show` prints who, when and the note, before and after it resolves; `--stats` gives its time to acknowledge
 * and to resolve (equal to the listed times), a second, open incident counted apart; a bad --since exits 2.
 */
import { userInfo } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResponseStats } from '../../lambda/core/incidents/response-times.ts';
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
  state: string;
  openedAt: string;
  resolvedAt?: string;
  acknowledged?: { by: string; at: string; note?: string };
}

type Stats = ResponseStats & { since: string; until: string };

async function exits(code: number, run: Promise<CliRun>): Promise<CliRun> {
  const done = await run;
  expect(done.code, describeRun(done)).toBe(code);
  return done;
}

describe('shieldwatch incidents show (acknowledgement) and incidents --stats', () => {
  let world: World;
  let pps: Record<string, number>;

  beforeEach(async () => {
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
        SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
      },
    });
    pps = {};
    world.api.network = (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 } } } });
  });
  afterEach(async () => {
    await world.close();
  });

  const poll = () => exits(0, runCli(['poll'], world.env));

  it(
    'show prints who acknowledged, when and the note; --stats times it and counts an open one apart',
    async () => {
      // Prepare: an attack opens an incident, acknowledged with a note, then resolved; a second one opens.
      await poll();
      pps = { 'edge-1': 900_000 };
      await poll();
      const id = world.sns.publishes.find((p) => p.attributes['event'] === 'incident.opened')!.attributes[
        'incident'
      ]!;
      await exits(0, runCli(['ack', id, '--note', 'scrubbing upstream'], world.storeEnv));

      // Act
      const openShow = await exits(0, runCli(['incidents', 'show', id], world.storeEnv));
      pps = {};
      await poll();
      const resolvedShow = await exits(0, runCli(['incidents', 'show', id], world.storeEnv));
      const rows = parseJsonOutput<Row[]>(await runCli(['incidents', '--format', 'json'], world.storeEnv));
      pps = { 'edge-2': 800_000 };
      await poll();
      const json = await exits(0, runCli(['incidents', '--stats', '--format', 'json'], world.storeEnv));
      const table = await exits(0, runCli(['incidents', '--stats', '--since', '1h'], world.storeEnv));

      // Assess: who, when, the note, in the header and on the timeline's line
      const user = userInfo().username;
      const row = rows.find((r) => r.id === id)!;
      expect(row).toMatchObject({
        state: 'resolved',
        acknowledged: { by: user, note: 'scrubbing upstream' },
      });
      const ackAt = row.acknowledged!.at;
      for (const show of [openShow, resolvedShow]) {
        expect(show.stdout).toMatch(
          new RegExp(
            `^ {2}acked by: {2}${user} at ${ackAt.replace(/\./g, '\\.')} \\(\\d+s after it opened\\)$`,
            'm',
          ),
        );
        expect(show.stdout).toMatch(/^ {2}ack note: {2}scrubbing upstream$/m);
        expect(show.stdout).toMatch(new RegExp(`acknowledged by ${user} - scrubbing upstream$`, 'm'));
      }
      expect(openShow.stdout).toMatch(/^ {2}state: {5}acknowledged by /m);
      expect(resolvedShow.stdout).toMatch(/^ {2}state: {5}resolved$/m);

      // The figures: this incident's times exactly as listed, the open one apart.
      const stats = parseJsonOutput<Stats>(json);
      const mine = stats.incidents.find((t) => t.id === id)!;
      expect(mine.timeToAcknowledgeMs).toBe(Date.parse(ackAt) - Date.parse(row.openedAt));
      expect(mine.timeToResolveMs).toBe(Date.parse(row.resolvedAt!) - Date.parse(row.openedAt));
      expect(stats).toMatchObject({
        percentiles: 'nearest-rank',
        count: 2,
        open: 1,
        resolved: 1,
        byKind: [{ kind: 'rule', count: 2, open: 1, resolved: 1 }],
        byRule: [{ rule: 'flood', kind: 'rule', count: 2, open: 1, resolved: 1 }],
        timeToAcknowledge: {
          count: 1,
          medianMs: mine.timeToAcknowledgeMs,
          worstMs: mine.timeToAcknowledgeMs,
        },
        timeToResolve: { count: 1, medianMs: mine.timeToResolveMs, p90Ms: mine.timeToResolveMs },
        notAcknowledged: { resolved: 0, open: 1 },
        openSoFar: { count: 1 },
      });
      // --stats reads the last 30 days when --since is not given.
      expect(Date.parse(stats.until) - Date.parse(stats.since)).toBe(30 * 86_400_000);
      expect(table.stdout).toMatch(
        /^incidents open or ended since \S+ \(until \S+\): 2, 1 open, 1 resolved$/m,
      );
      expect(table.stdout).toMatch(/^flood +rule +2 +1 +1$/m);
      expect(table.stdout).toMatch(/^to acknowledge +1 +\d+s +\d+s +\d+s$/m);
      expect(table.stdout).toMatch(/^to resolve \(duration\) +1 +\d+s/m);
      expect(table.stdout).toMatch(/^open so far \(apart\) +1 /m);
      expect(table.stdout).toContain('percentiles by nearest rank');
    },
    cliTestTimeout(11),
  );

  it(
    'a bad or future --since is a usage error (exit 2) that names it, before any store is read',
    async () => {
      const bad = await exits(2, runCli(['incidents', '--stats', '--since', 'last week'], world.storeEnv));
      const future = await exits(
        2,
        runCli(['incidents', '--stats', '--since', '2999-01-01T00:00:00Z'], world.storeEnv),
      );
      expect(bad.stderr).toContain(
        '--since must be a duration like 90s, 30m, 24h, 7d, 2w or an ISO date (got "last week")',
      );
      expect(future.stderr).toContain('--since 2999-01-01T00:00:00Z is in the future');
    },
    cliTestTimeout(2),
  );
});
