/**
 * When the stack's digest is due (CONTRACT §19, docs/digest.md): the settings `digest` (`off`, `daily`,
 * `weekly`), `digestAt` (`HH:MM`) and `digestTz` (an IANA zone), checked once for the synth and the function,
 * and the period a digest covers. Local wall-clock times are placed in the zone by `luxon`, so a daily digest
 * keeps its hour across daylight saving time (its period is then 23 or 25 hours long). A due time the clock
 * skips (02:30 on the night the clocks go forward) moves forward by the hour skipped (03:30); a repeated
 * one is due at its first instance.
 * Weekly digests are due on Mondays and cover the week before. Pure.
 */
import { DateTime, IANAZone } from 'luxon';

/** How often the digest is published; `off`: never. */
export const DIGEST_EVERY = ['off', 'daily', 'weekly'] as const;
export type DigestEvery = (typeof DIGEST_EVERY)[number];

/** The digest's schedule, checked. */
export interface DigestSchedule {
  readonly every: Exclude<DigestEvery, 'off'>;
  /** Local time of day it is due, hours 0–23 and minutes 0–59. */
  readonly hour: number;
  readonly minute: number;
  /** IANA zone, as given (checked). */
  readonly tz: string;
}

/** One period a digest covers, ISO-8601 UTC; `until` is when it is due. */
export interface DigestPeriod {
  readonly since: string;
  readonly until: string;
  /** `daily` or `weekly`. */
  readonly every: DigestSchedule['every'];
  /** The local date its period ends on (`2026-11-28`), for texts. */
  readonly label: string;
}

export const DIGEST_DEFAULT_AT = '08:00';
export const DIGEST_DEFAULT_TZ = 'UTC';

/** The three settings as given (text), any of them absent. */
export interface DigestSettings {
  readonly digest?: string | undefined;
  readonly digestAt?: string | undefined;
  readonly digestTz?: string | undefined;
}

/** The schedule (undefined: `off`), or every problem, each naming its setting. */
export type ParsedDigest =
  | { readonly ok: true; readonly schedule: DigestSchedule | undefined }
  | { readonly ok: false; readonly problems: string[] };

const AT = /^([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * Reads the three settings; `names` gives the names problems use (the context keys at synth, the variables in
 * the function). `digestAt` or `digestTz` without `digest` is a problem: set alone, they would do nothing.
 */
export function parseDigestSchedule(
  values: DigestSettings,
  names: { readonly digest: string; readonly digestAt: string; readonly digestTz: string } = {
    digest: 'digest',
    digestAt: 'digestAt',
    digestTz: 'digestTz',
  },
): ParsedDigest {
  const problems: string[] = [];
  const every = (values.digest ?? '').trim() || 'off';
  if (!(DIGEST_EVERY as readonly string[]).includes(every)) {
    problems.push(`${names.digest}: must be off, daily or weekly, got ${JSON.stringify(values.digest)}`);
  }
  const at = (values.digestAt ?? '').trim() || DIGEST_DEFAULT_AT;
  const match = AT.exec(at);
  if (match === null) {
    problems.push(
      `${names.digestAt}: must be a time of day HH:MM (24-hour, e.g. 08:00), got ${JSON.stringify(values.digestAt)}`,
    );
  }
  const tz = (values.digestTz ?? '').trim() || DIGEST_DEFAULT_TZ;
  if (!IANAZone.isValidZone(tz)) {
    problems.push(
      `${names.digestTz}: ${JSON.stringify(values.digestTz)} is no IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`,
    );
  }
  if (problems.length > 0) return { ok: false, problems };
  if (every === 'off') {
    const stray = [
      ...(values.digestAt?.trim() ? [names.digestAt] : []),
      ...(values.digestTz?.trim() ? [names.digestTz] : []),
    ];
    if (stray.length > 0) {
      return {
        ok: false,
        problems: [
          `${stray.join(' and ')} set while ${names.digest} is off: set ${names.digest} to daily or weekly`,
        ],
      };
    }
    return { ok: true, schedule: undefined };
  }
  return {
    ok: true,
    schedule: {
      every: every as DigestSchedule['every'],
      hour: Number(match?.[1]),
      minute: Number(match?.[2]),
      tz,
    },
  };
}

/** The due time on one local date (`luxon` moves a skipped time forward by the gap and takes a repeated one's first). */
function dueOn(schedule: DigestSchedule, date: DateTime): DateTime {
  return DateTime.fromObject(
    { year: date.year, month: date.month, day: date.day, hour: schedule.hour, minute: schedule.minute },
    { zone: schedule.tz },
  );
}

function periodEnding(schedule: DigestSchedule, due: DateTime): DigestPeriod {
  const start = dueOn(schedule, due.minus({ days: schedule.every === 'daily' ? 1 : 7 }));
  return {
    since: start.toUTC().toISO({ suppressMilliseconds: true }) ?? '',
    until: due.toUTC().toISO({ suppressMilliseconds: true }) ?? '',
    every: schedule.every,
    label: due.toISODate() ?? '',
  };
}

/** The newest period due at or before `nowMs`: the one a run at `nowMs` owes, if not already sent. */
export function latestDuePeriod(schedule: DigestSchedule, nowMs: number): DigestPeriod {
  const now = DateTime.fromMillis(nowMs, { zone: schedule.tz });
  // Today's due time, or the last one before it; weekly: the last Monday's (luxon's weekday 1 is Monday).
  let date = now.startOf('day');
  if (schedule.every === 'weekly') date = date.minus({ days: date.weekday - 1 });
  let due = dueOn(schedule, date);
  if (due.toMillis() > nowMs) {
    date = date.minus({ days: schedule.every === 'daily' ? 1 : 7 });
    due = dueOn(schedule, date);
  }
  return periodEnding(schedule, due);
}

/** The next due time after `nowMs`, ISO-8601 UTC (for logs and `check`). */
export function nextDue(schedule: DigestSchedule, nowMs: number): string {
  const latest = DateTime.fromISO(latestDuePeriod(schedule, nowMs).until, { zone: schedule.tz });
  const next = dueOn(schedule, latest.plus({ days: schedule.every === 'daily' ? 1 : 7 }));
  return next.toUTC().toISO({ suppressMilliseconds: true }) ?? '';
}

/**
 * A period's digest found due this long after its end still counts as on time: the hourly run after a due
 * time always comes within it. Later, the digest is sent late (marked so), except on a store that never sent
 * one: there it is the deploy that came after the due time, and the first digest is the next period's.
 */
export const DIGEST_ON_TIME_MS = 65 * 60_000;

/** What a run does about the newest period due. */
export type DigestDecision =
  | { readonly kind: 'sent-already' }
  | { readonly kind: 'start'; readonly period: DigestPeriod }
  | { readonly kind: 'send'; readonly period: DigestPeriod; readonly late: boolean };

/**
 * Given the end of the last period committed (`lastUntil`, none on a store that never sent one) and the newest
 * period due at `nowMs`: nothing (sent already), the start (a first run after that period's due time: it is
 * recorded as the starting point, not sent), or send it (late when found more than {@link DIGEST_ON_TIME_MS}
 * after its end). Periods missed in between are not sent one by one: the newest due stands for them.
 */
export function decideDigest(
  lastUntil: string | undefined,
  period: DigestPeriod,
  nowMs: number,
): DigestDecision {
  const until = Date.parse(period.until);
  if (lastUntil !== undefined && Date.parse(lastUntil) >= until) return { kind: 'sent-already' };
  const late = nowMs - until > DIGEST_ON_TIME_MS;
  if (lastUntil === undefined && late) return { kind: 'start', period };
  return { kind: 'send', period, late };
}
