/**
 * What an alert family is (issue 20.3; docs/alerts.md): everything that differs between families of alert
 * events, as one record per family (`alert-families/<family>.ts`), collected in `index.ts` where the compiler
 * refuses a family without all of it. The renderers (`alert-text.ts`, `alert-email.ts`, `alert-documents.ts`)
 * look the family up and keep only what every alert shares: the monitor's name, the final ASCII guard, `Seen`,
 * the footer, the networks' figures, the documents' common fields. Pure.
 */

import type { AlertEvent, AlertRecord, Severity } from '../../types.ts';
import type { AlertDocument } from '../alert-documents.ts';
import { eventTexts, RECOVERY_EVENTS } from '../alert-events.ts';
import { formatDuration, momentOf } from '../alert-time.ts';
import { quoteStatus } from '../status-alert-text.ts';
import { asciiFold, cleanText, foldVisible, shorten } from '../visible-text.ts';

/** What an alert does to an incident: opens it, or closes it, or someone took it. */
export type AlertAction = 'trigger' | 'resolve' | 'acknowledge';

/**
 * How urgent an alert is, in PagerDuty's words: `critical` away from the expected status or a traffic rule
 * triggered (severity high), `error` a problem with the monitor's own view of the API, `warning` a status
 * change without an expected status, `info` everything that ends something or needs nothing.
 */
export type AlertLevel = 'critical' | 'error' | 'warning' | 'info';

/** Formats one `Label: value` line: the email's padded field, the chat's `*Label:* value`. */
export type TextField = (label: string, value: string) => string;

/**
 * Everything about one family of alert events, for its record type `R`. Each text method returns the text
 * before the renderer's common guard (ASCII folding and the channel's length).
 */
export interface AlertFamily<R extends AlertRecord> {
  /** The subject, `prefix` (`[name] `) first. */
  subject(alert: R, prefix: string): string;
  /** The SMS, `name: ` first; `when` is `seen 2026-11-22 10:04 UTC` (or `time unknown`). */
  sms(alert: R, name: string, when: string): string;
  /** The email's lines between its introduction and `Seen`: the family's fields, then its severity. */
  emailLines(alert: R, field: TextField): readonly string[];
  /** The email's lines after `Seen`: how long, how many cycles, the detail. */
  emailTail(alert: R, field: TextField): readonly string[];
  /** The chat description's lines between its sentence and `Seen`. */
  chatLines(alert: R, field: TextField): readonly string[];
  /** The chat description's lines after `Severity`, from the `sqs` document (a count of cycles). */
  chatTail(document: AlertDocument, field: TextField): readonly string[];
  /** Message attributes after the common ones (`event`, `from`, `to`, `severity`, `action`, `stage`). */
  attributes(alert: R): Readonly<Record<string, string>>;
  /** Whether the alert opens an incident, closes one, is someone taking it, or none of these. */
  action(alert: R): AlertAction | undefined;
  /** The level, once an end (`info`) or `severity: high` (`critical`) has not decided it. */
  level(alert: R, action: AlertAction | undefined): AlertLevel;
  /** The `severity` of the `sqs` and chat documents. */
  severity(alert: R): Severity | undefined;
  /**
   * The incident id of a record that carries none (stored before alerts carried ids): the id its incident
   * would have had, where the record says enough. Unbounded (the caller bounds it).
   */
  derivedIncident(alert: R, action: AlertAction | undefined): string | undefined;
  /** Fields the `sqs` document adds after the common ones. */
  documentFields(alert: R): Readonly<Record<string, unknown>>;
  /**
   * Whether the email ends with the latest figures of each network (`Latest network figures:`). @default true;
   * false for an alert about a period, not a moment (the digest).
   */
  readonly networkFigures?: boolean;
  /** The email's first paragraph when the event's own (`alert-events.ts`) does not fit the record; optional. */
  intro?(alert: R): string | undefined;
  /**
   * The key of what the alert changes, for a silence to hold it back until it ends (docs/silences.md,
   * `silence.ts` heldKey): its incident, or what else still holds. Undefined, or no member, when the alert
   * changes nothing that could still hold (a reminder, an acknowledgement, the delivery check).
   */
  heldKey?(alert: R): string | undefined;
  /**
   * What still holds of the family's change a silence held back, as its end's announcement (a
   * `silence.still_holding` record, `heldEvent` the family's) names it in `room` characters; undefined, or no
   * member, for the held event's own subject words.
   */
  heldText?(announcement: AlertRecord, room: number): string | undefined;
}

const MAX_DETAIL_IN_EMAIL = 2000;
const MAX_DETAIL_IN_SMS = 100;
/** Raw characters folded for a one-line text; anything longer is cut first so a huge text costs nothing. */
const MAX_FOLD_INPUT = 1000;

/** A count of cycles from the record, or undefined when it is not a whole number of at least 0. */
export function cyclesOf(alert: AlertRecord): number | undefined {
  const cycles = alert.cycles;
  return typeof cycles === 'number' && Number.isSafeInteger(cycles) && cycles >= 0 ? cycles : undefined;
}

/** The record's own severity, when it is one this version knows. */
export function recordSeverity(alert: AlertRecord): Severity | undefined {
  return alert.severity === 'high' || alert.severity === 'resolved' ? alert.severity : undefined;
}

/** The email's `Severity` line of an alert that carries one against the expected status; none otherwise. */
export function expectedSeverityLines(alert: AlertRecord, field: TextField): string[] {
  if (alert.severity !== 'high' && alert.severity !== 'resolved') return [];
  const why =
    alert.severity === 'high'
      ? `HIGH (the status is away from the expected ${quoteStatus(alert.expected)})`
      : `RESOLVED (back to the expected ${quoteStatus(alert.expected)})`;
  return [field('Severity', why)];
}

/** The email's `Detail` line, when the record has one. */
export function detailLines(alert: AlertRecord, field: TextField): string[] {
  return typeof alert.detail === 'string' && alert.detail !== ''
    ? [field('Detail', cleanText(alert.detail, MAX_DETAIL_IN_EMAIL))]
    : [];
}

/** How long the previous status lasted, from the record's `previousSince` to its `at`. */
export function previousDuration(alert: AlertRecord): string {
  const since = momentOf(alert.previousSince);
  const seen = momentOf(alert.at);
  if (since === undefined || seen === undefined) {
    return 'unknown';
  }
  return `${formatDuration(seen.ms - since.ms)} (since ${since.iso})`;
}

/**
 * The id an incident of `alert.event` gets when its record carries none: an end names the event that opened
 * it (`openedBy`) and when (`previousSince`); anything else that acts on an incident, its own event and time.
 */
export function incidentFromEvent(
  alert: AlertRecord,
  action: AlertAction | undefined,
  openedBy?: AlertEvent,
): string | undefined {
  if (action === undefined) return undefined;
  if (action === 'resolve' && openedBy !== undefined && typeof alert.previousSince === 'string') {
    return `${openedBy}/${alert.previousSince}`;
  }
  return `${String(alert.event)}/${String(alert.at)}`;
}

/** An event name this version does not know (a newer writer, a corrupt record), printable and never blank. */
export function unknownEventLabel(alert: AlertRecord): string {
  const event: unknown = alert.event;
  return (
    asciiFold(shorten(typeof event === 'string' ? event : String(event), MAX_FOLD_INPUT)).trim() ||
    '(unnamed)'
  );
}

/** The subject of an event whose words are fixed (`alert-events.ts`): `[name] API unreachable`. */
export function plainSubject(alert: AlertRecord, prefix: string): string {
  return `${prefix}${eventTexts(alert.event)?.subject ?? `Alert: ${unknownEventLabel(alert)}`}`;
}

/**
 * The SMS of an event whose words are fixed: the sentence, when, the detail; with `counted`, the cycles in a
 * row (a recovery's count and detail describe the incident that ended, and say so).
 */
export function plainSms(alert: AlertRecord, name: string, when: string, counted: boolean): string {
  const texts = eventTexts(alert.event);
  const sentence = texts?.sms ?? `alert ${shorten(unknownEventLabel(alert), 40)}`;
  const cycles = counted ? cyclesOf(alert) : undefined;
  const recovery = RECOVERY_EVENTS.has(alert.event);
  const count =
    cycles !== undefined && cycles > 1
      ? recovery
        ? ` (after ${cycles} failing cycles)`
        : ` (${cycles} cycles in a row)`
      : '';
  const detail =
    typeof alert.detail === 'string' && alert.detail !== ''
      ? ` ${recovery ? 'Last error was: ' : ''}${shorten(foldVisible(shorten(alert.detail, MAX_FOLD_INPUT), 'space').trim(), MAX_DETAIL_IN_SMS)}`
      : '';
  return `${name}: ${sentence}${count}, ${when}.${detail}`;
}

/** The record's own incident id, when it carries one. */
export function ownIncident(alert: Pick<AlertRecord, 'incident'>): string | undefined {
  return typeof alert.incident === 'string' && alert.incident !== '' ? alert.incident : undefined;
}

/** What a family with nothing to add returns: no lines, no attributes, no document fields. */
export const NOTHING = {
  lines: (): readonly string[] => [],
  fields: (): Readonly<Record<string, never>> => ({}),
};

/** The record's fields among `keys` that are strings, as attributes (the renderer makes them valid for SNS). */
export function stringAttributes(
  alert: AlertRecord,
  keys: readonly (keyof AlertRecord)[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = alert[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}
