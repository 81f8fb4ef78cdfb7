/**
 * The `incident` family (docs/alerts.md, Incidents; tag `grouped` in `alert-events.ts`): a rule's incident
 * across networks opened, updated, reminded, escalated, acknowledged, resolved. The texts are in
 * `incident-alert-text.ts`.
 */

import type { IncidentAlertRecord } from '../../types.ts';
import { SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from '../alert-limits.ts';
import {
  incidentChatLines,
  incidentDocumentFields,
  incidentEmailLines,
  incidentSms,
  incidentSubject,
} from '../incident-alert-text.ts';
import { groupedHeldText } from '../silence-alert-text.ts';
import {
  type AlertFamily,
  detailLines,
  incidentFromEvent,
  NOTHING,
  ownIncident,
  recordSeverity,
  stringAttributes,
} from './family.ts';

/** Grouped incident alerts that change what holds (a silence holds them back until it ends). */
const GROUPED_CHANGES: ReadonlySet<string> = new Set([
  'incident.opened',
  'incident.updated',
  'incident.escalated',
  'incident.resolved',
]);

/** A rule's incident across networks (the `groupBy` setting at `rule`). */
export const INCIDENT_FAMILY: AlertFamily<IncidentAlertRecord> = {
  subject: (alert, prefix) => incidentSubject(alert, prefix, SUBJECT_MAX_CHARS),
  sms: (alert, name, when) => incidentSms(alert, name, when, SMS_MAX_CHARS),
  emailLines: (alert, field) => [
    ...incidentEmailLines(alert, field),
    field('Severity', alert.severity === 'resolved' ? 'RESOLVED' : 'HIGH'),
  ],
  emailTail: detailLines,
  chatLines: incidentChatLines,
  chatTail: NOTHING.lines,
  // Its rule and id, for subscription filter policies (CONTRACT §13).
  attributes: (alert) => stringAttributes(alert, ['rule']),
  // Opened, updated and escalated trigger, resolved resolves, a reminder neither (CONTRACT §13); acknowledged:
  // PagerDuty acknowledges the page of the same dedup_key (CONTRACT §14).
  action: (alert) => {
    switch (alert.event) {
      case 'incident.resolved':
        return 'resolve';
      case 'incident.reminder':
        return undefined;
      case 'incident.acknowledged':
        return 'acknowledge';
      default:
        return 'trigger';
    }
  },
  level: (_alert, action) => (action === 'trigger' ? 'critical' : 'info'),
  severity: recordSeverity,
  derivedIncident: (alert, action) => incidentFromEvent(alert, action),
  documentFields: incidentDocumentFields,
  // It opens, grows, escalates, resolves; a reminder or an acknowledgement changes nothing that could still hold.
  heldKey: (alert) => (GROUPED_CHANGES.has(alert.event) ? ownIncident(alert) : undefined),
  heldText: groupedHeldText,
};
