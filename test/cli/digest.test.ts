/**
 * `shieldwatch digest` as real CLI processes (issue 35.1, CONTRACT §19): polls against a loopback API whose
 * networks are attacked open a rule incident, acknowledged and resolved, then a second one left open; a silence
 * and a window declared in SHIELDWATCH_MAINTENANCE. The digest's JSON gives the same counts and times as the
 * listing, the text and the HTML say them; with no store here it exits 1 and creates none; a bad --since exits 2.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Digest } from '../../lambda/core/digest/digest.ts';
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
  acknowledged?: { by: string; at: string };
}

async function exits(code: number, run: Promise<CliRun>): Promise<CliRun> {
  const done = await run;
  expect(done.code, describeRun(done)).toBe(code);
  return done;
}

describe('shieldwatch digest', () => {
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
    'the period at a glance from cycles of the store: json, text and html agree with the listing',
    async () => {
      // Prepare: an attack on edge-1, acknowledged then resolved; one on edge-2 left open; a silence; a daily
      // window declared in SHIELDWATCH_MAINTENANCE (only for the digest) that started 10 minutes ago.
      await poll();
      pps = { 'edge-1': 900_000 };
      await poll();
      const first = world.sns.publishes.find((p) => p.attributes['event'] === 'incident.opened')!.attributes[
        'incident'
      ]!;
      await exits(0, runCli(['ack', first], world.storeEnv));
      await exits(0, runCli(['silence', '--for', '1h', '--reason', 'digest <check>'], world.storeEnv));
      pps = {};
      await poll();
      pps = { 'edge-2': 800_000 };
      await poll();
      const started = new Date(Math.floor((Date.now() - 10 * 60_000) / 60_000) * 60_000);
      const windows = JSON.stringify([
        { start: started.toISOString().slice(11, 16), for: '1h', repeat: 'daily', reason: 'nightly swap' },
      ]);
      const env = { ...world.storeEnv, SHIELDWATCH_MAINTENANCE: windows };

      // Act
      const rows = parseJsonOutput<Row[]>(await runCli(['incidents', '--format', 'json'], world.storeEnv));
      const digest = parseJsonOutput<Digest>(
        await exits(0, runCli(['digest', '--since', '1h', '--format', 'json'], env)),
      );
      const text = await exits(0, runCli(['digest', '--since', '1h'], env));
      const html = await exits(0, runCli(['digest', '--since', '1h', '--format', 'html'], env));

      // Assess: the period is the last hour, up to now.
      expect(Date.parse(digest.until) - Date.parse(digest.since)).toBe(3_600_000);
      expect(rows).toHaveLength(2);
      const resolved = rows.find((r) => r.id === first)!;
      expect(resolved.state).toBe('resolved');
      // Counts: two opened, one resolved, one open at the end; per kind and rule.
      expect(digest.incidents).toEqual({
        opened: 2,
        resolved: 1,
        openAtEnd: 1,
        byKind: [{ kind: 'rule', opened: 2, resolved: 1 }],
        byRule: [{ rule: 'flood', kind: 'rule', opened: 2, resolved: 1 }],
      });
      expect(digest.worstNetworks).toEqual([
        {
          rule: 'flood',
          networks: [
            expect.objectContaining({ network: 'edge-1', peak: 900_000, incident: first }),
            expect.objectContaining({ network: 'edge-2', peak: 800_000 }),
          ],
        },
      ]);
      // Times: the acknowledged one's exactly as listed; the open one never acknowledged.
      const toAck = Date.parse(resolved.acknowledged!.at) - Date.parse(resolved.openedAt);
      const toResolve = Date.parse(resolved.resolvedAt!) - Date.parse(resolved.openedAt);
      expect(digest.response).toEqual({
        timeToAcknowledge: { count: 1, medianMs: toAck, worstMs: toAck },
        timeToResolve: { count: 1, medianMs: toResolve, worstMs: toResolve },
        notAcknowledged: 1,
      });
      // Four cycles, each answered; the shares of the filter statuses sum to one.
      expect(digest.availability).toMatchObject({ cycles: 4, answeredCycles: 4, share: 1 });
      expect(digest.filter.statuses.length).toBeGreaterThan(0);
      expect(digest.filter.statuses.reduce((n, s) => n + s.share, 0)).toBeCloseTo(1, 9);
      // The silence and the declared window's occurrence under way.
      expect(digest.silences).toHaveLength(2);
      expect(digest.silences).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'silence', pattern: '*', reason: 'digest <check>' }),
          expect.objectContaining({
            kind: 'maintenance',
            startsAt: started.toISOString(),
            repeat: 'daily',
            reason: 'nightly swap',
            source: 'context',
          }),
        ]),
      );

      expect(text.stdout).toMatch(/^incidents: 2 opened, 1 resolved, 1 open at the end$/m);
      expect(text.stdout).toMatch(/^ {2}flood \(rule\): 2 opened, 1 resolved$/m);
      expect(text.stdout).toMatch(/^API availability: 100\.0% of cycles answered \(4 of 4\)/m);
      expect(text.stdout).toMatch(/^ {2}maintenance s-\S+ .*: nightly swap$/m);
      expect(html.stdout.startsWith('<!doctype html>')).toBe(true);
      expect(html.stdout).toContain('digest &#60;check&#62;');
      expect(html.stdout).not.toMatch(/<script|<link|https?:/i);
    },
    cliTestTimeout(10),
  );

  it(
    'with no store here it exits 1 saying so and creates none; a bad or future --since is a usage error',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'digest-nostore-'));
      try {
        const none = await exits(1, runCli(['digest'], {}, { cwd: dir }));
        const bad = await exits(2, runCli(['digest', '--since', 'last week'], world.storeEnv));
        const future = await exits(2, runCli(['digest', '--since', '2999-01-01'], world.storeEnv));
        expect(none.stderr).toContain('has no embedded store yet');
        expect(none.stdout).toBe('');
        expect(existsSync(join(dir, '.shieldwatch'))).toBe(false);
        expect(bad.stderr).toContain('--since must be a duration');
        expect(future.stderr).toContain('--since 2999-01-01 is in the future');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    cliTestTimeout(3),
  );
});
