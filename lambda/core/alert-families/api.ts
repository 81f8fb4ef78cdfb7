/**
 * The `api` family (docs/alerts.md, Event names): the monitor's own incidents with the API, counted in failing
 * cycles (the key rejected, the API unreachable, the status unreadable), and their ends. Their words are fixed
 * (`alert-events.ts`); an end's count and detail describe the incident that ended.
 */
import { RECOVERY_EVENTS } from '../alert-events.ts';
import type { AlertEvent, ApiAlertRecord } from '../types.ts';
import {
  type AlertFamily,
  cyclesOf,
  detailLines,
  expectedSeverityLines,
  incidentFromEvent,
  NOTHING,
  ownIncident,
  plainSms,
  plainSubject,
  recordSeverity,
} from './family.ts';

/** The event that opened the incident an end closes (the incident id names it). */
const OPENED_BY: Readonly<Partial<Record<AlertEvent, AlertEvent>>> = {
  'api.auth_restored': 'api.auth_failed',
  'api.recovered': 'api.unreachable',
  'filter.status_readable': 'filter.status_unreadable',
};

/** The API's incidents (family tags `incident` and `recovery` in `alert-events.ts`) and their ends. */
export const API_FAMILY: AlertFamily<ApiAlertRecord> = {
  subject: plainSubject,
  sms: (alert, name, when) => plainSms(alert, name, when, true),
  emailLines: expectedSeverityLines,
  emailTail: (alert, field) => {
    const cycles = cyclesOf(alert);
    return [
      field('Cycles in a row', cycles === undefined ? 'unknown' : String(cycles)),
      ...detailLines(alert, field),
    ];
  },
  chatLines: NOTHING.lines,
  chatTail: (document, field) =>
    document.cycles === undefined ? [] : [field('Failing cycles in a row', String(document.cycles))],
  attributes: NOTHING.fields,
  action: (alert) => (RECOVERY_EVENTS.has(alert.event) ? 'resolve' : 'trigger'),
  level: (alert) => (RECOVERY_EVENTS.has(alert.event) ? 'info' : 'error'),
  severity: recordSeverity,
  derivedIncident: (alert, action) => incidentFromEvent(alert, action, OPENED_BY[alert.event]),
  documentFields: NOTHING.fields,
  // An incident and its end both change what holds.
  heldKey: ownIncident,
};
