/**
 * The `health` family (docs/alerts.md, Blind spots): a network that keeps failing, a rule that reads nothing,
 * and their ends; one alert lists every network concerned in its cycle. The texts are in
 * `health-alert-text.ts`; an end resolves the incident only once none of its networks is left
 * (`network-health.ts`).
 */

import { closesIncident, type HealthIncidentEvent } from '../../detect/network-health.ts';
import type { AlertRecordOf, HealthAlertRecord } from '../../types.ts';
import {
  healthEmailLines,
  healthFields,
  healthHeldText,
  healthIncidentIntro,
  healthSms,
  healthSubject,
} from '../health-alert-text.ts';
import { shorten } from '../visible-text.ts';
import {
  type AlertFamily,
  expectedSeverityLines,
  incidentFromEvent,
  NOTHING,
  ownIncident,
  recordSeverity,
  stringAttributes,
} from './family.ts';

/** The event that opened the incident an end closes. */
const OPENED_BY = {
  'network.unreachable': undefined,
  'network.rule_unreadable': undefined,
  'network.recovered': 'network.unreachable',
  'network.rule_readable': 'network.rule_unreadable',
} as const;

/** The shard's blind spots, and the reminders, escalations and acknowledgements of their incidents. */
export const HEALTH_FAMILY: AlertFamily<HealthAlertRecord | AlertRecordOf<HealthIncidentEvent>> = {
  subject: healthSubject,
  sms: healthSms,
  emailLines: (alert, field) => [...healthEmailLines(alert, field), ...expectedSeverityLines(alert, field)],
  // The detail is the list of its networks, which its own lines give in full.
  emailTail: NOTHING.lines,
  chatLines: (alert, field) => healthFields(alert).map(([label, value]) => field(label, value)),
  chatTail: NOTHING.lines,
  // Its incident's id (as the `sqs` document's `incident`), and a rule that reads nothing its rule, for
  // subscription filter policies and chat threads, as a rule's incident's alerts (CONTRACT §12-14).
  attributes: (alert) => stringAttributes(alert, ['rule']),
  // As a rule's incident: a reminder neither triggers nor resolves, an escalation triggers (CONTRACT §13-14).
  action: (alert) => {
    switch (alert.event) {
      case 'network.unreachable':
      case 'network.rule_unreadable':
      case 'incident.escalated':
        return 'trigger';
      case 'incident.acknowledged':
        return 'acknowledge';
      case 'incident.reminder':
        return undefined;
      default:
        return closesIncident(alert) ? 'resolve' : undefined;
    }
  },
  // A reminder of a blind spot is as urgent as its opening (it has no action: PagerDuty is not told).
  level: (alert, action) => (action === 'trigger' || alert.event === 'incident.reminder' ? 'error' : 'info'),
  severity: recordSeverity,
  derivedIncident: (alert, action) =>
    alert.event.startsWith('incident.')
      ? undefined
      : incidentFromEvent(alert, action, OPENED_BY[alert.event as keyof typeof OPENED_BY]),
  // Every alert of a blind spot's incident: its stage, as a rule's incident's and as its attribute `stage`
  // says; an acknowledgement who.
  documentFields: (alert) => ({
    stage: Number.isSafeInteger(alert.stage) && (alert.stage as number) >= 1 ? alert.stage : 1,
    ...(alert.event.startsWith('incident.') && typeof alert.acknowledgedBy === 'string'
      ? { acknowledgedBy: shorten(alert.acknowledgedBy, 1024) }
      : {}),
  }),
  intro: healthIncidentIntro,
  // What opens or closes its incident: a recovery while others of its incident still fail changes nothing that
  // could still hold, nor does a blind spot's reminder or acknowledgement. Nor does a join (networks crossing
  // into an incident already open: it lists the `remaining` ones), as a rule incident's `incident.updated`:
  // remembered alone, a join held back would make the resolve of an incident whose opening was published look
  // unopened, and the resolve would be suppressed. Sent, it is the incident's trigger all the same.
  heldKey: (alert) => {
    const action = HEALTH_FAMILY.action(alert);
    if (action === 'trigger' && Array.isArray(alert.remaining)) return undefined;
    return action === 'trigger' || action === 'resolve' ? ownIncident(alert) : undefined;
  },
  // At a silence's end, a blind spot it held back by its kind (and rule): not the bare `unreachable`.
  heldText: healthHeldText,
};
