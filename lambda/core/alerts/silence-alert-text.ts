/**
 * The texts of the `silence` family (docs/silences.md): at a silence's end, the announcement of a change it held
 * back that still holds, e.g. `[shieldwatch] still mitigating after silence s-k3j9x2ab` and, in the SMS, when
 * it began. Pure; nothing here throws on a record of the right shape.
 */

import { followUpOpener } from '../silences/silence-window.ts';
import type { AlertRecord, SilenceAlertRecord } from '../types.ts';
import { eventTexts } from './alert-events.ts';
import type { AlertFamily } from './alert-families/family.ts';
import { SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from './alert-limits.ts';
import { momentOf } from './alert-time.ts';
import { quoteStatus, subjectStatus } from './status-alert-text.ts';
import { escapeHidden, foldVisible, shorten } from './visible-text.ts';

const MAX_FOLD_INPUT = 1000;
const MAX_EMAIL_TEXT = 1000;

/** The silence's id as the texts show it (ids are `s-` and 8 base32 characters; anything else is folded). */
function silenceLabel(alert: AlertRecord): string {
  return typeof alert.silence === 'string' && alert.silence !== ''
    ? shorten(foldVisible(shorten(alert.silence, 100)), 20)
    : 'a silence';
}

function oneLine(text: unknown, fallback: string): string {
  return typeof text === 'string' && text !== '' ? foldVisible(shorten(text, MAX_FOLD_INPUT)) : fallback;
}

/** The family of a held-back event by its name (`alert-families/index.ts`), undefined for one this version does not know. */
export type HeldFamilyOf = (event: unknown) => AlertFamily<AlertRecord> | undefined;

/** What still holds of a status change held back: the status it changed to ({@link AlertFamily.heldText}). */
export function statusHeldText(alert: AlertRecord, room: number): string | undefined {
  return alert.heldEvent === 'filter.status_changed'
    ? shorten(subjectStatus(alert.to), Math.max(8, room))
    : undefined;
}

/** What still holds of a rule triggered on a network: the rule on its network ({@link AlertFamily.heldText}). */
export function ruleHeldText(alert: AlertRecord, room: number): string {
  const rule = oneLine(alert.rule, '?');
  const network = oneLine(alert.network, '?');
  const half = Math.max(8, Math.floor((room - 16) / 2));
  return `${shorten(rule, half)} triggered on net ${shorten(network, Math.max(8, room - 16 - Math.min(rule.length, half)))}`;
}

/**
 * What still holds of a rule's incident across networks (the `groupBy` setting at `rule`): the rule, not one
 * network ({@link AlertFamily.heldText}). An escalation held back of a rule's incident on one network (`groupBy`
 * at `none`: its record names the network) is named as its trigger is.
 */
export function groupedHeldText(alert: AlertRecord, room: number): string {
  if (typeof alert.network === 'string') return ruleHeldText(alert, room);
  return `rule ${shorten(oneLine(alert.rule, '?'), Math.max(8, room - 15))} triggered`;
}

/**
 * What still holds, as the subject and SMS name it in `room` characters: as the held event's family names it
 * (the status it changed to, the rule on its network), or else the incident's own words (`API unreachable`).
 */
function whatHolds(alert: AlertRecord, room: number, familyOf: HeldFamilyOf): string {
  // An escalation held back of a blind spot or of the monitor's own incident (opened before the silence) is
  // named as what opened it: the blind spot, the status, the API.
  const opener = followUpOpener({ event: alert.heldEvent, incident: alert.incident });
  const heldEvent = opener ?? alert.heldEvent;
  const own = familyOf(heldEvent)?.heldText?.(opener === undefined ? alert : { ...alert, heldEvent }, room);
  if (own !== undefined) return own;
  const held = eventTexts(heldEvent);
  return shorten(held === undefined ? oneLine(alert.heldEvent, 'a held-back change') : held.subject, room);
}

/** The subject, before the final ASCII guard: `[name] still <what> after silence <id>`. */
export function silenceSubject(alert: AlertRecord, prefix: string, familyOf: HeldFamilyOf): string {
  const tail = ` after silence ${silenceLabel(alert)}`;
  const head = `${prefix}still `;
  return `${head}${whatHolds(alert, SUBJECT_MAX_CHARS - head.length - tail.length, familyOf)}${tail}`;
}

/** The SMS, before the final ASCII guard: `name: still <what> after silence <id> ended; began <when>.` */
export function silenceSms(alert: SilenceAlertRecord, name: string, familyOf: HeldFamilyOf): string {
  const began = momentOf(alert.heldSince);
  const tail = ` after silence ${silenceLabel(alert)} ended; began ${began === undefined ? 'at an unknown time' : began.short}.`;
  const head = `${name}: still `;
  return `${head}${whatHolds(alert, SMS_MAX_CHARS - head.length - tail.length, familyOf)}${tail}`;
}

/** The email's lines about what still holds (and the chat document's, with its own `field`). */
export function silenceEmailLines(
  alert: SilenceAlertRecord,
  field: (label: string, value: string) => string,
): string[] {
  const lines = [field('Silence', escapeHidden(shorten(String(alert.silence ?? 'unknown'), 100)))];
  lines.push(field('Held back', escapeHidden(shorten(String(alert.heldEvent ?? 'unknown'), 100))));
  const began = momentOf(alert.heldSince);
  lines.push(field('Began', began === undefined ? 'unknown' : `${began.iso} (${began.human})`));
  if (alert.heldEvent === 'filter.status_changed') {
    lines.push(field('Status now', quoteStatus(alert.to)));
    if (alert.from !== undefined) lines.push(field('Status before the silence', quoteStatus(alert.from)));
    if (alert.expected !== undefined) lines.push(field('Expected status', quoteStatus(alert.expected)));
  }
  for (const [label, value] of [
    ['Rule', alert.rule],
    ['Network', alert.network],
    ['Incident', alert.incident],
  ] as const) {
    if (typeof value === 'string') lines.push(field(label, escapeHidden(shorten(value, MAX_EMAIL_TEXT))));
  }
  return lines;
}
