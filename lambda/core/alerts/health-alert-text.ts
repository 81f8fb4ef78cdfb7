/**
 * The texts of the `health` family (docs/alerts.md, Blind spots): a network that keeps failing, a rule that
 * reads nothing, and their ends. One alert lists every network concerned in its cycle: the subject and SMS as
 * many as fit (then `+N more`), each with its failure kind and HTTP status, or the rule and its path; the email
 * every network with when it began and its last error. Network ids and paths come from configuration but may
 * hold anything: they are folded and escaped as API text is. Pure.
 */

import { closesIncident } from '../detect/network-health.ts';
import type { AlertRecord, HealthMember } from '../types.ts';
import { ALERT_EVENT_TEXTS } from './alert-events.ts';
import { SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from './alert-limits.ts';
import { momentOf } from './alert-time.ts';
import { incidentIntro } from './monitor-incident-text.ts';
import { escapeHidden, foldVisible, shorten } from './visible-text.ts';

const MAX_FOLD_INPUT = 200;
const MAX_TEXT_IN_EMAIL = 2000;
/** Most networks listed one per line in the email; the rest are counted. */
const MAX_MEMBERS_IN_EMAIL = 200;

/** The networks of the record, whatever it holds (a damaged record lists none). */
function membersOf(alert: AlertRecord): HealthMember[] {
  return Array.isArray(alert.members)
    ? alert.members.filter(
        (m): m is HealthMember => typeof m === 'object' && m !== null && typeof m.network === 'string',
      )
    : [];
}

function oneLine(text: unknown, fallback: string): string {
  if (typeof text !== 'string' || text === '') return fallback;
  return foldVisible(shorten(text, MAX_FOLD_INPUT));
}

/** `edge-1 (client, HTTP 404)`, `edge-2 (transport)`, or the bare id for a rule's networks. */
function memberLabel(member: HealthMember, withFailure: boolean): string {
  const id = oneLine(member.network, '?');
  if (!withFailure) return id;
  const how = [
    typeof member.errorKind === 'string' ? oneLine(member.errorKind, '?') : undefined,
    Number.isSafeInteger(member.httpStatus) ? `HTTP ${member.httpStatus}` : undefined,
  ].filter((part) => part !== undefined);
  return how.length === 0 ? id : `${id} (${how.join(', ')})`;
}

/**
 * As many labels as fit `room` characters joined by `, `, the rest counted as ` +N more`; at least the first
 * (shortened) so that every text names a network.
 */
function fitList(labels: readonly string[], room: number): string {
  if (labels.length === 0) return '(no network)';
  let out = '';
  for (let i = 0; i < labels.length; i++) {
    const more = i + 1 < labels.length ? ` +${labels.length - i - 1} more` : '';
    const next = `${out === '' ? '' : `${out}, `}${labels[i]}`;
    if (next.length + more.length <= room) {
      out = next;
      continue;
    }
    const left = labels.length - i;
    if (out === '')
      return `${shorten(labels[0]!, Math.max(4, room - ` +${left - 1} more`.length))}${left > 1 ? ` +${left - 1} more` : ''}`;
    return `${out} +${left} more`;
  }
  return out;
}

/**
 * Whether `alert` is an `incident.*` alert about a blind-spot incident (a reminder, an escalation, an
 * acknowledgement: CONTRACT §13-14): it lists its networks as the blind spots do (`members`), where a rule's
 * incident tells its story (`story`). The health family renders it. Told by the record's shape, not by its id,
 * so that a record renders by the family it was made for whatever its texts hold.
 */
export function isHealthIncidentAlert(alert: Pick<AlertRecord, 'event'> & Partial<AlertRecord>): boolean {
  return (
    typeof alert.event === 'string' &&
    alert.event.startsWith('incident.') &&
    alert.story === undefined &&
    Array.isArray(alert.members)
  );
}

/** The event that opened the alert's incident: for an `incident.*` alert, a rule's names its rule. */
function openingEvent(alert: AlertRecord): 'network.unreachable' | 'network.rule_unreadable' | undefined {
  if (alert.event === 'network.unreachable' || alert.event === 'network.recovered')
    return 'network.unreachable';
  if (alert.event === 'network.rule_unreadable' || alert.event === 'network.rule_readable') {
    return 'network.rule_unreadable';
  }
  if (!isHealthIncidentAlert(alert)) return undefined;
  return alert.rule === undefined ? 'network.unreachable' : 'network.rule_unreadable';
}

const isNetworkKind = (alert: AlertRecord) => openingEvent(alert) === 'network.unreachable';
const isEnd = (alert: AlertRecord) =>
  alert.event === 'network.recovered' || alert.event === 'network.rule_readable';
/** Whether the networks are listed with their failures: a network's failure, or its incident's reminders. */
const listsFailures = (alert: AlertRecord) => alert.event !== 'network.recovered' && isNetworkKind(alert);

/** What a reminder, an escalation or an acknowledgement of a blind spot says first: `REMINDER `, ... */
function incidentPrefix(alert: AlertRecord): string {
  switch (alert.event) {
    case 'incident.reminder':
      return 'REMINDER ';
    case 'incident.escalated':
      return `ESCALATED stage ${Number.isSafeInteger(alert.stage) ? alert.stage : '?'}: `;
    case 'incident.acknowledged':
      return `ACK by ${oneLine(alert.acknowledgedBy, '?').slice(0, 24)}: `;
    default:
      return '';
  }
}

/** What the subject and SMS say before the list: `2 networks unreachable`, `rule pps reads nothing (a.b) on`. */
function lead(alert: AlertRecord, count: number): string {
  const opening = openingEvent(alert);
  const texts = ALERT_EVENT_TEXTS[opening === undefined || isEnd(alert) ? alert.event : opening];
  const still = alert.event === 'incident.reminder' ? 'still ' : '';
  if (isNetworkKind(alert)) {
    return `${incidentPrefix(alert)}${count === 1 ? 'network' : `${count} networks`} ${still}${texts.subject}:`;
  }
  const path = typeof alert.path === 'string' ? ` (${oneLine(alert.path, '?')})` : '';
  return `${incidentPrefix(alert)}rule ${oneLine(alert.rule, '?')} ${still}${texts.subject}${path} on`;
}

/**
 * The email's first paragraph of a reminder, an escalation or an acknowledgement of a blind spot (the
 * `incident.*` texts of `alert-events.ts` speak of a rule's incident); undefined for the others.
 */
export function healthIncidentIntro(alert: AlertRecord): string | undefined {
  if (!isHealthIncidentAlert(alert)) return undefined;
  const what = isNetworkKind(alert)
    ? 'The networks below still fail their own requests'
    : "A traffic rule's path still reads nothing on the networks below";
  // A reminder and an escalation say it as the monitor's own incidents do; an acknowledgement names none.
  if (alert.event === 'incident.reminder' || alert.event === 'incident.escalated') {
    return incidentIntro(alert, what, 'its end');
  }
  return alert.event === 'incident.acknowledged'
    ? 'Someone took the incident below: it gets no more reminders and no escalation; its end is still sent (docs/acknowledge.md).'
    : undefined;
}

/** What the texts add at the end: the networks still failing, when the incident goes on. */
function stillFailing(alert: AlertRecord): string {
  if (!isEnd(alert) || closesIncident(alert)) return '';
  const left = Array.isArray(alert.remaining) ? alert.remaining.length : 0;
  return ` (${left} still ${isNetworkKind(alert) ? 'failing' : 'unreadable'})`;
}

/** The subject of a health alert, before the final ASCII guard. */
export function healthSubject(alert: AlertRecord, prefix: string): string {
  const members = membersOf(alert);
  const head = `${prefix}${lead(alert, members.length)} `;
  const tail = stillFailing(alert);
  const failure = listsFailures(alert);
  const room = SUBJECT_MAX_CHARS - head.length - tail.length;
  return `${head}${fitList(
    members.map((m) => memberLabel(m, failure)),
    room,
  )}${tail}`;
}

/** The SMS of a health alert, before the final ASCII guard; `when` is `seen ...`. */
export function healthSms(alert: AlertRecord, name: string, when: string): string {
  const members = membersOf(alert);
  const cycles = members.find((m) => Number.isSafeInteger(m.cycles))?.cycles;
  const rowText =
    !isEnd(alert) && !isHealthIncidentAlert(alert) && cycles !== undefined && cycles > 1
      ? ` for ${cycles} cycles in a row`
      : '';
  const head = `${name}: ${lead(alert, members.length).replace(/:$/, `${rowText}:`)} `;
  const tail = `${stillFailing(alert)}, ${when}.`;
  const failure = listsFailures(alert);
  const room = SMS_MAX_CHARS - head.length - tail.length;
  return `${head}${fitList(
    members.map((m) => memberLabel(m, failure)),
    room,
  )}${tail}`;
}

/**
 * What still holds of a blind spot a silence held back, as its end's announcement names it in `room`
 * characters (a `silence.still_holding` record, `heldEvent` the blind spot's: `AlertFamily.heldText`):
 * `network unreachable`, `rule pps reads nothing`. The held change keeps no networks: the reminders that
 * follow name them.
 */
export function healthHeldText(announcement: AlertRecord, room: number): string | undefined {
  if (announcement.heldEvent === 'network.unreachable') return 'network unreachable';
  if (announcement.heldEvent !== 'network.rule_unreadable') return undefined;
  return `rule ${shorten(oneLine(announcement.rule, '?'), Math.max(8, room - 19))} reads nothing`;
}

function emailText(text: unknown, max = MAX_TEXT_IN_EMAIL): string {
  return typeof text === 'string' && text !== '' ? escapeHidden(shorten(text, max), 'space') : '(unknown)';
}

/** The email lines of a health alert: the rule and its path, then every network with its failure and times. */
export function healthEmailLines(
  alert: AlertRecord,
  field: (label: string, value: string) => string,
): string[] {
  const lines: string[] = [];
  if (!isNetworkKind(alert)) {
    lines.push(field('Rule', emailText(alert.ruleText ?? alert.rule)));
    lines.push(field('Path', emailText(alert.path)));
  }
  if (typeof alert.acknowledgedBy === 'string') {
    lines.push(field('Acknowledged by', emailText(alert.acknowledgedBy, 300)));
    if (typeof alert.detail === 'string' && alert.detail !== '')
      lines.push(field('Note', emailText(alert.detail)));
  }
  if (alert.event === 'incident.escalated') lines.push(field('Stage', String(alert.stage ?? '?')));
  const members = membersOf(alert);
  const end = isEnd(alert);
  lines.push(field('Networks', String(members.length)));
  for (const member of members.slice(0, MAX_MEMBERS_IN_EMAIL)) {
    const since = momentOf(member.since);
    const facts = [
      isNetworkKind(alert) && typeof member.errorKind === 'string'
        ? `${end ? 'last failure ' : ''}${emailText(member.errorKind, 40)}`
        : undefined,
      Number.isSafeInteger(member.httpStatus) ? `HTTP ${member.httpStatus}` : undefined,
      Number.isSafeInteger(member.cycles)
        ? `${member.cycles} cycle${member.cycles === 1 ? '' : 's'} in a row`
        : undefined,
      since === undefined ? undefined : `${end ? 'began' : 'since'} ${since.iso}`,
    ].filter((fact) => fact !== undefined);
    lines.push(`  ${emailText(member.network, 200)}${facts.length === 0 ? '' : `: ${facts.join(', ')}`}`);
    if (typeof member.error === 'string' && member.error !== '') {
      lines.push(`    error: ${emailText(member.error, 500)}`);
    }
  }
  if (members.length > MAX_MEMBERS_IN_EMAIL) {
    lines.push(`  ... and ${members.length - MAX_MEMBERS_IN_EMAIL} more`);
  }
  const remaining = Array.isArray(alert.remaining)
    ? alert.remaining.filter((n): n is string => typeof n === 'string')
    : [];
  if (remaining.length > 0) {
    const label = isNetworkKind(alert) ? 'Still failing' : 'Still unreadable';
    const shown = remaining.slice(0, MAX_MEMBERS_IN_EMAIL).map((n) => emailText(n, 200));
    const more = remaining.length > shown.length ? ` and ${remaining.length - shown.length} more` : '';
    lines.push(field(label, `${shown.join(', ')}${more}`));
  } else if (end) {
    lines.push(field('Incident', `${emailText(alert.incident, 255)} (resolved: no network of it is left)`));
    return lines;
  }
  if (typeof alert.incident === 'string' && alert.incident !== '') {
    lines.push(field('Incident', emailText(alert.incident, 255)));
  }
  return lines;
}

/** The chat document's fields of a health alert (each value shown in a code span by the caller). */
export function healthFields(alert: AlertRecord): Array<readonly [label: string, value: string]> {
  const fields: Array<readonly [string, string]> = [];
  if (!isNetworkKind(alert)) {
    fields.push(['Rule', emailText(alert.ruleText ?? alert.rule, 500)]);
    fields.push(['Path', emailText(alert.path, 200)]);
  }
  const failure = isNetworkKind(alert);
  fields.push([
    'Networks',
    membersOf(alert)
      .map((m) => memberLabel(m, failure))
      .join(', '),
  ]);
  const remaining = Array.isArray(alert.remaining) ? alert.remaining : [];
  if (remaining.length > 0) {
    fields.push([isNetworkKind(alert) ? 'Still failing' : 'Still unreadable', remaining.join(', ')]);
  }
  return fields;
}
