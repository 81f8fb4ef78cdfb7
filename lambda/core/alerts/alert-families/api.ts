/**
 * The `api` family (docs/alerts.md, Event names): the monitor's own incidents with the API, counted in failing
 * cycles (the key rejected, the API unreachable, the status unreadable), and their ends. Their words are fixed
 * (`alert-events.ts`); an end's count and detail describe the incident that ended. Their reminders, escalations
 * and acknowledgements keep their `incident.*` events (CONTRACT §14) and are told by their id (`familyOf`,
 * `monitor-incidents.ts`): they name the incident by its opening event's words.
 */

import {
  type MonitorIncidentAlertRecord,
  monitorIncidentOpenerOf,
} from '../../incidents/monitor-incidents.ts';
import type { AlertEvent, AlertRecord, ApiAlertRecord } from '../../types.ts';
import { ALERT_EVENT_TEXTS, RECOVERY_EVENTS } from '../alert-events.ts';
import { formatDuration, momentOf } from '../alert-time.ts';
import {
  incidentDocumentFields,
  incidentIntro,
  incidentLines,
  incidentTag,
  isIncidentEvent,
} from '../monitor-incident-text.ts';
import { cleanText } from '../visible-text.ts';
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

const MAX_ERROR_IN_EMAIL = 2000;

/** The event that opened the incident an end closes (the incident id names it). */
const OPENED_BY: Readonly<Partial<Record<AlertEvent, AlertEvent>>> = {
  'api.auth_restored': 'api.auth_failed',
  'api.recovered': 'api.unreachable',
  'filter.status_readable': 'filter.status_unreadable',
};

/** What a reminder, escalation or acknowledgement of each API incident says it is, and its end. */
const STILL = {
  'api.unreachable': {
    subject: 'API still unreachable',
    sms: 'the API is still unreachable',
    intro: 'The protection API is still unreachable',
  },
  'api.auth_failed': {
    subject: 'API key still rejected',
    sms: 'the API key is still rejected',
    intro: 'The protection API still rejects the API key',
  },
  'filter.status_unreadable': {
    subject: 'Filter status still unreadable',
    sms: 'the filter status still cannot be read',
    intro: 'The filter status still cannot be read from the API answers',
  },
} as const;

/** The API incident an `incident.*` alert is about, by its id (`api.unreachable/...` by default). */
function openerOf(alert: AlertRecord): keyof typeof STILL {
  const opener = monitorIncidentOpenerOf(alert.incident);
  return opener !== undefined && opener !== 'filter.status_changed' ? opener : 'api.unreachable';
}

/** How long the incident has been open, from its `openedAt`. */
function openFor(alert: MonitorIncidentAlertRecord): string | undefined {
  const opened = momentOf(alert.openedAt);
  const seen = momentOf(alert.at);
  return opened === undefined || seen === undefined
    ? undefined
    : `${formatDuration(seen.ms - opened.ms)} (since ${opened.iso})`;
}

/** The API's incidents (family tags `incident` and `recovery` in `alert-events.ts`), their ends and follow-ups. */
export const API_FAMILY: AlertFamily<ApiAlertRecord | MonitorIncidentAlertRecord> = {
  subject: (alert, prefix) =>
    isIncidentEvent(alert)
      ? `${prefix}${incidentTag(alert)}${STILL[openerOf(alert)].subject}`
      : plainSubject(alert, prefix),
  sms: (alert, name, when) => {
    if (!isIncidentEvent(alert)) return plainSms(alert, name, when, true);
    const open = openFor(alert);
    const lasted = open === undefined ? '' : `, for ${open.slice(0, open.indexOf(' ('))}`;
    return `${name}: ${incidentTag(alert)}${STILL[openerOf(alert)].sms}${lasted}, ${when}.`;
  },
  emailLines: (alert, field) => {
    if (!isIncidentEvent(alert)) return expectedSeverityLines(alert, field);
    const open = openFor(alert);
    return [
      field('Incident of', ALERT_EVENT_TEXTS[openerOf(alert)].subject),
      ...(open === undefined ? [] : [field('Open for', open)]),
      ...incidentLines(alert, field),
    ];
  },
  emailTail: (alert, field) => {
    // A reminder's or escalation's detail is the last error; an acknowledgement's is its note (among its lines).
    if (isIncidentEvent(alert)) {
      return alert.event === 'incident.acknowledged' ||
        typeof alert.detail !== 'string' ||
        alert.detail === ''
        ? []
        : [field('Last error', cleanText(alert.detail, MAX_ERROR_IN_EMAIL))];
    }
    const cycles = cyclesOf(alert);
    return [
      field('Cycles in a row', cycles === undefined ? 'unknown' : String(cycles)),
      ...detailLines(alert, field),
    ];
  },
  chatLines: (alert, field) => (isIncidentEvent(alert) ? incidentLines(alert, field, true) : []),
  chatTail: (document, field) =>
    document.cycles === undefined ? [] : [field('Failing cycles in a row', String(document.cycles))],
  attributes: NOTHING.fields,
  // A reminder neither triggers nor resolves, an escalation triggers again (the next line), an acknowledgement
  // acknowledges (CONTRACT §13-14).
  action: (alert) => {
    switch (alert.event) {
      case 'incident.reminder':
        return undefined;
      case 'incident.escalated':
        return 'trigger';
      case 'incident.acknowledged':
        return 'acknowledge';
      default:
        return RECOVERY_EVENTS.has(alert.event) ? 'resolve' : 'trigger';
    }
  },
  // A reminder is as urgent as the incident's opening (it has no action: PagerDuty is not told).
  level: (alert, action) => (action === 'trigger' || alert.event === 'incident.reminder' ? 'error' : 'info'),
  severity: recordSeverity,
  derivedIncident: (alert, action) =>
    isIncidentEvent(alert) ? undefined : incidentFromEvent(alert, action, OPENED_BY[alert.event]),
  documentFields: incidentDocumentFields,
  intro: (alert) => incidentIntro(alert, STILL[openerOf(alert)].intro, 'its end'),
  // An incident and its end both change what holds; its reminders and acknowledgements do not.
  heldKey: (alert) => (isIncidentEvent(alert) ? undefined : ownIncident(alert)),
};
