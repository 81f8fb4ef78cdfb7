/**
 * Maintenance windows, pure (CONTRACT §17, docs/silences.md): occurrences keep their wall-clock time in their
 * zone across daylight-saving changes, bad requests are refused naming the option, stored items that are not
 * valid windows read as none, the notices are due once per occurrence.
 */
import { describe, expect, it } from 'vitest';
import { parseMaintenance } from '../../lambda/core/silences/maintenance-config.ts';
import { decideNotices, INITIAL_NOTICES } from '../../lambda/core/silences/maintenance-notices.ts';
import {
  activeAndNextWindow,
  currentOccurrence,
  type MaintenanceWindow,
  newWindow,
  nextOccurrence,
  occurrencesBetween,
  toWindow,
  windowSilences,
  withOccurrenceEnded,
} from '../../lambda/core/silences/maintenance-window.ts';
import { silenceFor } from '../../lambda/core/silences/silence.ts';

const ms = (iso: string) => Date.parse(iso);
const iso = (t: number) => new Date(t).toISOString();
const ID = 's-aaaaaaaa';

function made(request: Parameters<typeof newWindow>[0], now: string): MaintenanceWindow {
  const result = newWindow(request, ms(now), ID);
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.window;
}

describe('occurrences across daylight saving', () => {
  // Prepare: Sunday 02:00 Europe/Berlin, 2h, made in winter.
  const weekly = made(
    { start: '02:00', for: '2h', repeat: 'FREQ=WEEKLY;BYDAY=SU', tz: 'Europe/Berlin' },
    '2026-01-05T12:00:00Z',
  );

  it('Sunday 02:00 Berlin is 01:00 UTC in winter and 00:00 UTC in summer', () => {
    // Act
    const starts = occurrencesBetween(weekly, ms('2026-03-14T00:00:00Z'), ms('2026-04-13T00:00:00Z')).map(
      (o) => iso(o.startMs),
    );

    // Assess: the change to summer time is on Sunday 29 March 2026 at 02:00, a time that does not exist that
    // day: that occurrence starts when the clock jumps (03:00 CEST = 01:00 UTC).
    expect(starts).toEqual([
      '2026-03-15T01:00:00.000Z',
      '2026-03-22T01:00:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-04-05T00:00:00.000Z',
      '2026-04-12T00:00:00.000Z',
    ]);
  });

  it('back to winter time in October: 01:00 UTC again', () => {
    const starts = occurrencesBetween(weekly, ms('2026-10-17T00:00:00Z'), ms('2026-11-02T00:00:00Z')).map(
      (o) => iso(o.startMs),
    );
    expect(starts).toEqual([
      '2026-10-18T00:00:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-11-01T01:00:00.000Z',
    ]);
  });

  it('the occurrence is a silence exactly inside it, in both seasons', () => {
    const winter = windowSilences([weekly], ms('2026-01-11T01:30:00Z'));
    const summer = windowSilences([weekly], ms('2026-07-05T00:30:00Z'));
    const alert = (at: string) => ({ event: 'filter.status_changed' as const, at });
    expect(silenceFor(winter, alert('2026-01-11T01:30:00Z'))?.id).toBe(ID);
    expect(silenceFor(winter, alert('2026-01-11T00:59:59Z'))).toBeUndefined();
    expect(silenceFor(winter, alert('2026-01-11T03:00:00Z'))).toBeUndefined();
    expect(silenceFor(summer, alert('2026-07-05T00:30:00Z'))?.id).toBe(ID);
    // In summer 01:30 UTC is 03:30 Berlin: inside the 02:00-04:00 window.
    expect(silenceFor(summer, alert('2026-07-05T01:30:00Z'))?.id).toBe(ID);
    expect(silenceFor(summer, alert('2026-07-05T02:00:00Z'))).toBeUndefined();
  });

  it('America/New_York daily 09:00 moves from 14:00 UTC to 13:00 UTC on 8 March 2026', () => {
    const daily = made(
      { start: '2026-03-06T09:00', for: '30m', repeat: 'daily', tz: 'America/New_York' },
      '2026-03-01T00:00:00Z',
    );
    const starts = occurrencesBetween(daily, ms('2026-03-06T00:00:00Z'), ms('2026-03-10T00:00:00Z')).map(
      (o) => iso(o.startMs),
    );
    expect(starts).toEqual([
      '2026-03-06T14:00:00.000Z',
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
    ]);
  });
});

describe('rules', () => {
  it('the first Saturday of each month, 06:00 Berlin', () => {
    const monthly = made(
      { start: '06:00', for: '4h', repeat: 'FREQ=MONTHLY;BYDAY=1SA', tz: 'Europe/Berlin' },
      '2026-11-27T12:00:00Z',
    );
    const starts = occurrencesBetween(monthly, ms('2026-11-27T12:00:00Z'), ms('2027-04-30T00:00:00Z')).map(
      (o) => iso(o.startMs),
    );
    expect(starts).toEqual([
      '2026-12-05T05:00:00.000Z',
      '2027-01-02T05:00:00.000Z',
      '2027-02-06T05:00:00.000Z',
      '2027-03-06T05:00:00.000Z',
      '2027-04-03T04:00:00.000Z',
    ]);
  });

  it('weekdays skip the weekend; weekly repeats on the day of the first occurrence', () => {
    // 2026-11-27 is a Friday.
    const weekdays = made({ start: '08:00', for: '1h', repeat: 'weekdays' }, '2026-11-27T12:00:00Z');
    expect(
      occurrencesBetween(weekdays, ms('2026-11-27T12:00:00Z'), ms('2026-12-03T00:00:00Z')).map((o) =>
        iso(o.startMs),
      ),
    ).toEqual(['2026-11-30T08:00:00.000Z', '2026-12-01T08:00:00.000Z', '2026-12-02T08:00:00.000Z']);
    const weekly = made({ start: '2026-11-29T02:00', for: '1h', repeat: 'weekly' }, '2026-11-27T12:00:00Z');
    expect(weekly.rrule).toBe('FREQ=WEEKLY;BYDAY=SU');
  });

  it('COUNT ends the window: no next occurrence after the last', () => {
    const twice = made(
      { start: '2026-12-01T10:00Z', for: '1h', repeat: 'FREQ=DAILY;COUNT=2' },
      '2026-11-27T12:00:00Z',
    );
    expect(nextOccurrence(twice, ms('2026-12-01T12:00:00Z'))?.startMs).toBe(ms('2026-12-02T10:00:00Z'));
    expect(nextOccurrence(twice, ms('2026-12-02T12:00:00Z'))).toBeUndefined();
  });

  it('HH:MM is the next such time in the zone', () => {
    const once = made({ start: '02:00', for: '1h', tz: 'Europe/Berlin' }, '2026-11-27T12:00:00Z');
    expect(currentOccurrence(once, ms('2026-11-28T01:30:00Z'))?.startMs).toBe(ms('2026-11-28T01:00:00Z'));
  });
});

describe('bad requests: every problem, naming the option', () => {
  const now = '2026-11-27T12:00:00Z';
  it.each([
    ['an unknown zone', { for: '1h', tz: 'Mars/Olympus' }, /--tz "Mars\/Olympus" is no IANA time zone/],
    [
      'a rule that never occurs',
      { for: '1h', repeat: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' },
      /--repeat .* never occurs/,
    ],
    [
      'a rule whose COUNT is over',
      { start: '2025-01-01T00:00Z', for: '1h', repeat: 'FREQ=DAILY;COUNT=2' },
      /never occurs/,
    ],
    [
      'a rule more often than its duration',
      { for: '2h', repeat: 'FREQ=HOURLY' },
      /--repeat "FREQ=HOURLY" occurs more often than --for 2h/,
    ],
    ['a daily window of 25 hours', { for: '25h', repeat: 'daily' }, /occurs more often than --for 25h/],
    [
      'a one-off more than 90 days ahead',
      { start: '2027-03-01T00:00Z', for: '1h' },
      /--start .* more than 90 days ahead/,
    ],
    ['a one-off over already', { start: '2026-11-01T00:00Z', for: '1h' }, /--start .* is over already/],
    [
      'an occurrence longer than 7 days',
      { for: '8d', repeat: 'FREQ=MONTHLY' },
      /--for 8d is longer than an occurrence may last, 7 days/,
    ],
    [
      'a start that is no time',
      { start: 'tomorrow', for: '1h' },
      /--start must be an ISO-8601 time .* or HH:MM/,
    ],
    [
      'a rule that is no RRULE',
      { for: '1h', repeat: 'FREQ=FORTNIGHTLY' },
      /--repeat "FREQ=FORTNIGHTLY" is no RFC 5545 rule/,
    ],
    [
      'a rule with its own DTSTART',
      { for: '1h', repeat: 'DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY' },
      /may not hold DTSTART/,
    ],
    [
      'a pattern that matches no event',
      { for: '1h', repeat: 'daily', event: 'nothing.*' },
      /--event: the event pattern "nothing\.\*" matches no event/,
    ],
  ])('%s', (_name, request, message) => {
    const result = newWindow(request, ms(now), ID);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems.join('\n')).toMatch(message);
  });

  it('90 days ahead exactly is fine, a repeating window may start later', () => {
    expect(newWindow({ start: '2027-02-24T12:00Z', for: '1h' }, ms(now), ID).ok).toBe(true);
    expect(newWindow({ start: '2027-06-01T00:00Z', for: '1h', repeat: 'daily' }, ms(now), ID).ok).toBe(true);
  });
});

describe('a stored item read back', () => {
  const good = made(
    { start: '02:00', for: '2h', repeat: 'FREQ=WEEKLY;BYDAY=SU', tz: 'Europe/Berlin' },
    '2026-11-27T12:00:00Z',
  );
  const item = { pk: 'silence', sk: good.id, kind: 'window', ...good } as Record<string, unknown>;

  it('a valid window reads back as itself', () => {
    const read = toWindow(item);
    expect(read.ok && read.window).toEqual(good);
  });

  it.each([
    ['the zone edited to nonsense', { tz: 'Nowhere/Land' }, /tz/],
    ['the duration edited to a year', { durationMs: 365 * 86_400_000 }, /durationMs/],
    ['the duration removed', { durationMs: undefined }, /durationMs/],
    ['the rule edited to every minute', { rrule: 'FREQ=MINUTELY' }, /more often/],
    ['the rule edited to nonsense', { rrule: 'FREQ=SOMETIMES' }, /rrule/],
    ['the pattern removed', { pattern: undefined }, /pattern/],
    ['the start removed', { localStart: undefined }, /localStart/],
  ])('%s: no window (never "silence everything")', (_name, edit, problem) => {
    const read = toWindow({ ...item, ...edit });
    expect(read.ok).toBe(false);
    expect(read.ok ? '' : read.problem).toMatch(problem);
    expect(read.ok ? '' : read.id).toBe(good.id);
  });
});

describe('silence end of one occurrence', () => {
  const daily = made({ start: '2026-12-01T10:00Z', for: '2h', repeat: 'daily' }, '2026-11-27T12:00:00Z');
  it('ends that occurrence only: the next one is whole', () => {
    const endedAt = ms('2026-12-02T10:30:00Z');
    const ended = { ...daily, ended: withOccurrenceEnded(daily, ms('2026-12-02T10:00:00Z'), endedAt) };
    expect(currentOccurrence(ended, ms('2026-12-02T10:45:00Z'))).toBeUndefined();
    expect(currentOccurrence(ended, ms('2026-12-02T10:15:00Z'))?.endMs).toBe(endedAt);
    expect(currentOccurrence(ended, ms('2026-12-03T11:00:00Z'))).toEqual({
      startMs: ms('2026-12-03T10:00:00Z'),
      endMs: ms('2026-12-03T12:00:00Z'),
    });
  });
});

describe('activeAndNextWindow (for status, the report and the page)', () => {
  const daily = made(
    { start: '2026-12-01T10:00Z', for: '2h', repeat: 'daily', reason: 'backup' },
    '2026-11-27T12:00:00Z',
  );
  it('inside an occurrence: it, and the next one', () => {
    const now = ms('2026-12-02T11:00:00Z');
    const { active, next } = activeAndNextWindow(windowSilences([daily], now), now);
    expect(active).toMatchObject({
      id: ID,
      startsAt: '2026-12-02T10:00:00.000Z',
      endsAt: '2026-12-02T12:00:00.000Z',
      reason: 'backup',
    });
    expect(next?.startsAt).toBe('2026-12-03T10:00:00.000Z');
  });
  it('between occurrences: none active, the next one', () => {
    const now = ms('2026-12-02T13:00:00Z');
    const { active, next } = activeAndNextWindow(windowSilences([daily], now), now);
    expect(active).toBeUndefined();
    expect(next?.startsAt).toBe('2026-12-03T10:00:00.000Z');
  });
});

describe('notices: once per occurrence', () => {
  const daily = made(
    { start: '2026-12-01T10:00Z', for: '2h', repeat: 'daily', reason: 'backup', notify: true },
    '2026-11-27T12:00:00Z',
  );
  const at = (t: string) => ({ silences: windowSilences([daily], ms(t)), at: t });

  it('started inside, nothing more while inside, ended after, then started at the next one', () => {
    const steps = [
      '2026-12-01T09:59:00Z',
      '2026-12-01T10:00:00Z',
      '2026-12-01T10:01:00Z',
      '2026-12-01T12:00:00Z',
      '2026-12-01T12:01:00Z',
      '2026-12-02T10:00:30Z',
    ];
    let state = INITIAL_NOTICES;
    const sent: string[] = [];
    for (const t of steps) {
      const { silences } = at(t);
      const decided = decideNotices(state, silences, t);
      if (decided.stale) throw new Error('stale');
      sent.push(...decided.alerts.map((a) => `${a.event}@${t}`));
      if (decided.changed) state = decided.state;
    }
    expect(sent).toEqual([
      'maintenance.started@2026-12-01T10:00:00Z',
      'maintenance.ended@2026-12-01T12:00:00Z',
      'maintenance.started@2026-12-02T10:00:30Z',
    ]);
  });

  it('a late duplicate of an older cycle is stale: it ends nothing', () => {
    const started = decideNotices(
      INITIAL_NOTICES,
      at('2026-12-01T10:05:00Z').silences,
      '2026-12-01T10:05:00Z',
    );
    if (started.stale) throw new Error('stale');
    expect(
      decideNotices(started.state, at('2026-12-01T09:59:00Z').silences, '2026-12-01T09:59:00Z').stale,
    ).toBe(true);
  });

  it('a window removed mid-occurrence is ended; a window without notify gets none', () => {
    const started = decideNotices(
      INITIAL_NOTICES,
      at('2026-12-01T10:05:00Z').silences,
      '2026-12-01T10:05:00Z',
    );
    if (started.stale) throw new Error('stale');
    const gone = decideNotices(started.state, [], '2026-12-01T10:06:00Z');
    expect(gone.stale ? [] : gone.alerts.map((a) => [a.event, a.silence, a.detail])).toEqual([
      ['maintenance.ended', ID, 'backup'],
    ]);
    const quiet = windowSilences([{ ...daily, notify: false }], ms('2026-12-01T10:05:00Z'));
    const none = decideNotices(INITIAL_NOTICES, quiet, '2026-12-01T10:05:00Z');
    expect(none.stale ? ['stale'] : none.alerts).toEqual([]);
  });
});

describe('context maintenance', () => {
  const now = ms('2026-11-27T12:00:00Z');
  it('the contract example is valid; its id stays across deploys', () => {
    const value = [
      {
        start: '02:00',
        for: '2h',
        repeat: 'FREQ=WEEKLY;BYDAY=SU',
        tz: 'Europe/Berlin',
        event: '*',
        reason: 'weekly filter update',
        notify: true,
      },
    ];
    const a = parseMaintenance(value, now, true);
    const b = parseMaintenance(JSON.stringify(value), now + 3 * 86_400_000, true);
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(a.windows[0]!.id).toBe(b.windows[0]!.id);
    expect(a.windows[0]!.source).toBe('context');
    // Read again later by the function (with its clock): the occurrence under way is there.
    const later = ms('2026-12-06T01:30:00Z');
    const read = parseMaintenance(a.requests, later, false);
    expect(read.ok && currentOccurrence(read.windows[0]!, later)?.startMs).toBe(ms('2026-12-06T01:00:00Z'));
  });

  it.each([
    ['not a list', '{"start":"02:00"}', /must be a JSON list/],
    ['no JSON', '[{start:}]', /is no JSON list/],
    [
      'an unknown zone',
      [{ start: '02:00', for: '2h', repeat: 'daily', tz: 'Europe/Nowhere', reason: 'x' }],
      /window 1 \("x"\): tz "Europe\/Nowhere"/,
    ],
    [
      'an unknown field',
      [{ for: '2h', repeat: 'daily', every: 'day' }],
      /window 1: unknown field\(s\) every/,
    ],
    ['no duration', [{ start: '02:00', repeat: 'daily' }], /window 1: for .* is required/],
    ['a one-off without a date', [{ start: '02:00', for: '1h' }], /one-off window .* needs a date/],
    [
      'the second window overlaps itself',
      [
        { start: '02:00', for: '1h', repeat: 'daily' },
        { start: '02:00', for: '2h', repeat: 'FREQ=HOURLY', reason: 'bad' },
      ],
      /window 2 \("bad"\): repeat "FREQ=HOURLY" occurs more often/,
    ],
    [
      'notify not a boolean',
      [{ start: '02:00', for: '1h', repeat: 'daily', notify: 'yes' }],
      /notify must be true or false/,
    ],
  ])('%s: refused, naming the window', (_name, value, message) => {
    const parsed = parseMaintenance(value, now, true);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.problems.join('\n')).toMatch(message);
  });
});
