/**
 * The texts of the `status` family (docs/alerts.md): a filter status change and the reminder that the status is
 * still away from the expected one. Both name two statuses; when those would look the same in the subject and
 * SMS (they differ only in invisible characters, or in letters that fold to the same ASCII), the texts say so
 * and show both escaped (`<U+041E>N`), so that `ON -> ON` never reaches a reader. Pure.
 */

import { displayStatus } from '../detect/status.ts';
import type { MonitorIncidentAlertRecord } from '../incidents/monitor-incidents.ts';
import type { AlertRecord, StatusAlertRecord } from '../types.ts';
import { ALERT_EVENT_TEXTS } from './alert-events.ts';
import { SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from './alert-limits.ts';
import { formatDuration, momentOf } from './alert-time.ts';
import { incidentTag, isIncidentEvent } from './monitor-incident-text.ts';
import { escapeHidden, escapeNonAscii, foldVisible, shorten } from './visible-text.ts';

/** What the SMS and email say when two statuses would otherwise look the same. */
export const LOOK_ALIKE_NOTE = 'differ only in invisible or look-alike characters';
/** The subject's short form of {@link LOOK_ALIKE_NOTE}: the subject has no room for the sentence and both statuses. */
export const LOOK_ALIKE_TAG = '(look-alike)';

/** Raw characters folded for a subject or SMS; anything longer is cut first so a huge status costs nothing. */
const MAX_FOLD_INPUT = 1000;
const MAX_STATUS_IN_EMAIL = 1000;
const MAX_ESCAPED_IN_EMAIL = 2000;
/** Characters kept before the first difference when two long statuses are cut around it. */
const CONTEXT_BEFORE_DIFFERENCE = 8;

/**
 * A record of the status family: a change, a reminder, or an `incident.*` alert (an escalation, an
 * acknowledgement) of the incident of the status away from the expected one.
 */
export type StatusFamilyRecord = StatusAlertRecord | MonitorIncidentAlertRecord;

/** The words before the status of an escalation or acknowledgement: `ESCALATED stage 2: filter status still`. */
function incidentLead(alert: AlertRecord): string {
  return `${incidentTag(alert)}filter status still`;
}

/** The subject of a status change or reminder, before the final ASCII guard. */
export function statusSubject(alert: AlertRecord, prefix: string): string {
  if (isIncidentEvent(alert) && typeof alert.expected !== 'string') {
    // An acknowledgement made where the expected status is not known (the link, the CLI): the status alone.
    const head = `${prefix}${incidentLead(alert)} `;
    const tail = ' (away)';
    return `${head}${shorten(subjectStatus(alert.to), SUBJECT_MAX_CHARS - head.length - tail.length)}${tail}`;
  }
  if (alert.event === 'filter.status_reminder' || isIncidentEvent(alert)) {
    const pair = shownPair(alert.to, alert.expected);
    const tag = pair.lookAlike ? ` ${LOOK_ALIKE_TAG}` : '';
    const lead = isIncidentEvent(alert)
      ? incidentLead(alert)
      : ALERT_EVENT_TEXTS['filter.status_reminder'].subject;
    const head = `${prefix}${lead} `;
    const middle = ', expected ';
    const [to, expected] = fitDistinctPair(
      pair.first,
      pair.second,
      SUBJECT_MAX_CHARS - head.length - middle.length - tag.length,
    );
    return `${head}${to}${middle}${expected}${tag}`;
  }
  const pair = shownPair(alert.from, alert.to);
  const lead = ALERT_EVENT_TEXTS['filter.status_changed'].subject;
  const head = `${prefix}${severityTag(alert)}${lead}${pair.lookAlike ? ` ${LOOK_ALIKE_TAG}` : ''}: `;
  const arrow = ' -> ';
  const [from, to] = fitDistinctPair(pair.first, pair.second, SUBJECT_MAX_CHARS - head.length - arrow.length);
  return `${head}${from}${arrow}${to}`;
}

/** The SMS of a status change or reminder, before the final ASCII guard; `when` is `seen ...`. */
export function statusSms(alert: StatusFamilyRecord, name: string, when: string): string {
  if (isIncidentEvent(alert) && typeof alert.expected !== 'string') {
    const lead = `${name}: ${incidentLead(alert)}`;
    const tail = `, away for ${stillFor(alert)}, ${when}`;
    const fixed = `${lead} ""${tail}`;
    return `${lead} "${shorten(subjectStatus(alert.to), SMS_MAX_CHARS - fixed.length)}"${tail}`;
  }
  if (alert.event === 'filter.status_reminder' || isIncidentEvent(alert)) {
    const pair = shownPair(alert.to, alert.expected);
    const note = pair.lookAlike ? `; ${LOOK_ALIKE_NOTE}` : '';
    const lead = `${name}: ${isIncidentEvent(alert) ? incidentLead(alert) : ALERT_EVENT_TEXTS['filter.status_reminder'].sms}`;
    // With the note, the time away is left to the email: the SMS has no room for both.
    const tail = pair.lookAlike ? `, ${when}` : `, for ${stillFor(alert)}, ${when}`;
    const fixed = `${lead} "" (expected ""${note})${tail}`;
    const [to, expected] = fitDistinctPair(pair.first, pair.second, SMS_MAX_CHARS - fixed.length);
    return `${lead} "${to}" (expected "${expected}"${note})${tail}`;
  }
  const lead = `${name}: ${severityTag(alert)}${ALERT_EVENT_TEXTS['filter.status_changed'].sms}`;
  if (typeof alert.from !== 'string') {
    const fixed = `${lead} "", ${when}`;
    return `${lead} "${shorten(subjectStatus(alert.to), SMS_MAX_CHARS - fixed.length)}", ${when}`;
  }
  const pair = shownPair(alert.to, alert.from);
  const note = pair.lookAlike ? `; ${LOOK_ALIKE_NOTE}` : '';
  const fixed = `${lead} "" (was ""${note}), ${when}`;
  const [to, from] = fitDistinctPair(pair.first, pair.second, SMS_MAX_CHARS - fixed.length);
  return `${lead} "${to}" (was "${from}"${note}), ${when}`;
}

/**
 * The email lines that name the statuses: exact and JSON-quoted; when either holds a character outside
 * printable ASCII, both again with every such character escaped, and the look-alike note when the subject
 * and SMS could not tell them apart.
 */
export function statusEmailLines(
  alert: StatusFamilyRecord,
  field: (label: string, value: string) => string,
): string[] {
  // An escalation or acknowledgement of the status away reads as its reminder does.
  const reminder = alert.event !== 'filter.status_changed';
  const [first, second] = reminder ? [alert.to, alert.expected] : [alert.to, alert.from];
  const [firstLabel, secondLabel] = reminder
    ? ['Current status', 'Expected status']
    : ['New status', 'Previous status'];
  const [firstShort, secondShort] = reminder ? ['Current', 'Expected'] : ['New', 'Previous'];
  const lines = [field(firstLabel, quoteStatus(first))];
  // An acknowledgement made where the expected status is not known leaves it out.
  if (!isIncidentEvent(alert) || typeof second === 'string')
    lines.push(field(secondLabel, quoteStatus(second)));
  if (reminder) {
    lines.push(field('Away for', stillFor(alert)));
  }
  if (!isAsciiText(first) || !isAsciiText(second)) {
    if (shownPair(first, second).lookAlike) {
      lines.push(field('Note', `the two statuses ${LOOK_ALIKE_NOTE}:`));
    }
    for (const [label, status] of [
      [firstShort, first],
      [secondShort, second],
    ] as const) {
      if (typeof status === 'string') {
        lines.push(
          field(
            `${label}, escaped`,
            shorten(escapeNonAscii(shorten(status, MAX_STATUS_IN_EMAIL)), MAX_ESCAPED_IN_EMAIL),
          ),
        );
      }
    }
  }
  return lines;
}

/**
 * A status for the email: exact and JSON-quoted, so blanks, empties and control characters stay visible, and
 * the characters JSON leaves as they are but a reader cannot see (format characters such as U+202E, unusual
 * spaces, C1 controls) escaped as `<U+XXXX>`.
 */
export function quoteStatus(status: unknown): string {
  if (typeof status !== 'string') {
    return 'unknown';
  }
  if (status.length <= MAX_STATUS_IN_EMAIL) {
    return escapeHidden(JSON.stringify(status));
  }
  const quoted = escapeHidden(JSON.stringify(shorten(status, MAX_STATUS_IN_EMAIL)));
  return `${quoted} (shortened; ${status.length} characters in all)`;
}

/** `HIGH: ` or `RESOLVED: ` before a status change's subject and SMS, when an expected status is set. */
function severityTag(alert: AlertRecord): string {
  return alert.severity === 'high' ? 'HIGH: ' : alert.severity === 'resolved' ? 'RESOLVED: ' : '';
}

/**
 * How long a reminder's status has lasted, e.g. `2h 5m`; an escalation's or acknowledgement's: how long the
 * status has been away (since its incident opened).
 */
function stillFor(alert: StatusFamilyRecord): string {
  const since = momentOf(isIncidentEvent(alert) ? alert.openedAt : alert.statusSince);
  const seen = momentOf(alert.at);
  return since === undefined || seen === undefined ? 'unknown' : formatDuration(seen.ms - since.ms);
}

/**
 * A status for the subject and SMS: folded to ASCII with hidden characters and spaces at either end escaped
 * (`ON<U+200B>`, `ON<U+0020>`), the empty status as `(empty)`, one of spaces only as `(blank)`.
 */
export function subjectStatus(status: unknown): string {
  if (typeof status !== 'string') {
    return '(unknown)';
  }
  if (status === '') {
    return displayStatus(status);
  }
  const folded = foldVisible(shorten(status, MAX_FOLD_INPUT));
  if (folded.trim() === '') {
    return '(blank)';
  }
  // `Active ` must not pass for `Active` in a subject, where nothing marks where a status ends.
  return folded.replace(/^ +| +$/g, (spaces) => '<U+0020>'.repeat(spaces.length));
}

interface ShownPair {
  readonly first: string;
  readonly second: string;
  /** The two differ, but their folded forms are the same: shown escaped instead, with a note. */
  readonly lookAlike: boolean;
}

function shownPair(first: unknown, second: unknown): ShownPair {
  const a = subjectStatus(first);
  const b = subjectStatus(second);
  if (a !== b || typeof first !== 'string' || typeof second !== 'string' || first === second) {
    return { first: a, second: b, lookAlike: false };
  }
  return { first: escapedStatus(first), second: escapedStatus(second), lookAlike: true };
}

function escapedStatus(status: string): string {
  return status === '' ? '""' : escapeNonAscii(shorten(status, MAX_FOLD_INPUT));
}

/**
 * Shortens two texts to share `budget` characters: neither gets less than half unless the other needs less.
 * Two different texts stay different: when their shortened forms would be the same, both are cut around
 * their first difference instead (`...xxxx<U+200C>...`).
 */
function fitDistinctPair(first: string, second: string, budget: number): [string, string] {
  const fitted = fitPair(first, second, budget);
  if (fitted[0] !== fitted[1] || first === second) {
    return fitted;
  }
  let at = 0;
  while (at < first.length && at < second.length && first[at] === second[at]) at++;
  const start = Math.max(0, at - CONTEXT_BEFORE_DIFFERENCE);
  return start === 0 ? fitted : fitPair(`...${first.slice(start)}`, `...${second.slice(start)}`, budget);
}

function fitPair(first: string, second: string, budget: number): [string, string] {
  if (first.length + second.length <= budget) {
    return [first, second];
  }
  const half = Math.floor(budget / 2);
  if (first.length <= half) {
    return [first, shorten(second, budget - first.length)];
  }
  if (second.length <= budget - half) {
    return [shorten(first, budget - second.length), second];
  }
  return [shorten(first, half), shorten(second, budget - half)];
}

function isAsciiText(status: unknown): boolean {
  return typeof status !== 'string' || /^[\x20-\x7E]*$/.test(status);
}
