/**
 * `shieldwatch silence --start ... --repeat ...` seen from outside (issue 33, docs/silences.md): a window
 * created, listed with its next occurrence (table and JSON), cancelled; bad input refused with exit 2 and
 * nothing stored; a hand-edited item reported by `silence list` and silencing nothing. Real CLI processes
 * against dynalite on loopback.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { cliTestTimeout, describeRun, parseJsonOutput, runCli, startWorld } from './helpers.ts';

interface Entry {
  id: string;
  kind?: string;
  status: string;
  repeat?: string;
  tz?: string;
  notify?: boolean;
  nextStartsAt?: string;
  problem?: string;
}

describe('shieldwatch silence: maintenance windows', () => {
  it(
    'create, list with the next occurrence, cancel; bad input changes nothing; an edited item is reported',
    async () => {
      const world = await startWorld();
      try {
        await runCli(['poll'], world.env);
        const list = async () => {
          const done = await runCli(['silence', 'list', '--format', 'json'], world.storeEnv);
          expect(done.code, describeRun(done)).toBe(0);
          return { entries: parseJsonOutput<Entry[]>(done), stderr: done.stderr };
        };

        // Bad input: exit 2, naming the option; nothing stored.
        for (const [args, message] of [
          [['--tz', 'Mars/Olympus'], /--tz "Mars\/Olympus" is no IANA time zone/],
          [['--repeat', 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30'], /never occurs/],
          [['--repeat', 'FREQ=HOURLY'], /occurs more often than --for 2h/],
          [['--start', '2099-01-01T00:00Z'], /more than 90 days ahead/],
        ] as const) {
          const bad = await runCli(['silence', '--start', '02:00', '--for', '2h', ...args], world.storeEnv);
          expect(bad.code, describeRun(bad)).toBe(2);
          expect(bad.stderr).toMatch(message);
        }
        const tooLong = await runCli(
          ['silence', '--start', '02:00', '--for', '8d', '--repeat', 'weekly'],
          world.storeEnv,
        );
        expect(tooLong.code).toBe(2);
        expect((await list()).entries).toEqual([]);

        // Create: weekly Sunday 02:00 Berlin, with notices.
        const created = await runCli(
          [
            'silence',
            '--start',
            '02:00',
            '--for',
            '2h',
            '--repeat',
            'FREQ=WEEKLY;BYDAY=SU',
            '--tz',
            'Europe/Berlin',
            '--notify',
            '--reason',
            'filter update',
          ],
          world.storeEnv,
        );
        expect(created.code, describeRun(created)).toBe(0);
        const id = /window (s-[a-z2-7]{8}) repeats/.exec(created.stdout)?.[1];
        expect(id, created.stdout).toBeDefined();

        const { entries } = await list();
        expect(entries).toEqual([
          expect.objectContaining({
            id,
            kind: 'window',
            repeat: 'FREQ=WEEKLY;BYDAY=SU',
            tz: 'Europe/Berlin',
            notify: true,
          }),
        ]);
        const next = new Date(entries[0]!.nextStartsAt ?? '');
        // A Sunday, at 02:00 Berlin: 01:00 UTC in winter, 00:00 UTC in summer.
        expect(next.getUTCDay()).toBe(0);
        expect(['01:00', '00:00']).toContain(next.toISOString().slice(11, 16));
        const table = await runCli(['silence', 'list'], world.storeEnv);
        expect(table.stdout).toContain(id!);
        expect(table.stdout).toContain('FREQ=WEEKLY;BYDAY=SU');

        // Ending with no occurrence under way changes nothing; cancel removes it; a second cancel finds none.
        const end = await runCli(['silence', 'end', id!], world.storeEnv);
        expect(end.code, describeRun(end)).toBe(0);
        expect(end.stdout).toContain('no occurrence under way');
        expect((await runCli(['silence', 'cancel', id!], world.storeEnv)).code).toBe(0);
        expect((await list()).entries).toEqual([]);
        expect((await runCli(['silence', 'cancel', id!], world.storeEnv)).code).toBe(1);

        // A window item edited by hand into nonsense: reported, read as absent.
        await world.dynamo.client.send(
          new PutItemCommand({
            TableName: world.dynamo.table,
            Item: marshall({
              pk: 'silence',
              sk: 's-eeeeeeee',
              kind: 'window',
              id: 's-eeeeeeee',
              localStart: '2026-01-01T02:00:00',
              tz: 'Nowhere/Land',
              durationMs: 3_600_000,
              pattern: '*',
              createdAt: '2026-01-01T00:00:00Z',
            }),
          }),
        );
        const after = await list();
        expect(after.entries).toEqual([
          { id: 's-eeeeeeee', status: 'invalid', problem: expect.stringContaining('tz') },
        ]);
        expect(after.stderr).toContain('s-eeeeeeee is ignored (silences nothing)');
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(20),
  );
});
