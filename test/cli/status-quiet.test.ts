/**
 * A silence in the present of `shieldwatch status` (issue 31.3; CONTRACT §15): real CLI processes against dynalite,
 * a fake SNS and a loopback API. `silence --for 2h --reason ...` over every alert while an attack opens an
 * incident: `status` still shows the incident open, and right under the filter status the silence with its
 * pattern, end, time left and reason (JSON `quiet.active`, the same end as `silence list`); once the silence is
 * ended, neither.
 */
import { describe, expect, it } from 'vitest';
import type { StatusReport } from '../../cli/status/report-types.ts';
import { type CliRun, cliTestTimeout, describeRun, parseJsonOutput, runCli, startWorld } from './helpers.ts';

async function ok(run: Promise<CliRun>): Promise<CliRun> {
  const done = await run;
  expect(done.code, describeRun(done)).toBe(0);
  return done;
}

describe('shieldwatch status during a silence', () => {
  it(
    "shows the active silence's pattern, end and reason under the filter status, the incident it hides still open",
    async () => {
      // Prepare: a quiet cycle, a silence over everything, then an attack.
      const world = await startWorld({
        settings: { SHIELDWATCH_NETWORKS: 'edge-1', SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k' },
      });
      let pps = 100;
      world.api.network = () => ({ body: { traffic: { in: { pps } } } });
      try {
        await ok(runCli(['poll'], world.env));
        await ok(runCli(['silence', '--for', '2h', '--reason', 'filter update'], world.storeEnv));
        const [silence] = parseJsonOutput<Array<{ id: string; endsAt: string }>>(
          await ok(runCli(['silence', 'list', '--format', 'json'], world.storeEnv)),
        );
        pps = 900_000;
        await ok(runCli(['poll'], world.env));

        // Act
        const text = await ok(runCli(['status'], world.storeEnv));
        const json = parseJsonOutput<StatusReport>(
          await ok(runCli(['status', '--format', 'json'], world.storeEnv)),
        );
        await ok(runCli(['silence', 'end', silence!.id], world.storeEnv));
        const after = await ok(runCli(['status'], world.storeEnv));
        const afterJson = parseJsonOutput<StatusReport>(
          await ok(runCli(['status', '--format', 'json'], world.storeEnv)),
        );

        // Assess: the present names the silence, in the block of the filter status (before the networks).
        const present = text.stdout.split('\n\n')[0]!;
        expect(present).toMatch(
          new RegExp(
            `^ {2}silenced {5}\\* until ${silence!.endsAt.replace(/\./g, '\\.')} \\(1h 59m( \\d+s)? left\\), reason: filter update \\(${silence!.id}: matching alerts are recorded, not sent\\)$`,
            'm',
          ),
        );
        expect(text.stdout).toMatch(/^incidents {6}1 open$/m);
        expect(json.quiet.active).toMatchObject({
          id: silence!.id,
          status: 'active',
          pattern: '*',
          reason: 'filter update',
          endsAt: silence!.endsAt,
        });
        expect(json.quiet.next).toBeNull();
        expect(json.groupedIncidents).toHaveLength(1);
        // Nothing reached the topic: the opening was suppressed.
        expect(world.sns.publishes).toEqual([]);
        // Ended: the present says nothing of it any more.
        expect(after.stdout).not.toMatch(/silenced|next quiet/);
        expect(after.stdout).toMatch(/^silences {7}none active$/m);
        expect(afterJson.quiet).toEqual({ active: null, next: null });
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(9),
  );

  it(
    'a maintenance window declared in SHIELDWATCH_MAINTENANCE: the occurrence under way and the next; a bad one exits 2',
    async () => {
      // Prepare: a daily window that started 10 minutes ago (UTC), for an hour.
      const world = await startWorld({ settings: { SHIELDWATCH_NETWORKS: 'edge-1' } });
      world.api.network = () => ({ body: { traffic: { in: { pps: 100 } } } });
      const started = new Date(Math.floor((Date.now() - 10 * 60_000) / 60_000) * 60_000);
      const hhmm = started.toISOString().slice(11, 16);
      const windows = JSON.stringify([
        { start: hhmm, for: '1h', repeat: 'daily', tz: 'UTC', event: '*', reason: 'daily filter update' },
      ]);
      try {
        await ok(runCli(['poll'], world.env));

        // Act
        const env = { ...world.storeEnv, SHIELDWATCH_MAINTENANCE: windows };
        const text = await ok(runCli(['status'], env));
        const json = parseJsonOutput<StatusReport>(await ok(runCli(['status', '--format', 'json'], env)));
        const bad = await runCli(['status'], {
          ...world.storeEnv,
          SHIELDWATCH_MAINTENANCE: '[{"start":"25:00"}]',
        });

        // Assess: today's occurrence ends an hour after it started; tomorrow's is next.
        const ends = new Date(started.getTime() + 3_600_000).toISOString();
        const tomorrow = new Date(started.getTime() + 86_400_000).toISOString();
        expect(json.quiet.active).toMatchObject({
          status: 'active',
          pattern: '*',
          reason: 'daily filter update',
          endsAt: ends,
        });
        expect(json.quiet.next).toMatchObject({ status: 'pending', startsAt: tomorrow });
        const present = text.stdout.split('\n\n')[0]!;
        expect(present).toContain(`  silenced     * until ${ends} (`);
        expect(present).toContain('reason: daily filter update');
        expect(present).toContain(`  next quiet   * from ${tomorrow} until `);
        expect(bad.code, describeRun(bad)).toBe(2);
        expect(bad.stderr).toContain('SHIELDWATCH_MAINTENANCE');
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(4),
  );
});
