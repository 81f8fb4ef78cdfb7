/**
 * A silence itself (docs/silences.md): its id, its window, its pattern and the events it covers, as stored and
 * as `silence` and `status` show it; the changes it held back as an outbox scope stores them. Apart from what a silence holds back and announces at its end
 * (`silence.ts`), which names alerts in their families' words: a command that only lists silences
 * (`shieldwatch status`) loads no alert texts (issue 21.5). Pure.
 */

import { ALERT_EVENTS } from '../alerts/alert-events.ts';
import { DURATION_UNITS_MS, parseDuration } from '../duration.ts';
import { INCIDENT_KINDS, parseIncidentId } from '../incidents/incident-kinds.ts';
import type { AlertEvent, AlertRecord, NewAlertRecord, Severity } from '../types.ts';

/** One silence, as stored (pk `silence`, sk its id). Times are ISO-8601 UTC. */
export interface Silence {
  /** `s-` and 8 base32 characters. */
  readonly id: string;
  /** First instant of the silence (inclusive). */
  readonly startsAt: string;
  /** End of the silence (exclusive); `silence end` moves it to the time it ran. */
  readonly endsAt: string;
  /** Event name glob: `*` any run of characters; `*` alone is every event. */
  readonly pattern: string;
  readonly reason?: string;
  readonly createdAt: string;
  /** Who created it (user and host of the CLI), for `silence list`. */
  readonly createdBy?: string;
  /**
   * Set when this is one occurrence of a maintenance window (`maintenance-window.ts`): the id is the window's,
   * `startsAt` and `endsAt` the occurrence's.
   */
  readonly window?: SilenceWindowInfo;
}

/** What an occurrence of a maintenance window tells of its window (CONTRACT §17). */
export interface SilenceWindowInfo {
  /** As given: `daily`, `weekdays`, `weekly` or an RRULE; absent: once. */
  readonly repeat?: string;
  /** The IANA zone its wall-clock times are in. */
  readonly tz: string;
  /** Whether `maintenance.started` and `maintenance.ended` are published for it. */
  readonly notify: boolean;
  /** `context`: declared in the stack's context `maintenance`. */
  readonly source?: 'context';
}

/** Longest silence: planned work, not a way to turn the monitor off. */
export const MAX_SILENCE_MS = 7 * DURATION_UNITS_MS.d;
/** Shortest silence. */
export const MIN_SILENCE_MS = DURATION_UNITS_MS.m;
/** Longest reason kept. */
export const MAX_REASON_CHARS = 200;
/** The pattern of a silence given no `--event`. */
export const DEFAULT_PATTERN = '*';
/** Longest pattern. */
const MAX_PATTERN_CHARS = 100;

/** The event that announces, at a silence's end, a change it held back that still holds. */
export const STILL_HOLDING_EVENT = 'silence.still_holding' satisfies AlertEvent;

/**
 * Never silenced: the delivery check exists to show that alerts get through; an announcement at a silence's
 * end is held back instead by any other silence over the event it announces (see {@link dueAnnouncements}).
 */
const NEVER_SILENCED: ReadonlySet<AlertEvent> = new Set<AlertEvent>([
  'monitor.test',
  STILL_HOLDING_EVENT,
  // A window's own notices tell of the silence: never held back by it or another (CONTRACT §17).
  'maintenance.started',
  'maintenance.ended',
  // The digest tells of the period, silences included (CONTRACT §19).
  'monitor.digest',
]);

/** Every event a silence can suppress. */
export const SILENCEABLE_EVENTS: readonly AlertEvent[] = ALERT_EVENTS.filter((e) => !NEVER_SILENCED.has(e));

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const ID_PATTERN = /^s-[a-z2-7]{8}$/;

/** A silence id from 5 random bytes (40 bits): `s-` and 8 base32 characters. */
export function silenceId(random: Uint8Array): string {
  if (random.length < 5) throw new RangeError('a silence id needs 5 random bytes');
  let bits = 0n;
  for (let i = 0; i < 5; i++) bits = (bits << 8n) | BigInt(random[i]!);
  let text = '';
  for (let i = 7; i >= 0; i--) text += BASE32[Number((bits >> BigInt(i * 5)) & 31n)];
  return `s-${text}`;
}

/** Whether `text` has the shape of a silence id. */
export function isSilenceId(text: string): boolean {
  return ID_PATTERN.test(text);
}

/** Whether an event name glob matches `event`: `*` stands for any run of characters (dots included). */
export function patternMatches(pattern: string, event: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === event;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!event.startsWith(first) || event.length < first.length + last.length || !event.endsWith(last)) {
    return false;
  }
  let from = first.length;
  const to = event.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = event.indexOf(middle, from);
    if (found < 0 || found + middle.length > to) return false;
    from = found + middle.length;
  }
  return true;
}

/**
 * The per-network rule event each alert of a rule incident groups (CONTRACT §13, `groupBy` setting `rule`):
 * a silence over `network.*` or `network.rule_triggered` holds a rule's incident alerts back as it holds the
 * per-network alerts they replace (docs/silences.md). An acknowledgement is someone's action, not the network's:
 * only its own name (or `*`) silences it. Every grouped incident is a rule's today; another kind joining that
 * family (docs/design/incidents.md, hooks) keeps its own names and needs no entry here.
 */
const GROUPED_RULE_EVENT: Readonly<Partial<Record<AlertEvent, AlertEvent>>> = {
  'incident.opened': 'network.rule_triggered',
  'incident.updated': 'network.rule_triggered',
  'incident.reminder': 'network.rule_triggered',
  'incident.escalated': 'network.rule_triggered',
  'incident.resolved': 'network.rule_resolved',
};

/**
 * The event that opened the incident a reminder or escalation tells of, when that incident is not a rule's:
 * a blind spot's (`network.unreachable`, `network.rule_unreadable`) or the monitor's own (`filter.status_changed`,
 * `api.unreachable`, ...), read from its `incident` id; undefined for any other alert (a rule incident's, an
 * acknowledgement: someone's action, held only by its own name or `*`).
 */
export function followUpOpener(alert: {
  readonly event: unknown;
  readonly incident?: unknown;
}): AlertEvent | undefined {
  if (alert.event !== 'incident.reminder' && alert.event !== 'incident.escalated') return undefined;
  // The kinds' registry says what opened it; a rule's (across networks or on one) is held by its grouped event.
  const ref = parseIncidentId(alert.incident);
  return ref === undefined || ref.kind === 'rule' ? undefined : INCIDENT_KINDS[ref.kind].heldAs(ref);
}

/**
 * Whether a silence's pattern covers `event`: its own name; for a reminder or escalation of a blind spot or of
 * the monitor's own incidents (told by its `incident` id), the event that opened it ({@link followUpOpener});
 * for a rule incident's alert, the per-network rule event it groups ({@link GROUPED_RULE_EVENT}).
 */
export function silenceMatches(pattern: string, event: string, incident?: string): boolean {
  if (patternMatches(pattern, event)) return true;
  // Held as what opened it, never as a rule's (docs/silences.md).
  const opener = followUpOpener({ event, incident });
  if (opener !== undefined) return patternMatches(pattern, opener);
  const grouped = Object.hasOwn(GROUPED_RULE_EVENT, event)
    ? GROUPED_RULE_EVENT[event as AlertEvent]
    : undefined;
  return grouped !== undefined && patternMatches(pattern, grouped);
}

/** The events a pattern silences (a rule incident's alerts with the per-network rule events they group). */
export function eventsMatching(pattern: string): AlertEvent[] {
  return SILENCEABLE_EVENTS.filter((event) => silenceMatches(pattern, event));
}

/**
 * What is wrong with an event pattern, or undefined when it is fine: letters, digits, `.`, `_` and `*`, and
 * at least one event it silences (the list of events is in the message).
 */
export function patternProblem(pattern: string): string | undefined {
  const known = `one of: ${SILENCEABLE_EVENTS.join(', ')} (or a pattern with *, e.g. network.*)`;
  if (pattern === '') return `the event pattern is empty; ${known}`;
  if (pattern.length > MAX_PATTERN_CHARS) {
    return `the event pattern is longer than ${MAX_PATTERN_CHARS} characters`;
  }
  if (!/^[a-z0-9._*]+$/.test(pattern)) {
    return `the event pattern ${JSON.stringify(pattern)} may hold only a-z, 0-9, ".", "_" and "*"; ${known}`;
  }
  if (eventsMatching(pattern).length === 0) {
    const never = NEVER_SILENCED.has(pattern as AlertEvent) ? ` (${pattern} is never silenced)` : '';
    return `the event pattern ${JSON.stringify(pattern)} matches no event${never}; ${known}`;
  }
  return undefined;
}

/** What `silence --for` asks for. */
export interface SilenceRequest {
  /** The duration as typed, e.g. `2h` (lambda/core/duration.ts). */
  readonly duration: string;
  /** @default {@link DEFAULT_PATTERN} */
  readonly pattern?: string;
  readonly reason?: string;
  readonly createdBy?: string;
}

/** A new silence, or every problem with the request (each names its option). */
export type NewSilence =
  | { readonly ok: true; readonly silence: Silence }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Builds a silence starting at `nowMs` from a request, or says every problem: a duration from 1 minute to
 * 7 days, a pattern that matches at least one event, a reason of printable text within 200 characters.
 */
export function newSilence(request: SilenceRequest, nowMs: number, id: string): NewSilence {
  const problems: string[] = [];
  const ms = parseDuration(request.duration);
  if (ms === undefined) {
    problems.push(`--for must be a duration like 30m, 2h or 3d (got ${JSON.stringify(request.duration)})`);
  } else if (ms > MAX_SILENCE_MS) {
    problems.push(
      `--for ${request.duration} is longer than the longest silence, 7 days (7d): a silence is for planned ` +
        'work; start another one when it ends',
    );
  } else if (ms < MIN_SILENCE_MS) {
    problems.push(`--for ${request.duration} is shorter than the shortest silence, 1 minute (1m)`);
  }
  const pattern = request.pattern ?? DEFAULT_PATTERN;
  const bad = patternProblem(pattern);
  if (bad !== undefined) problems.push(`--event: ${bad}`);
  const reason = request.reason?.trim();
  if (reason !== undefined) {
    if ([...reason].length > MAX_REASON_CHARS) {
      problems.push(`--reason is longer than ${MAX_REASON_CHARS} characters`);
    }
    if (/[\u0000-\u001f\u007f-\u009f]/.test(reason)) {
      problems.push('--reason may not hold control characters (line breaks, escapes)');
    }
  }
  if (problems.length > 0 || ms === undefined) return { ok: false, problems };
  const now = new Date(nowMs).toISOString();
  return {
    ok: true,
    silence: {
      id,
      startsAt: now,
      endsAt: new Date(nowMs + ms).toISOString(),
      pattern,
      ...(reason === undefined || reason === '' ? {} : { reason }),
      createdAt: now,
      ...(request.createdBy === undefined ? {} : { createdBy: request.createdBy }),
    },
  };
}

/** Whether an instant (epoch ms) lies in [startsAt, endsAt). */
function covers(silence: Silence, ms: number): boolean {
  const start = Date.parse(silence.startsAt);
  const end = Date.parse(silence.endsAt);
  return !Number.isNaN(start) && !Number.isNaN(end) && start <= ms && ms < end;
}

/**
 * The silence that suppresses an alert: one whose [startsAt, endsAt) holds the time the alert's change was
 * observed (`at`, not the time it is sent) and whose pattern matches its event. An alert observed before a
 * silence began is sent even when it is still waiting in the outbox once the silence has begun; one observed
 * inside a silence stays suppressed after the silence ends. `monitor.test` is never silenced. Of several
 * silences, the one that started first (then the lower id), so every cycle names the same one.
 */
export function silenceFor(
  silences: readonly Silence[],
  alert: Pick<AlertRecord, 'event' | 'at'> & Partial<Pick<AlertRecord, 'incident'>>,
): Silence | undefined {
  if (NEVER_SILENCED.has(alert.event)) return undefined;
  const at = Date.parse(alert.at);
  if (Number.isNaN(at)) return undefined;
  let found: Silence | undefined;
  for (const silence of silences) {
    if (!covers(silence, at) || !silenceMatches(silence.pattern, alert.event, alert.incident)) continue;
    if (
      found === undefined ||
      silence.startsAt < found.startsAt ||
      (silence.startsAt === found.startsAt && silence.id < found.id)
    ) {
      found = silence;
    }
  }
  return found;
}

/** Where a silence stands at `nowMs`. */
export type SilenceStatus = 'active' | 'pending' | 'ended';

export function silenceStatus(silence: Silence, nowMs: number): SilenceStatus {
  if (covers(silence, nowMs)) return 'active';
  return Date.parse(silence.startsAt) > nowMs ? 'pending' : 'ended';
}

/** Milliseconds left of an active silence, 0 once it ended. */
export function remainingMs(silence: Silence, nowMs: number): number {
  return Math.max(0, Date.parse(silence.endsAt) - nowMs);
}

/**
 * Silences as `silence list` shows them: the active ones first (the soonest to end first), then the ended
 * ones, most recently ended first, ended more than `recentMs` ago left out.
 */
export function listedSilences(silences: readonly Silence[], nowMs: number, recentMs: number): Silence[] {
  const active = silences
    .filter((s) => silenceStatus(s, nowMs) !== 'ended')
    .sort((a, b) => a.endsAt.localeCompare(b.endsAt) || a.id.localeCompare(b.id));
  const ended = silences
    .filter((s) => silenceStatus(s, nowMs) === 'ended' && nowMs - Date.parse(s.endsAt) <= recentMs)
    .sort((a, b) => b.endsAt.localeCompare(a.endsAt) || a.id.localeCompare(b.id));
  return [...active, ...ended];
}

/**
 * A stored item read back as a silence, or undefined when it is not one (a field missing or of the wrong
 * type): a corrupt item must neither break a cycle nor silence anything. An end more than 7 days after the
 * start reads as 7 days after it.
 */
export function toSilence(item: Readonly<Record<string, unknown>>): Silence | undefined {
  const text = (name: string) => (typeof item[name] === 'string' ? (item[name] as string) : undefined);
  const id = text('id');
  const startsAt = text('startsAt');
  const endsAt = text('endsAt');
  const pattern = text('pattern');
  const createdAt = text('createdAt');
  if (
    id === undefined ||
    startsAt === undefined ||
    endsAt === undefined ||
    pattern === undefined ||
    createdAt === undefined ||
    Number.isNaN(Date.parse(startsAt)) ||
    Number.isNaN(Date.parse(endsAt))
  ) {
    return undefined;
  }
  const reason = text('reason');
  const createdBy = text('createdBy');
  // At most 7 days whoever wrote it (another tool, a hand edit): the cap holds where silences are read.
  const longest = Date.parse(startsAt) + MAX_SILENCE_MS;
  return {
    id,
    startsAt,
    endsAt: Date.parse(endsAt) > longest ? new Date(longest).toISOString() : endsAt,
    pattern,
    ...(reason === undefined ? {} : { reason }),
    createdAt,
    ...(createdBy === undefined ? {} : { createdBy }),
  };
}

/** Whether a silence can hold an alert back: never a resolve, never the delivery check or an announcement. */
export function mayBeSilenced(alert: Pick<AlertRecord, 'event'>, closes: boolean): boolean {
  return !closes && !NEVER_SILENCED.has(alert.event);
}

/**
 * A change a silence held back (its alert recorded as suppressed) that still holds, as an outbox scope keeps it
 * beside its state (docs/silences.md): announced once when the silence ends, unless its reverse comes first.
 */
export interface HeldChange {
  /** The silence that held it back. */
  readonly silence: string;
  /** The event held back first (a later change of the same thing keeps it). */
  readonly event: AlertEvent;
  /** When the change held back first began. */
  readonly at: string;
  /** When what holds now began (a status: when it was first seen). */
  readonly since: string;
  readonly incident?: string;
  readonly from?: string;
  readonly to?: string;
  readonly expected?: string;
  readonly severity?: Severity;
  readonly rule?: string;
  readonly network?: string;
  /** True when the incident was open, and published, before the silence: its resolve is sent all the same. */
  readonly opened?: boolean;
  /**
   * The incident's escalation stage as its latest alert held back says (an escalation inside the silence
   * raises it): the announcement at the silence's end carries it, for subscriptions by stage
   * (docs/acknowledge.md). Absent: 1.
   */
  readonly stage?: number;
  /**
   * The alert that closed it inside the silence (suppressed too), kept until that alert has left the outbox so
   * that a cycle handling it again decides the same.
   */
  readonly closedBy?: number;
  /**
   * The incident's acknowledgement, held back with it (docs/silences.md, Acknowledged inside a silence): sent
   * right after the announcement at the silence's end, so that PagerDuty hears of the incident before it hears
   * of its acknowledgement. With `event` `incident.acknowledged`, the change is that acknowledgement alone (of
   * an incident whose opening was published): it is sent at the silence's end without an announcement.
   */
  readonly acknowledgement?: HeldAcknowledgement;
}

/** An `incident.acknowledged` a silence held back, as its held change keeps it until the silence's end. */
export interface HeldAcknowledgement {
  /** The outbox sequence number of the alert held back: a cycle handling that alert again decides the same. */
  readonly seq: number;
  /** The alert as queued, without its sequence number and outbox bookkeeping; sent again with a new one. */
  readonly record: NewAlertRecord;
}

/** The changes an outbox scope's silences hold back, by `heldKey` (`silence.ts`). */
export type HeldChanges = Readonly<Record<string, HeldChange>>;

/** Whether any change is held back (a cycle then reads the silences to see whether one has ended). */
export function holdsAny(held: HeldChanges | undefined): boolean {
  return held !== undefined && Object.values(held).some((h) => h.closedBy === undefined);
}

/** Held changes as stored, read back; what is not one is left out (a corrupt entry must not break a cycle). */
export function toHeldChanges(stored: unknown): HeldChanges {
  if (typeof stored !== 'object' || stored === null) return {};
  const out: Record<string, HeldChange> = {};
  for (const [key, value] of Object.entries(stored as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null) continue;
    const v = value as Record<string, unknown>;
    if (typeof v['silence'] !== 'string' || typeof v['event'] !== 'string' || typeof v['at'] !== 'string')
      continue;
    const { stage, acknowledgement, ...rest } = v;
    const ack = toHeldAcknowledgement(acknowledgement);
    out[key] = {
      ...(rest as unknown as HeldChange),
      since: typeof v['since'] === 'string' ? v['since'] : v['at'],
      ...(typeof stage === 'number' && Number.isSafeInteger(stage) && stage >= 1 ? { stage } : {}),
      ...(ack === undefined ? {} : { acknowledgement: ack }),
    };
  }
  return out;
}

/** A held acknowledgement as stored, read back; undefined when it is not one (then nothing follows the announcement). */
function toHeldAcknowledgement(stored: unknown): HeldAcknowledgement | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const { seq, record } = stored as Record<string, unknown>;
  if (
    typeof seq !== 'number' ||
    !Number.isSafeInteger(seq) ||
    typeof record !== 'object' ||
    record === null
  ) {
    return undefined;
  }
  const r = record as Record<string, unknown>;
  if (r['event'] !== 'incident.acknowledged' || typeof r['at'] !== 'string') return undefined;
  return { seq, record: record as NewAlertRecord };
}
