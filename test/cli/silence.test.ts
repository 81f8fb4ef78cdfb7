/**
 * `shieldwatch silence` seen from outside (docs/silences.md): a silence, a status change inside it recorded as
 * suppressed and never published, `events --all` showing it with the silence id, ending the silence, and the
 * next change published; bad durations and patterns refused. Real CLI processes against dynalite, a fake SNS
 * and a fake protection API, all on loopback.
 */
import { describe, expect, it } from 'vitest';
import {
  type CliRun,
  cliTestTimeout,
  describeRun,
  parseJsonOutput,
  runCli,
  startWorld,
  type World,
} from './helpers.ts';

interface SilenceEntry {
  id: string;
  status: string;
  startsAt: string;
  endsAt: string;
  pattern: string;
  reason?: string;
  createdBy?: string;
  remainingMs: number;
}

interface EventEntry {
  event: string;
  from?: string;
  to?: string;
  suppressedBy?: string;
}

async function ok(run: Promise<CliRun>): Promise<CliRun> {
  const done = await run;
  expect(done.code, describeRun(done)).toBe(0);
  return done;
}

const list = async (world: World) =>
  parseJsonOutput<SilenceEntry[]>(await ok(runCli(['silence', 'list', '--format', 'json'], world.storeEnv)));

// One test at a time: on two cores, tests running at once only lengthen each other's CLI processes.
describe('shieldwatch silence', () => {
  it(
    'silence, a change inside it suppressed, events --all shows it, end, the next change published',
    async () => {
      // Prepare
      const world = await startWorld();
      let status = 'enforcing';
      world.api.filter = () => ({ body: { status } });
      try {
        await ok(runCli(['poll'], world.env));

        // Act: a silence for planned work, then a change inside it.
        const created = await ok(
          runCli(
            ['silence', '--for', '2h', '--reason', 'router swap', '--event', 'filter.*'],
            world.storeEnv,
          ),
        );
        const [silence] = await list(world);
        status = 'bypassed';
        const during = await ok(runCli(['poll'], world.env));
        const table = await ok(runCli(['events', '--all'], world.storeEnv));
        const json = parseJsonOutput<EventEntry[]>(
          await ok(runCli(['events', '--all', '--format', 'json'], world.storeEnv)),
        );
        const publishedDuring = world.sns.publishes.length;
        const ended = await ok(runCli(['silence', 'end', silence!.id], world.storeEnv));
        const afterEnd = await list(world);
        await ok(runCli(['poll'], world.env));
        const publishedAfterEnd = world.sns.publishes.length;
        status = 'enforcing';
        await ok(runCli(['poll'], world.env));

        // Assess
        expect(created.stdout).toContain(`silence ${silence!.id} active until ${silence!.endsAt} (2h)`);
        expect(created.stdout).toContain(`shieldwatch silence end ${silence!.id}`);
        expect(silence).toMatchObject({
          status: 'active',
          pattern: 'filter.*',
          reason: 'router swap',
          remainingMs: expect.any(Number),
        });
        expect(Date.parse(silence!.endsAt) - Date.parse(silence!.startsAt)).toBe(7_200_000);
        expect(silence!.remainingMs).toBeGreaterThan(7_100_000);
        expect(during.stdout).toContain(`1 silenced (${silence!.id})`);
        expect(publishedDuring).toBe(0);
        expect(json).toEqual([
          expect.objectContaining({
            event: 'filter.status_changed',
            to: 'bypassed',
            suppressedBy: silence!.id,
          }),
        ]);
        expect(table.stdout).toMatch(/silenced by/);
        expect(table.stdout).toContain(silence!.id);
        expect(ended.stdout).toContain(`silence ${silence!.id} ended at`);
        expect(afterEnd).toEqual([
          expect.objectContaining({ id: silence!.id, status: 'ended', remainingMs: 0 }),
        ]);
        // The change held back still holds when the silence ends: announced once (docs/silences.md).
        expect(publishedAfterEnd).toBe(1);
        expect(
          world.sns.publishes.map((p) => [p.attributes['event'], p.attributes['from'], p.attributes['to']]),
        ).toEqual([
          ['silence.still_holding', 'enforcing', 'bypassed'],
          ['filter.status_changed', 'bypassed', 'enforcing'],
        ]);
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(11),
  );

  it(
    'refuses more than 7 days, a pattern that matches no event, and an unknown subcommand, with exit 2',
    async () => {
      const world = await startWorld();
      try {
        const [long, pattern, sub, id] = await Promise.all([
          runCli(['silence', '--for', '8d'], world.storeEnv),
          runCli(['silence', '--for', '1h', '--event', 'netwrok.*'], world.storeEnv),
          runCli(['silence', 'lst'], world.storeEnv),
          runCli(['silence', 'end', 'not-an-id'], world.storeEnv),
        ]);
        expect(long.code).toBe(2);
        expect(long.stderr).toContain('--for 8d is longer than the longest silence, 7 days (7d)');
        expect(pattern.code).toBe(2);
        expect(pattern.stderr).toContain('--event: the event pattern "netwrok.*" matches no event; one of:');
        expect(pattern.stderr).toContain('network.rule_triggered');
        expect(sub.code).toBe(2);
        expect(sub.stderr).toContain('unknown subcommand "lst" (did you mean list?)');
        expect(id.code).toBe(2);
        expect(id.stderr).toContain('"not-an-id" is no silence id');
        expect(await list(world)).toEqual([]);
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(5),
  );

  it(
    'silence end of an unknown id exits 1; a second end says it had ended',
    async () => {
      const world = await startWorld();
      try {
        await ok(runCli(['silence', '--for', '30m'], world.storeEnv));
        const [silence] = await list(world);
        const unknown = await runCli(['silence', 'end', 's-aaaaaaaa'], world.storeEnv);
        await ok(runCli(['silence', 'end', silence!.id], world.storeEnv));
        const again = await ok(runCli(['silence', 'end', silence!.id], world.storeEnv));
        const table = await ok(runCli(['silence', 'list'], world.storeEnv));

        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain('no silence s-aaaaaaaa');
        expect(again.stdout).toContain('had already ended');
        expect(table.stdout).toMatch(new RegExp(`${silence!.id}\\s+ended\\s+\\*`));
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(6),
  );
});
