/**
 * The `maintenance` family (CONTRACT §17, docs/silences.md): a maintenance window's notices, `maintenance.started`
 * and `maintenance.ended`, once per occurrence of a window made with `--notify`. They open and close nothing
 * (no `action`), are never silenced, and carry the window's id (`silence`) and reason as message attributes.
 */
import type { MaintenanceAlertRecord } from '../../types.ts';
import { eventTexts } from '../alert-events.ts';
import { cleanText } from '../visible-text.ts';
import { type AlertFamily, incidentFromEvent, NOTHING, recordSeverity, type TextField } from './family.ts';

const reasonOf = (alert: MaintenanceAlertRecord): string | undefined =>
  typeof alert.detail === 'string' && alert.detail !== '' ? cleanText(alert.detail, 200) : undefined;

const windowOf = (alert: MaintenanceAlertRecord): string =>
  typeof alert.silence === 'string' ? alert.silence : 'unknown window';

function lines(alert: MaintenanceAlertRecord, field: TextField): string[] {
  const reason = reasonOf(alert);
  return [
    field('Window', windowOf(alert)),
    ...(typeof alert.windowSince === 'string' ? [field('Began', alert.windowSince)] : []),
    ...(reason === undefined ? [] : [field('Reason', reason)]),
  ];
}

/** `maintenance.started`, `maintenance.ended`. */
export const MAINTENANCE_FAMILY: AlertFamily<MaintenanceAlertRecord> = {
  subject: (alert, prefix) => {
    const reason = reasonOf(alert);
    return `${prefix}${eventTexts(alert.event)?.subject ?? alert.event} ${windowOf(alert)}${reason === undefined ? '' : `: ${reason}`}`;
  },
  sms: (alert, name, when) => {
    const reason = reasonOf(alert);
    return `${name}: ${eventTexts(alert.event)?.sms ?? alert.event} ${windowOf(alert)}${reason === undefined ? '' : ` (${reason})`}, ${when}.`;
  },
  emailLines: lines,
  emailTail: NOTHING.lines,
  chatLines: lines,
  chatTail: NOTHING.lines,
  attributes: (alert) => {
    const reason = reasonOf(alert);
    return { silence: windowOf(alert), ...(reason === undefined ? {} : { reason: reason.slice(0, 200) }) };
  },
  action: () => undefined,
  level: () => 'info',
  severity: recordSeverity,
  derivedIncident: (alert, action) => incidentFromEvent(alert, action),
  // The window's id and reason travel as message attributes (`silence`, `reason`) and in the texts; the document
  // carries the occurrence's start as `since` and the reason as `detail`.
  documentFields: (alert) => (typeof alert.windowSince === 'string' ? { since: alert.windowSince } : {}),
};
