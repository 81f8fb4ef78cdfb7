/**
 * The `status` family (docs/alerts.md, The texts): a filter status change and the reminder that the status is
 * still away from the expected one. The texts that name two statuses are in `status-alert-text.ts`.
 */
import { statusHeldText } from '../silence-alert-text.ts';
import { statusEmailLines, statusSms, statusSubject } from '../status-alert-text.ts';
import type { StatusAlertRecord } from '../types.ts';
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

/** The filter status: a change (an incident when an expected status is set) and its reminder. */
export const STATUS_FAMILY: AlertFamily<StatusAlertRecord> = {
  subject: statusSubject,
  sms: statusSms,
  emailLines: (alert, field) => [...statusEmailLines(alert, field), ...expectedSeverityLines(alert, field)],
  emailTail: (alert, field) => {
    const lines: string[] = [];
    if (alert.event === 'filter.status_changed') {
      lines.push(field('Previous status lasted', previousDuration(alert)));
      const cycles = cyclesOf(alert);
      if (cycles !== undefined && cycles > 1) lines.push(field('Confirmed by', `${cycles} cycles in a row`));
    }
    return [...lines, ...detailLines(alert, field)];
  },
  chatLines: statusEmailLines,
  chatTail: (document, field) =>
    document.cycles !== undefined && document.cycles > 1
      ? [field('Confirmed by', `${document.cycles} cycles in a row`)]
      : [],
  attributes: NOTHING.fields,
  action: (alert) => {
    // With an expected status, leaving it opens an incident and coming back closes it; a reminder neither.
    if (alert.event !== 'filter.status_changed') return undefined;
    return alert.severity === 'high' ? 'trigger' : alert.severity === 'resolved' ? 'resolve' : undefined;
  },
  level: (alert) => (alert.event === 'filter.status_changed' ? 'warning' : 'info'),
  severity: recordSeverity,
  derivedIncident: (alert, action) => {
    // A reminder belongs to the change it reminds of: the change's id is when the status began.
    if (alert.event === 'filter.status_reminder') {
      return typeof alert.statusSince === 'string' ? `filter.status_changed/${alert.statusSince}` : undefined;
    }
    return incidentFromEvent(alert, action, 'filter.status_changed');
  },
  documentFields: NOTHING.fields,
  // A change, not its reminder; one without an incident (no expected status) is the filter status itself.
  heldKey: (alert) =>
    alert.event === 'filter.status_changed' ? (ownIncident(alert) ?? 'filter.status') : undefined,
  heldText: statusHeldText,
};
