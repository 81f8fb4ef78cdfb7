/**
 * Maintenance windows (CONTRACT §17, docs/silences.md): a silence planned ahead, once or repeating, in an IANA
 * time zone. Each occurrence is a plain {@link Silence} (same id, its own start and end), so everything a
 * silence does (suppress, record, keep incidents closable, announce what still holds at its end) is done by
 * the one silence machinery (`silence.ts`, `lambda/outbox.ts`) and no parallel path.
 *
 * Recurrence is the `rrule` library's (RFC 5545), run in its "floating" mode: the rule is expanded over local
 * wall-clock times, and each is then placed in the zone by `luxon`, so an occurrence keeps its wall-clock time
 * across daylight-saving changes (Sunday 02:00 Europe/Berlin is 01:00 UTC in winter, 00:00 UTC in summer). A
 * wall-clock time the zone skips (spring forward) is moved forward by the gap (02:30 → 03:30); one that
 * happens twice (fall back) is taken at its second, standard-time instance. `rrule`'s own `tzid` is not used:
 * it is known to mis-place occurrences across offsets. Pure: the clock is the caller's.
 */
import { createHash } from 'node:crypto';
import { DateTime, IANAZone } from 'luxon';
import * as rruleModule from 'rrule';
import { parseDuration } from '../duration.ts';
import {
  DEFAULT_PATTERN,
  MAX_REASON_CHARS,
  MAX_SILENCE_MS,
  MIN_SILENCE_MS,
  patternProblem,
  type Silence,
} from './silence-window.ts';

// `rrule` ships CommonJS with an ESM build beside it: Node's ESM loader sees only a default export, bundlers
// the named ones.
type RRuleModule = typeof import('rrule');
// Read with Reflect: a bundler that sees `.default` on an ESM build warns that it is always undefined.
const commonJs = Reflect.get(rruleModule, 'default') as RRuleModule | undefined;
const rrule: RRuleModule = commonJs?.RRule === undefined ? (rruleModule as RRuleModule) : commonJs;
const { RRule } = rrule;
type Options = import('rrule').Options;

/** Furthest ahead a one-off window may start. */
export const MAX_ONE_OFF_AHEAD_MS = 90 * 86_400_000;
/** How far back a cycle looks for occurrences: alerts observed in one may wait that long (the 7-day cap). */
export const OCCURRENCE_LOOKBACK_MS = MAX_SILENCE_MS + 86_400_000;
/** How far ahead the next occurrence is looked for; a rule with none in that time has none. */
const NEXT_HORIZON_MS = 5 * 366 * 86_400_000;
/** Occurrences compared with the duration when a window is made (it may not overlap itself). */
const OVERLAP_CHECKED = 500;
/** Ended occurrences kept in a window's item (`silence end`); older ones no longer matter. */
const ENDED_KEPT_MS = OCCURRENCE_LOOKBACK_MS;

/** The `--repeat` words and the rules they stand for (`weekly` gets the first occurrence's day). */
const REPEAT_WORDS: Readonly<Record<string, string>> = {
  daily: 'FREQ=DAILY',
  weekdays: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
  weekly: 'FREQ=WEEKLY',
};

/** A maintenance window as stored (pk `silence`, sk its id, `kind` `window`) or declared in context. */
export interface MaintenanceWindow {
  /** `s-` and 8 base32 characters, like every silence id. */
  readonly id: string;
  /** The first occurrence's start, as the local wall-clock time in {@link tz}: `2026-11-29T02:00:00`. */
  readonly localStart: string;
  /** IANA zone. */
  readonly tz: string;
  /** How long each occurrence lasts: 1 minute to 7 days. */
  readonly durationMs: number;
  /** The duration as given (`2h`). */
  readonly for: string;
  /** As given: `daily`, `weekdays`, `weekly` or an RRULE; absent: once. */
  readonly repeat?: string;
  /** The RFC 5545 rule it is expanded by (no DTSTART), absent for a one-off. */
  readonly rrule?: string;
  readonly pattern: string;
  readonly reason?: string;
  /** Publish `maintenance.started` and `maintenance.ended` for each occurrence. */
  readonly notify: boolean;
  readonly createdAt: string;
  readonly createdBy?: string;
  /** Occurrences ended early by `silence end`: the occurrence's start (ISO) → when it was ended (ISO). */
  readonly ended?: Readonly<Record<string, string>>;
  /** `context`: declared in the stack (`maintenance`), not in the table; cannot be ended or cancelled here. */
  readonly source?: 'context';
}

/** One occurrence of a window, epoch ms. */
export interface Occurrence {
  readonly startMs: number;
  /** Its end: the start plus the duration, or earlier when `silence end` ended it. */
  readonly endMs: number;
}

/** What `silence --start ... --repeat ...` or a context window asks for. */
export interface WindowRequest {
  /** ISO-8601 (with an offset, or a local time in `tz`) or `HH:MM` (the next such time in `tz`); default now. */
  readonly start?: string;
  readonly for: string;
  readonly repeat?: string;
  readonly tz?: string;
  readonly event?: string;
  readonly reason?: string;
  readonly notify?: boolean;
}

/** A window, or every problem with its request (each naming the option). */
export type NewWindow =
  | { readonly ok: true; readonly window: MaintenanceWindow }
  | { readonly ok: false; readonly problems: readonly string[] };

/** How the problems name the fields: `--start` for the CLI, `start` for context. */
export type FieldLabel = (field: 'start' | 'for' | 'repeat' | 'tz' | 'event' | 'reason' | 'notify') => string;

export const CLI_LABEL: FieldLabel = (field) => `--${field}`;

const LOCAL_FORMAT = "yyyy-MM-dd'T'HH:mm:ss";

/** Whether `zone` is an IANA zone this runtime knows (`UTC` included). */
export function isKnownZone(zone: string): boolean {
  return zone !== '' && IANAZone.isValidZone(zone);
}

/** The instant (epoch ms) of a local wall-clock time in `tz` (a skipped time moves forward by the gap). */
function instantOf(local: DateTime): number {
  return local.toMillis();
}

/** A floating date (its UTC fields are the wall-clock fields in `tz`) as the instant it names in `tz`. */
function placeFloating(floating: Date, tz: string): number {
  return DateTime.fromObject(
    {
      year: floating.getUTCFullYear(),
      month: floating.getUTCMonth() + 1,
      day: floating.getUTCDate(),
      hour: floating.getUTCHours(),
      minute: floating.getUTCMinutes(),
      second: floating.getUTCSeconds(),
    },
    { zone: tz },
  ).toMillis();
}

/** An instant's wall-clock time in `tz`, as a floating date. */
function floatingOf(ms: number, tz: string): Date {
  const local = DateTime.fromMillis(ms, { zone: tz });
  return new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second));
}

/** The rule's options, or what is wrong with it. */
function parseRule(text: string): { options: Partial<Options> } | { problem: string } {
  const body = text.trim().replace(/^RRULE:/i, '');
  if (body === '') return { problem: 'is empty' };
  if (/DTSTART|TZID|\n/i.test(body)) {
    return { problem: 'may not hold DTSTART or TZID: the start is --start, the zone --tz' };
  }
  if (!/(^|;)FREQ=/i.test(body)) return { problem: 'needs FREQ= (e.g. FREQ=WEEKLY;BYDAY=SU)' };
  let options: Partial<Options>;
  try {
    options = RRule.parseString(body);
    // Building it checks the values the parser lets through.
    new RRule({ ...options, dtstart: new Date(0) });
  } catch (error) {
    return { problem: `is no RFC 5545 rule (${(error as Error).message})` };
  }
  for (const part of body.split(';')) {
    const [name, value] = part.split('=');
    if (name === undefined || value === undefined || value === '') {
      return { problem: `has a part without a value: ${JSON.stringify(part)}` };
    }
  }
  if (options.freq === undefined) return { problem: 'needs FREQ=' };
  return { options };
}

/** The rule of a window over floating times, its DTSTART the window's local start. */
function ruleOf(
  window: Pick<MaintenanceWindow, 'rrule' | 'localStart' | 'tz'>,
): InstanceType<typeof RRule> | undefined {
  if (window.rrule === undefined) return undefined;
  const parsed = parseRule(window.rrule);
  if ('problem' in parsed) return undefined;
  const local = DateTime.fromISO(window.localStart, { zone: 'UTC' });
  const options: Partial<Options> = { ...parsed.options, dtstart: local.toJSDate(), tzid: null };
  // UNTIL in UTC (`...Z`) is an instant: as a floating time it is the wall-clock time then in the zone.
  if (options.until instanceof Date && /UNTIL=\d{8}T\d{6}Z/i.test(window.rrule)) {
    options.until = floatingOf(options.until.getTime(), window.tz);
  }
  return new RRule(options);
}

/** The window's occurrence starts (epoch ms) whose wall-clock time lies in [fromMs, toMs], at most `max`. */
function startsBetween(window: MaintenanceWindow, fromMs: number, toMs: number, max = 10_000): number[] {
  const first = instantOf(DateTime.fromISO(window.localStart, { zone: window.tz }));
  const rule = ruleOf(window);
  if (rule === undefined)
    return window.rrule === undefined && first >= fromMs && first <= toMs ? [first] : [];
  // A day's margin either side: the offset between the wall clock and UTC is less than that.
  const floatingFrom = floatingOf(fromMs - 86_400_000, window.tz);
  const floatingTo = floatingOf(toMs + 86_400_000, window.tz);
  const starts: number[] = [];
  rule.between(floatingFrom, floatingTo, true, (date) => {
    const ms = placeFloating(date, window.tz);
    if (ms >= fromMs && ms <= toMs) starts.push(ms);
    return starts.length < max;
  });
  return starts;
}

/** The end of the occurrence starting at `startMs`, as `silence end` may have moved it. */
function endOf(window: MaintenanceWindow, startMs: number): number {
  const natural = startMs + window.durationMs;
  const endedAt = window.ended?.[new Date(startMs).toISOString()];
  const ended = endedAt === undefined ? Number.NaN : Date.parse(endedAt);
  return Number.isNaN(ended) ? natural : Math.max(startMs, Math.min(natural, ended));
}

/** The occurrences whose [start, end) overlaps [fromMs, toMs), in order. */
export function occurrencesBetween(window: MaintenanceWindow, fromMs: number, toMs: number): Occurrence[] {
  return startsBetween(window, fromMs - window.durationMs, toMs)
    .map((startMs) => ({ startMs, endMs: endOf(window, startMs) }))
    .filter((o) => o.endMs > fromMs && o.startMs < toMs && o.endMs > o.startMs);
}

/** The occurrence active at `nowMs` (start ≤ now < end), if any. */
export function currentOccurrence(window: MaintenanceWindow, nowMs: number): Occurrence | undefined {
  return occurrencesBetween(window, nowMs, nowMs + 1).find((o) => o.startMs <= nowMs && nowMs < o.endMs);
}

/** The first occurrence starting after `nowMs`, if any within five years. */
export function nextOccurrence(window: MaintenanceWindow, nowMs: number): Occurrence | undefined {
  // Looked for in growing steps, so that a daily rule costs one short expansion.
  for (const span of [8 * 86_400_000, 400 * 86_400_000, NEXT_HORIZON_MS]) {
    const start = startsBetween(window, nowMs + 1, nowMs + span, 1)[0];
    if (start !== undefined) return { startMs: start, endMs: endOf(window, start) };
  }
  return undefined;
}

/** The instant of the last occurrence's end, or undefined when the window repeats without end. */
export function lastEndMs(window: MaintenanceWindow): number | undefined {
  if (window.rrule === undefined) {
    return DateTime.fromISO(window.localStart, { zone: window.tz }).toMillis() + window.durationMs;
  }
  const rule = ruleOf(window);
  if (rule === undefined || (rule.options.count === null && rule.options.until === null)) return undefined;
  const all = rule.all((_, i) => i < 10_000);
  const last = all[all.length - 1];
  if (last === undefined) return 0;
  return placeFloating(last, window.tz) + window.durationMs;
}

/**
 * The occurrences of `windows` a cycle needs, as silences: every one that overlaps the last
 * {@link OCCURRENCE_LOOKBACK_MS} up to now (an alert observed in one may still wait to be sent), and each
 * window's next one (shown as pending). Each carries its window's id, pattern and reason.
 */
export function windowSilences(windows: readonly MaintenanceWindow[], nowMs: number): Silence[] {
  const out: Silence[] = [];
  for (const window of windows) {
    const past = occurrencesBetween(window, nowMs - OCCURRENCE_LOOKBACK_MS, nowMs + 1);
    const next = nextOccurrence(window, nowMs);
    for (const o of next === undefined ? past : [...past, next]) out.push(occurrenceSilence(window, o));
  }
  return out;
}

/** One occurrence as a silence. */
export function occurrenceSilence(window: MaintenanceWindow, o: Occurrence): Silence {
  return {
    id: window.id,
    startsAt: new Date(o.startMs).toISOString(),
    endsAt: new Date(o.endMs).toISOString(),
    pattern: window.pattern,
    ...(window.reason === undefined ? {} : { reason: window.reason }),
    createdAt: window.createdAt,
    ...(window.createdBy === undefined ? {} : { createdBy: window.createdBy }),
    window: {
      tz: window.tz,
      notify: window.notify,
      ...(window.repeat === undefined ? {} : { repeat: window.repeat }),
      ...(window.source === undefined ? {} : { source: window.source }),
    },
  };
}

/** The active window occurrence (or silence) and the next one to start, for `status`, the report and the page. */
export interface ActiveAndNext {
  /** The occurrence active now that ends last (a silence from `silence --for` counts too); undefined: none. */
  readonly active?: Silence;
  /** The occurrence or silence that starts next after now; undefined: none planned. */
  readonly next?: Silence;
}

/**
 * The active window and the next one, from what `SilenceStore.list()` returns (plain silences and window
 * occurrences alike) at `nowMs`. Pure; for `shieldwatch status`, the report and the hosted page (CONTRACT
 * §15, §17).
 */
export function activeAndNextWindow(silences: readonly Silence[], nowMs: number): ActiveAndNext {
  let active: Silence | undefined;
  let next: Silence | undefined;
  for (const s of silences) {
    const start = Date.parse(s.startsAt);
    const end = Date.parse(s.endsAt);
    if (Number.isNaN(start) || Number.isNaN(end)) continue;
    if (start <= nowMs && nowMs < end) {
      if (active === undefined || s.endsAt > active.endsAt) active = s;
    } else if (start > nowMs && (next === undefined || s.startsAt < next.startsAt)) {
      next = s;
    }
  }
  return { ...(active === undefined ? {} : { active }), ...(next === undefined ? {} : { next }) };
}

/**
 * The start asked for, as a local wall-clock time in `tz` (`local`: the rule's first start), and the next such
 * time (`next`: the day `weekly` repeats on), or what is wrong with it. `HH:MM` is the next such time; with
 * `anchor` `latest` (a window declared in configuration, read at every start of the function) a repeating
 * window's rule starts from the latest such time instead, so that an occurrence under way stays.
 */
function resolveStart(
  start: string | undefined,
  tz: string,
  nowMs: number,
  anchor: 'next' | 'latest',
): { local: DateTime; next: DateTime } | { problem: string } {
  const now = DateTime.fromMillis(nowMs, { zone: tz });
  if (start === undefined || start === 'now') {
    const at = now.set({ millisecond: 0 });
    return { local: at, next: at };
  }
  const hhmm = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(start);
  if (hhmm !== null) {
    const today = now.set({ hour: Number(hhmm[1]), minute: Number(hhmm[2]), second: 0, millisecond: 0 });
    const next = today.toMillis() > nowMs ? today : today.plus({ days: 1 });
    // Declared in configuration and read again with every clock: from before the cycle's look-back, so that
    // every occurrence it may need is there whatever the clock (the rule, not the anchor, says the days).
    const latest = (today.toMillis() <= nowMs ? today : today.minus({ days: 1 })).minus({
      milliseconds: OCCURRENCE_LOOKBACK_MS,
    });
    return { local: anchor === 'latest' ? latest : next, next };
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(start)) {
    return {
      problem: `must be an ISO-8601 time (2026-11-29T02:00, with Z or an offset, or local in the zone) or HH:MM (got ${JSON.stringify(start)})`,
    };
  }
  const explicitOffset = /(Z|[+-]\d{2}:?\d{2})$/i.test(start);
  const parsed = explicitOffset
    ? DateTime.fromISO(start, { setZone: true }).setZone(tz)
    : DateTime.fromISO(start, { zone: tz });
  if (!parsed.isValid) {
    return {
      problem: `is no valid time (got ${JSON.stringify(start)}: ${parsed.invalidExplanation ?? parsed.invalidReason})`,
    };
  }
  const at = parsed.set({ millisecond: 0 });
  return { local: at, next: at };
}

/**
 * A window from a request at `nowMs`, or every problem with it: an IANA zone; a start that is ISO-8601 or
 * HH:MM; a duration from 1 minute to 7 days; a one-off starting no later than 90 days ahead and not over
 * already; a rule that parses, occurs after now, and never starts an occurrence before the previous one
 * ended; a pattern that matches an event; a printable reason.
 */
export function newWindow(
  request: WindowRequest,
  nowMs: number,
  id: string,
  extra: {
    readonly createdBy?: string;
    readonly source?: 'context';
    readonly label?: FieldLabel;
    /**
     * False where a window is read from configuration at run time: a one-off over already or far ahead is
     * then only a window that does nothing (it was checked at synth). @default true
     */
    readonly checkTiming?: boolean;
  } = {},
): NewWindow {
  const label = extra.label ?? CLI_LABEL;
  const problems: string[] = [];
  const tz = request.tz ?? 'UTC';
  const zoneOk = isKnownZone(tz);
  if (!zoneOk) {
    problems.push(
      `${label('tz')} ${JSON.stringify(tz)} is no IANA time zone this runtime knows (e.g. UTC, Europe/Berlin, America/New_York)`,
    );
  }
  const durationMs = parseDuration(request.for);
  if (durationMs === undefined) {
    problems.push(
      `${label('for')} must be a duration like 30m, 2h or 3d (got ${JSON.stringify(request.for)})`,
    );
  } else if (durationMs > MAX_SILENCE_MS) {
    problems.push(`${label('for')} ${request.for} is longer than an occurrence may last, 7 days (7d)`);
  } else if (durationMs < MIN_SILENCE_MS) {
    problems.push(`${label('for')} ${request.for} is shorter than the shortest silence, 1 minute (1m)`);
  }
  const pattern = request.event ?? DEFAULT_PATTERN;
  const badPattern = patternProblem(pattern);
  if (badPattern !== undefined) problems.push(`${label('event')}: ${badPattern}`);
  const reason = request.reason?.trim();
  if (reason !== undefined) {
    if ([...reason].length > MAX_REASON_CHARS)
      problems.push(`${label('reason')} is longer than ${MAX_REASON_CHARS} characters`);
    if (/[\u0000-\u001f\u007f-\u009f]/.test(reason)) {
      problems.push(`${label('reason')} may not hold control characters (line breaks, escapes)`);
    }
  }
  let rule: string | undefined;
  const repeat = request.repeat?.trim();
  if (repeat !== undefined) {
    const word = REPEAT_WORDS[repeat.toLowerCase()];
    rule = word ?? repeat.replace(/^RRULE:/i, '');
    const parsed = parseRule(rule);
    if ('problem' in parsed) {
      problems.push(
        `${label('repeat')} ${JSON.stringify(repeat)} ${parsed.problem}; use daily, weekdays, weekly or an RRULE such as FREQ=WEEKLY;BYDAY=SU or FREQ=MONTHLY;BYDAY=1SA`,
      );
      rule = undefined;
    }
  }
  const anchor = extra.source === 'context' && repeat !== undefined ? 'latest' : 'next';
  const start = zoneOk ? resolveStart(request.start, tz, nowMs, anchor) : undefined;
  if (start !== undefined && 'problem' in start) problems.push(`${label('start')} ${start.problem}`);
  if (problems.length > 0 || durationMs === undefined || start === undefined || 'problem' in start) {
    return { ok: false, problems };
  }
  // `weekly` repeats on the day of its first occurrence.
  if (repeat?.toLowerCase() === 'weekly') {
    rule = `FREQ=WEEKLY;BYDAY=${['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'][start.next.weekday - 1]}`;
  }
  const now = new Date(nowMs).toISOString();
  const window: MaintenanceWindow = {
    id,
    localStart: start.local.toFormat(LOCAL_FORMAT),
    tz,
    durationMs,
    for: request.for,
    ...(repeat === undefined ? {} : { repeat }),
    ...(rule === undefined ? {} : { rrule: rule }),
    pattern,
    ...(reason === undefined || reason === '' ? {} : { reason }),
    notify: request.notify === true,
    createdAt: now,
    ...(extra.createdBy === undefined ? {} : { createdBy: extra.createdBy }),
    ...(extra.source === undefined ? {} : { source: extra.source }),
  };
  const timing = timingProblems(window, nowMs, label, request.start).filter(
    (problem) => extra.checkTiming !== false || problem.includes('more often'),
  );
  return timing.length > 0 ? { ok: false, problems: timing } : { ok: true, window };
}

/** What is wrong with a window's occurrences seen from `nowMs` (empty: nothing). */
function timingProblems(
  window: MaintenanceWindow,
  nowMs: number,
  label: FieldLabel,
  start?: string,
): string[] {
  const firstMs = DateTime.fromISO(window.localStart, { zone: window.tz }).toMillis();
  if (window.rrule === undefined) {
    if (firstMs > nowMs + MAX_ONE_OFF_AHEAD_MS) {
      return [
        `${label('start')} ${start ?? ''} is more than 90 days ahead: a one-off window starts within 90 days`,
      ];
    }
    if (firstMs + window.durationMs <= nowMs) {
      return [
        `${label('start')} ${start ?? ''} is over already: the window would end at ${new Date(firstMs + window.durationMs).toISOString()}`,
      ];
    }
    return [];
  }
  const rule = ruleOf(window)!;
  const starts: number[] = [];
  // From the first occurrence, a bounded number of them and within five years: a rule that cannot occur
  // (FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30) is found without walking to the year 9999.
  rule.between(
    floatingOf(firstMs - 86_400_000, window.tz),
    floatingOf(Math.max(firstMs, nowMs) + NEXT_HORIZON_MS, window.tz),
    true,
    (date) => {
      starts.push(placeFloating(date, window.tz));
      return starts.length < OVERLAP_CHECKED;
    },
  );
  const repeat = `${label('repeat')} ${JSON.stringify(window.repeat)}`;
  if (starts.length === 0 || !starts.some((s) => s + window.durationMs > nowMs)) {
    return [
      `${repeat} never occurs from ${window.localStart} ${window.tz} on (none in the next 5 years, or UNTIL/COUNT already over)`,
    ];
  }
  for (let i = 1; i < starts.length; i++) {
    const gap = starts[i]! - starts[i - 1]!;
    if (gap < window.durationMs) {
      return [
        `${repeat} occurs more often than ${label('for')} ${window.for}: occurrences at ${new Date(starts[i - 1]!).toISOString()} and ${new Date(starts[i]!).toISOString()} would overlap; shorten ${label('for')} or space the rule out`,
      ];
    }
  }
  return [];
}

/** A window's id from its definition (context windows: stable across deploys while the definition is unchanged). */
export function windowIdOf(definition: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(definition)).digest();
  const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0n;
  for (let i = 0; i < 5; i++) bits = (bits << 8n) | BigInt(digest[i]!);
  let text = '';
  for (let i = 7; i >= 0; i--) text += BASE32[Number((bits >> BigInt(i * 5)) & 31n)];
  return `s-${text}`;
}

/** What a stored or declared window item reads as: a window, or why it is none (never "silence everything"). */
export type ReadWindow =
  | { readonly ok: true; readonly window: MaintenanceWindow }
  | { readonly ok: false; readonly id: string; readonly problem: string };

/**
 * A stored window item (or a declared one, as the function's configuration carries it) read back, checked as
 * strictly as when it was made, but for its timing (a window made earlier may have started): a hand-edited
 * item that is not a valid window reads as none, with the reason, so that `silence list` can report it.
 */
export function toWindow(item: Readonly<Record<string, unknown>>): ReadWindow {
  const text = (name: string) => (typeof item[name] === 'string' ? (item[name] as string) : undefined);
  const id = text('id') ?? text('sk') ?? '?';
  const bad = (problem: string): ReadWindow => ({ ok: false, id, problem });
  if (!/^s-[a-z2-7]{8}$/.test(id)) return bad('its id is no silence id');
  const localStart = text('localStart');
  const tz = text('tz');
  const pattern = text('pattern');
  const createdAt = text('createdAt');
  const forText = text('for');
  const durationMs = item['durationMs'];
  if (localStart === undefined || !DateTime.fromISO(localStart, { zone: 'UTC' }).isValid)
    return bad('localStart is missing or no time');
  if (tz === undefined || !isKnownZone(tz)) return bad(`tz ${JSON.stringify(tz)} is no known IANA zone`);
  if (
    typeof durationMs !== 'number' ||
    !Number.isFinite(durationMs) ||
    durationMs < MIN_SILENCE_MS ||
    durationMs > MAX_SILENCE_MS
  ) {
    return bad('durationMs is missing or not from 1 minute to 7 days');
  }
  if (pattern === undefined || patternProblem(pattern) !== undefined)
    return bad('pattern is missing or matches no event');
  if (createdAt === undefined) return bad('createdAt is missing');
  const rrule = text('rrule');
  if (item['rrule'] !== undefined && rrule === undefined) return bad('rrule is no text');
  if (rrule !== undefined) {
    const parsed = parseRule(rrule);
    if ('problem' in parsed) return bad(`rrule ${parsed.problem}`);
  }
  const notify = item['notify'];
  if (notify !== undefined && typeof notify !== 'boolean') return bad('notify is no boolean');
  const ended: Record<string, string> = {};
  const storedEnded = item['ended'];
  if (typeof storedEnded === 'object' && storedEnded !== null) {
    for (const [k, v] of Object.entries(storedEnded)) if (typeof v === 'string') ended[k] = v;
  }
  const reason = text('reason');
  const createdBy = text('createdBy');
  const repeat = text('repeat');
  const window: MaintenanceWindow = {
    id,
    localStart,
    tz,
    durationMs,
    for: forText ?? `${Math.round(durationMs / 60_000)}m`,
    ...(repeat === undefined ? {} : { repeat }),
    ...(rrule === undefined ? {} : { rrule }),
    pattern,
    ...(reason === undefined ? {} : { reason }),
    notify: notify === true,
    createdAt,
    ...(createdBy === undefined ? {} : { createdBy }),
    ...(Object.keys(ended).length === 0 ? {} : { ended }),
    ...(item['source'] === 'context' ? { source: 'context' as const } : {}),
  };
  // A rule that overlaps itself would make one long silence: refused as when it was made.
  if (rrule !== undefined) {
    const problems = timingProblems(window, DateTime.fromISO(localStart, { zone: tz }).toMillis(), (f) => f);
    const overlap = problems.find((p) => p.includes('more often'));
    if (overlap !== undefined) return bad(overlap);
  }
  return { ok: true, window };
}

/** The window with its occurrence starting at `startMs` ended at `nowMs`, and ended occurrences long past dropped. */
export function withOccurrenceEnded(
  window: MaintenanceWindow,
  startMs: number,
  nowMs: number,
): Record<string, string> {
  const kept = Object.fromEntries(
    Object.entries(window.ended ?? {}).filter(([start]) => Date.parse(start) > nowMs - ENDED_KEPT_MS),
  );
  return { ...kept, [new Date(startMs).toISOString()]: new Date(nowMs).toISOString() };
}

/** The local start of the window's occurrence as people read it: `2026-11-29 02:00 Europe/Berlin`. */
export function localTimeOf(ms: number, tz: string): string {
  return DateTime.fromMillis(ms, { zone: tz }).toFormat('yyyy-MM-dd HH:mm ZZZZ');
}
