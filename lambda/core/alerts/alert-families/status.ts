/**
 * The `status` family (docs/alerts.md, The texts): a filter status change and the reminder that the status is
 * still away from the expected one; and the escalations and acknowledgements of that incident, which keep their
 * `incident.*` events (CONTRACT §14) and are told by their id (`familyOf`, `monitor-incidents.ts`). The texts
 * that name two statuses are in `status-alert-text.ts`.
 */

import type { AlertRecord } from '../../types.ts';
import { SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from '../alert-limits.ts';
import {
  AWAY_CLOSED_TEXT,
  incidentDocumentFields,
  incidentIntro,
  incidentLines,
  isIncidentEvent,
} from '../monitor-incident-text.ts';
import { statusHeldText } from '../silence-alert-text.ts';
import {
  type StatusFamilyRecord,
  statusEmailLines,
  statusSms,
  statusSubject,
  subjectStatus,
} from '../status-alert-text.ts';
import { shorten } from '../visible-text.ts';
import {
  type AlertFamily,
  cyclesOf,
  detailLines,
  expectedSeverityLines,
  incidentFromEvent,
  NOTHING,
  ownIncident,
  previousDuration,
  recordSeverity,
} from './family.ts';

/**
 * The subject of the status away's end when the settings closed it: `RESOLVED: filter status mitigating is no longer
 * away (expected status changed)`.
 */
function closedSubject(alert: AlertRecord, prefix: string): string {
  const head = `${prefix}RESOLVED: filter status `;
  const tail = ` ${AWAY_CLOSED_TEXT}`;
  return `${head}${shorten(subjectStatus(alert.to), SUBJECT_MAX_CHARS - head.length - tail.length)}${tail}`;
}

function closedSms(alert: AlertRecord, name: string, when: string): string {
  const lead = `${name}: RESOLVED: filter status`;
  const tail = ` ${AWAY_CLOSED_TEXT}, ${when}`;
  const fixed = `${lead} ""${tail}`;
  return `${lead} "${shorten(subjectStatus(alert.to), SMS_MAX_CHARS - fixed.length)}"${tail}`;
}

/** The filter status: a change (an incident when an expected status is set), its reminder, escalation, acknowledgement. */
export const STATUS_FAMILY: AlertFamily<StatusFamilyRecord> = {
  subject: (alert, prefix) =>
    alert.event === 'incident.resolved' ? closedSubject(alert, prefix) : statusSubject(alert, prefix),
  sms: (alert, name, when) =>
    alert.event === 'incident.resolved' ? closedSms(alert, name, when) : statusSms(alert, name, when),
  emailLines: (alert, field) => [
    ...statusEmailLines(alert, field),
    ...incidentLines(alert, field),
    // Closed by the settings, not by the status: it did not come back to an expected status.
    ...(alert.event === 'incident.resolved'
      ? [field('Severity', 'RESOLVED (no longer away: the expected status changed)')]
      : expectedSeverityLines(alert, field)),
  ],
  emailTail: (alert, field) => {
    // An acknowledgement's detail is its note, among its own lines.
    if (isIncidentEvent(alert)) return [];
    const lines: string[] = [];
    if (alert.event === 'filter.status_changed') {
      lines.push(field('Previous status lasted', previousDuration(alert)));
      const cycles = cyclesOf(alert);
      if (cycles !== undefined && cycles > 1) lines.push(field('Confirmed by', `${cycles} cycles in a row`));
    }
    return [...lines, ...detailLines(alert, field)];
  },
  chatLines: (alert, field) => [...statusEmailLines(alert, field), ...incidentLines(alert, field, true)],
  chatTail: (document, field) =>
    document.cycles !== undefined && document.cycles > 1
      ? [field('Confirmed by', `${document.cycles} cycles in a row`)]
      : [],
  attributes: NOTHING.fields,
  action: (alert) => {
    // With an expected status, leaving it opens an incident and coming back closes it; a reminder neither; an
    // escalation triggers again (the next line), an acknowledgement acknowledges (CONTRACT §13-14).
    if (alert.event === 'incident.escalated') return 'trigger';
    if (alert.event === 'incident.acknowledged') return 'acknowledge';
    // The settings closed the incident (the expected status unset, or set to the status seen): it ends.
    if (alert.event === 'incident.resolved') return 'resolve';
    if (alert.event !== 'filter.status_changed') return undefined;
    return alert.severity === 'high' ? 'trigger' : alert.severity === 'resolved' ? 'resolve' : undefined;
  },
  level: (alert) => (alert.event === 'filter.status_changed' ? 'warning' : 'info'),
  severity: recordSeverity,
  derivedIncident: (alert, action) => {
    if (isIncidentEvent(alert)) return undefined;
    // A reminder belongs to the change it reminds of: the change's id is when the status began.
    if (alert.event === 'filter.status_reminder') {
      return typeof alert.statusSince === 'string' ? `filter.status_changed/${alert.statusSince}` : undefined;
    }
    return incidentFromEvent(alert, action, 'filter.status_changed');
  },
  documentFields: incidentDocumentFields,
  intro: (alert) =>
    incidentIntro(
      alert,
      'The filter status is still away from the expected status',
      'the change back to the expected status',
    ),
  // A change, not its reminder; one without an incident (no expected status) is the filter status itself.
  heldKey: (alert) =>
    alert.event === 'filter.status_changed' ? (ownIncident(alert) ?? 'filter.status') : undefined,
  heldText: statusHeldText,
};
