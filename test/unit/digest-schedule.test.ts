import { describe, expect, it } from 'vitest';
import {
  DIGEST_ON_TIME_MS,
  type DigestSchedule,
  decideDigest,
  latestDuePeriod,
  nextDue,
  parseDigestSchedule,
} from '../../lambda/core/digest/digest-schedule.ts';

function schedule(digest: string, digestAt: string, digestTz: string): DigestSchedule {
  const parsed = parseDigestSchedule({ digest, digestAt, digestTz });
  if (!parsed.ok || parsed.schedule === undefined) throw new Error(JSON.stringify(parsed));
  return parsed.schedule;
}

const ms = Date.parse;

describe('parseDigestSchedule', () => {
  it('reads the three settings, with the defaults 08:00 UTC', () => {
    expect(parseDigestSchedule({ digest: 'weekly' })).toEqual({
      ok: true,
      schedule: { every: 'weekly', hour: 8, minute: 0, tz: 'UTC' },
    });
    expect(parseDigestSchedule({ digest: 'daily', digestAt: '23:59', digestTz: 'Asia/Kolkata' })).toEqual({
      ok: true,
      schedule: { every: 'daily', hour: 23, minute: 59, tz: 'Asia/Kolkata' },
    });
    expect(parseDigestSchedule({})).toEqual({ ok: true, schedule: undefined });
    expect(parseDigestSchedule({ digest: 'off' })).toEqual({ ok: true, schedule: undefined });
  });

  it('names every bad value by its setting', () => {
    const parsed = parseDigestSchedule({ digest: 'hourly', digestAt: '25:00', digestTz: 'Mars/Base' });
    expect(parsed.ok).toBe(false);
    const problems = parsed.ok ? [] : parsed.problems;
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^digest: must be off, daily or weekly, got "hourly"/);
    expect(problems[1]).toMatch(/^digestAt: must be a time of day HH:MM/);
    expect(problems[2]).toMatch(/^digestTz: "Mars\/Base" is no IANA time zone/);
    for (const at of ['8:00', '08:60', '08:00:00', ' 0800']) {
      expect(parseDigestSchedule({ digest: 'daily', digestAt: at }).ok).toBe(false);
    }
  });

  it('refuses digestAt or digestTz without digest: alone they would do nothing', () => {
    expect(parseDigestSchedule({ digestAt: '07:30' })).toEqual({
      ok: false,
      problems: ['digestAt set while digest is off: set digest to daily or weekly'],
    });
    expect(
      parseDigestSchedule({ digest: 'off', digestTz: 'UTC' }, { digest: 'D', digestAt: 'A', digestTz: 'T' }),
    ).toEqual({ ok: false, problems: ['T set while D is off: set D to daily or weekly'] });
  });
});

describe('latestDuePeriod', () => {
  const berlin = schedule('daily', '08:00', 'Europe/Berlin');

  it('daily: today at 08:00 local once past it, yesterday before; winter is UTC+1', () => {
    expect(latestDuePeriod(berlin, ms('2026-11-28T07:00:00Z'))).toEqual({
      since: '2026-11-27T07:00:00Z',
      until: '2026-11-28T07:00:00Z',
      every: 'daily',
      label: '2026-11-28',
    });
    expect(latestDuePeriod(berlin, ms('2026-11-28T06:59:59.999Z')).until).toBe('2026-11-27T07:00:00Z');
  });

  it('follows daylight saving time: 23 hours in March, 25 in October', () => {
    expect(latestDuePeriod(berlin, ms('2026-03-29T12:00:00Z'))).toMatchObject({
      since: '2026-03-28T07:00:00Z',
      until: '2026-03-29T06:00:00Z',
    });
    expect(latestDuePeriod(berlin, ms('2026-10-25T12:00:00Z'))).toMatchObject({
      since: '2026-10-24T06:00:00Z',
      until: '2026-10-25T07:00:00Z',
    });
  });

  it('a due time the clock skips moves forward by the hour skipped', () => {
    const skipped = schedule('daily', '02:30', 'Europe/Berlin');
    // 29 March 2026, 02:00 CET -> 03:00 CEST: 02:30 does not exist; due at 03:30 CEST by luxon's shift, 01:30Z.
    expect(latestDuePeriod(skipped, ms('2026-03-29T05:00:00Z')).until).toBe('2026-03-29T01:30:00Z');
  });

  it('weekly: Mondays, the week before', () => {
    const weekly = schedule('weekly', '09:15', 'America/New_York');
    // Saturday 28 November 2026: the last Monday is the 23rd, 09:15 EST = 14:15Z.
    expect(latestDuePeriod(weekly, ms('2026-11-28T12:00:00Z'))).toEqual({
      since: '2026-11-16T14:15:00Z',
      until: '2026-11-23T14:15:00Z',
      every: 'weekly',
      label: '2026-11-23',
    });
    // Monday 30 November before 09:15 local: still the 23rd; after it, the 30th.
    expect(latestDuePeriod(weekly, ms('2026-11-30T14:14:00Z')).label).toBe('2026-11-23');
    expect(latestDuePeriod(weekly, ms('2026-11-30T14:15:00Z')).label).toBe('2026-11-30');
    expect(nextDue(weekly, ms('2026-11-28T12:00:00Z'))).toBe('2026-11-30T14:15:00Z');
  });
});

describe('decideDigest', () => {
  const period = latestDuePeriod(schedule('daily', '08:00', 'UTC'), ms('2026-11-28T08:00:05Z'));

  it('sends a period not committed yet, on time within the hour, late after', () => {
    expect(decideDigest('2026-11-27T08:00:00Z', period, ms('2026-11-28T08:00:05Z'))).toEqual({
      kind: 'send',
      period,
      late: false,
    });
    expect(
      decideDigest('2026-11-26T08:00:00Z', period, ms('2026-11-28T08:00:00Z') + DIGEST_ON_TIME_MS + 1),
    ).toMatchObject({
      kind: 'send',
      late: true,
    });
  });

  it('nothing once committed; a first run starts at a due time it came late for, and sends one it is on time for', () => {
    expect(decideDigest('2026-11-28T08:00:00Z', period, ms('2026-11-28T09:00:00Z'))).toEqual({
      kind: 'sent-already',
    });
    expect(decideDigest(undefined, period, ms('2026-11-28T15:00:00Z'))).toEqual({ kind: 'start', period });
    expect(decideDigest(undefined, period, ms('2026-11-28T08:00:03Z'))).toMatchObject({
      kind: 'send',
      late: false,
    });
  });
});
