/**
 * What the `incident.*` alerts of the monitor's own incidents (a reminder, an escalation, an acknowledgement of the
 * status away or of an API incident: `monitor-incidents.ts`) say besides their incident's own words, which the
 * status and API families give (docs/alerts.md, The monitor's incidents): the tag before the subject and SMS,
 * the email's stage and acknowledgement lines, the `sqs` document's stage and who. Pure.
 */
import { SETTINGS } from '../../settings.ts';
import type { MonitorIncidentAlertRecord } from '../incidents/monitor-incidents.ts';
import type { AlertRecord } from '../types.ts';
import type { TextField } from './alert-families/family.ts';
import { escapeHidden, foldVisible, shorten } from './visible-text.ts';

/** Whether `alert` is one of the `incident.*` events a monitor incident shares with a rule's. */
export function isIncidentEvent(alert: Pick<AlertRecord, 'event'>): alert is MonitorIncidentAlertRecord {
  return (
    alert.event === 'incident.reminder' ||
    alert.event === 'incident.escalated' ||
    alert.event === 'incident.acknowledged' ||
    alert.event === 'incident.resolved'
  );
}

/** The record's stage, when it is a whole number of at least 1; else 1. */
export function stageOf(alert: AlertRecord): number {
  return Number.isSafeInteger(alert.stage) && (alert.stage as number) >= 1 ? (alert.stage as number) : 1;
}

/** What an `incident.resolved` of the status away says after the status (the settings closed it, decide.ts). */
export const AWAY_CLOSED_TEXT = 'is no longer away (expected status changed)';

/**
 * What a subject or SMS says first: `REMINDER `, `ESCALATED stage 2: `, `ACK by alice: ` (who, folded to ASCII
 * and cut to 24 characters), `RESOLVED: `; nothing for any other event.
 */
export function incidentTag(alert: AlertRecord): string {
  switch (alert.event) {
    case 'incident.reminder':
      return 'REMINDER ';
    case 'incident.escalated':
      return `ESCALATED stage ${stageOf(alert)}: `;
    case 'incident.acknowledged': {
      const by =
        typeof alert.acknowledgedBy === 'string' ? foldVisible(shorten(alert.acknowledgedBy, 200)) : '';
      return `ACK by ${(by.trim() || '?').slice(0, 24)}: `;
    }
    case 'incident.resolved':
      return 'RESOLVED: ';
    default:
      return '';
  }
}

/**
 * The email's first paragraph of an `incident.*` alert about the incident `what` (`The protection API is
 * unreachable`, a sentence without its full stop): the monitor's own, and a blind spot's reminder and
 * escalation (`health-alert-text.ts`); undefined for any other event.
 */
export function incidentIntro(alert: AlertRecord, what: string, end: string): string | undefined {
  switch (alert.event) {
    case 'incident.reminder':
      return `Reminder: ${what.charAt(0).toLowerCase()}${what.slice(1)}; the incident is open.`;
    case 'incident.escalated':
      return `${what} and nobody has acknowledged the incident: it reached the next stage of ${SETTINGS.escalateAfter.env}.`;
    case 'incident.acknowledged':
      return `Someone took the incident below (${what.charAt(0).toLowerCase()}${what.slice(1)}): it gets no more reminders and no escalation; ${end} is still sent (docs/acknowledge.md).`;
    case 'incident.resolved':
      return `The incident below is resolved: ${SETTINGS.expectedStatus.env} was unset, or set to the status now seen, so the status is no longer away from it (docs/alerts.md).`;
    default:
      return undefined;
  }
}

/**
 * The email's lines of an `incident.*` alert: its stage (an escalation), who acknowledged and the note, and its
 * id (the chat's common lines name the id already: `chat`).
 */
export function incidentLines(alert: AlertRecord, field: TextField, chat = false): string[] {
  if (!isIncidentEvent(alert)) return [];
  const lines: string[] = [];
  if (alert.event === 'incident.escalated') lines.push(field('Stage', String(stageOf(alert))));
  if (alert.event === 'incident.acknowledged') {
    lines.push(field('Acknowledged by', emailText(alert.acknowledgedBy, 300)));
    if (typeof alert.detail === 'string' && alert.detail !== '') {
      lines.push(field('Note', emailText(alert.detail, 2000)));
    }
  }
  if (!chat && typeof alert.incident === 'string')
    lines.push(field('Incident', emailText(alert.incident, 255)));
  return lines;
}

/**
 * The `sqs` document's fields of an alert of the monitor's incidents: an `incident.*` alert's stage and who
 * acknowledged; another's stage once its incident escalated (the record carries it only then), as its attribute.
 */
export function incidentDocumentFields(alert: AlertRecord): Readonly<Record<string, unknown>> {
  if (!isIncidentEvent(alert)) {
    return typeof alert.stage === 'number' && stageOf(alert) > 1 ? { stage: stageOf(alert) } : {};
  }
  return {
    stage: stageOf(alert),
    ...(alert.event === 'incident.acknowledged' && typeof alert.acknowledgedBy === 'string'
      ? { acknowledgedBy: shorten(alert.acknowledgedBy, 1024) }
      : {}),
  };
}

function emailText(text: unknown, max: number): string {
  return typeof text === 'string' && text !== '' ? escapeHidden(shorten(text, max), 'space') : '(unknown)';
}
