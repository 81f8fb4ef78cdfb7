/**
 * Every alert event with its texts, in one exhaustive record: a new {@link AlertEvent} does not compile until
 * it has its subject, SMS sentence and email introduction here. The event families derive from it.
 */
import { SETTINGS } from '../../settings.ts';
import { own } from '../own-record.ts';
import type { AlertEvent } from '../types.ts';

/**
 * How an event's texts are built: `status` names statuses (a change, a reminder), `incident` opens an incident
 * about the monitor's view of the API (counted in failing cycles), `recovery` ends one, `test` is a delivery
 * check, `rule` is a traffic rule triggered or resolved on a network (docs/rules.md), `silence` announces
 * at a silence's end a change it held back that still holds (docs/silences.md), `health` is a blind spot of
 * one shard's networks (a network that keeps failing, a rule that reads nothing; `network-health.ts`), one
 * alert listing every network concerned in its cycle; `grouped` is an incident of one rule across networks
 * (`incidents.ts`, `incident-alert-text.ts`); `digest` is the period at a glance the stack publishes once per day
 * or week (CONTRACT §19, docs/digest.md).
 */
export type EventFamily =
  | 'status'
  | 'incident'
  | 'recovery'
  | 'test'
  | 'rule'
  | 'silence'
  | 'maintenance'
  | 'health'
  | 'grouped'
  | 'digest';

/** The fixed texts of one event. */
export interface EventTexts {
  readonly family: EventFamily;
  /** The subject after `[name] `; for the `status` family, the words before the statuses; for `rule`, the verb. */
  readonly subject: string;
  /** The SMS sentence after `name: `; for the `status` family, the words before the status; for `rule`, the verb. */
  readonly sms: string;
  /** The opening paragraph of the email. */
  readonly intro: string;
}

/**
 * The texts of every alert event (docs/alerts.md, Event names). Declared `as const` so that each event's family
 * is known to the compiler: {@link EventsOf} derives each family's events from it, and the families' records
 * (`alert-families/index.ts`) are typed by them.
 */
export const ALERT_EVENT_TEXTS = {
  'filter.status_changed': {
    family: 'status',
    subject: 'Filter status changed',
    sms: 'filter status is now',
    intro: 'The filter status changed.',
  },
  'filter.status_reminder': {
    family: 'status',
    subject: 'REMINDER: filter status still',
    sms: 'REMINDER filter status still',
    intro: 'Reminder: the filter status is still away from the expected status.',
  },
  'api.auth_failed': {
    family: 'incident',
    subject: 'API key rejected',
    sms: 'the API key was rejected',
    intro:
      'The protection API rejected the API key (HTTP 401 or 403). No status can be read until the key is fixed.',
  },
  'api.auth_restored': {
    family: 'recovery',
    subject: 'API key accepted again',
    sms: 'the API key is accepted again',
    intro: 'The protection API accepts the API key again.',
  },
  'api.unreachable': {
    family: 'incident',
    subject: 'API unreachable',
    sms: 'the API is unreachable',
    intro:
      'The protection API is unreachable: every request failed (time-out, connection error, HTTP 5xx or 429).',
  },
  'api.recovered': {
    family: 'recovery',
    subject: 'API reachable again',
    sms: 'the API is reachable again',
    intro: 'The protection API is reachable again.',
  },
  'filter.status_unreadable': {
    family: 'incident',
    subject: 'Filter status unreadable',
    sms: 'the filter status cannot be read',
    intro:
      'The filter status cannot be read from the API answers (no status at the status path, or a body that is not JSON).',
  },
  'filter.status_readable': {
    family: 'recovery',
    subject: 'Filter status readable again',
    sms: 'the filter status can be read again',
    intro: 'The filter status can be read again.',
  },
  'network.rule_triggered': {
    family: 'rule',
    subject: 'triggered',
    sms: 'triggered',
    intro: 'A traffic rule triggered: its condition held on a network for the cycles in a row it asks for.',
  },
  'network.rule_resolved': {
    family: 'rule',
    subject: 'resolved',
    sms: 'resolved',
    intro:
      'A traffic rule resolved: its condition failed on the network for the cycles in a row it asks for.',
  },
  'network.unreachable': {
    family: 'health',
    subject: 'unreachable',
    sms: 'unreachable',
    intro: `A network's own request kept failing: the networks below failed the cycles in a row ${SETTINGS.alertAfter.env} asks for while the API answered. No traffic rule can judge them meanwhile.`,
  },
  'network.recovered': {
    family: 'health',
    subject: 'reachable again',
    sms: 'reachable again',
    intro: 'Networks whose requests kept failing answer again.',
  },
  'network.rule_unreadable': {
    family: 'health',
    subject: 'reads nothing',
    sms: 'reads nothing',
    intro: `A traffic rule reads nothing: its path held no value of the rule's type (missing, or of another type) in the answers of the networks below, the cycles in a row ${SETTINGS.alertAfter.env} asks for. The rule cannot trigger on them; check the path with \`shieldwatch check\`.`,
  },
  'network.rule_readable': {
    family: 'health',
    subject: 'reads again',
    sms: 'reads again',
    intro: "A traffic rule's path reads a value again on the networks below.",
  },
  'incident.opened': {
    family: 'grouped',
    subject: 'incident opened',
    sms: 'incident opened',
    intro: `A traffic rule triggered on the networks below: they form one incident of the rule. Networks that join later are announced at most once per ${SETTINGS.groupInterval.env}.`,
  },
  'incident.updated': {
    family: 'grouped',
    subject: 'incident updated',
    sms: 'incident updated',
    intro: 'More networks joined the open incident of a traffic rule since its last alert.',
  },
  'incident.reminder': {
    family: 'grouped',
    subject: 'incident reminder',
    sms: 'incident reminder',
    intro: 'Reminder: the incident of a traffic rule is still open on the networks below.',
  },
  'incident.resolved': {
    family: 'grouped',
    subject: 'incident resolved',
    sms: 'incident resolved',
    intro:
      'The incident of a traffic rule is resolved: the rule resolved on its last network. Every network of the incident with its peak value and when it was reached:',
  },
  'incident.acknowledged': {
    family: 'grouped',
    subject: 'incident acknowledged',
    sms: 'incident acknowledged',
    intro:
      'Someone took the incident of a traffic rule: it gets no more reminders and no escalation; its end is still sent (docs/acknowledge.md).',
  },
  'incident.escalated': {
    family: 'grouped',
    subject: 'incident escalated',
    sms: 'incident escalated',
    intro: `The incident of a traffic rule is still open and nobody has acknowledged it: it reached the next stage of ${SETTINGS.escalateAfter.env}.`,
  },
  'silence.still_holding': {
    family: 'silence',
    subject: 'still',
    sms: 'still',
    intro:
      'A silence ended while a change it held back still holds. It was recorded as suppressed during the silence; this announces it once.',
  },
  'maintenance.started': {
    family: 'maintenance',
    subject: 'maintenance started',
    sms: 'maintenance started',
    intro:
      'A maintenance window began: alerts matching its events are recorded as suppressed until it ends; what still holds then is announced once (docs/silences.md).',
  },
  'maintenance.ended': {
    family: 'maintenance',
    subject: 'maintenance ended',
    sms: 'maintenance ended',
    intro:
      'A maintenance window ended: alerts are sent again; a change it held back that still holds is announced once.',
  },
  'monitor.test': {
    family: 'test',
    subject: 'TEST notification - delivery check',
    sms: 'TEST notification, alert delivery works',
    intro:
      'This is a TEST notification from shieldwatch, sent to check that alerts are delivered. No action is needed.',
  },
  'monitor.digest': {
    family: 'digest',
    subject: 'digest',
    sms: 'digest',
    intro:
      'The period at a glance: incidents, response times, filter status and API availability (docs/digest.md). No action is needed.',
  },
} as const satisfies Readonly<Record<AlertEvent, EventTexts>>;

/** The events of one family, e.g. `EventsOf<'status'>` is `'filter.status_changed' | 'filter.status_reminder'`. */
export type EventsOf<F extends EventFamily> = {
  [E in AlertEvent]: (typeof ALERT_EVENT_TEXTS)[E]['family'] extends F ? E : never;
}[AlertEvent];

/** Every alert event, in the order of {@link ALERT_EVENT_TEXTS}. */
export const ALERT_EVENTS = Object.keys(ALERT_EVENT_TEXTS) as readonly AlertEvent[];

/** The texts of `event`, or undefined for a name this version does not know (a newer writer, a corrupt record). */
export function eventTexts(event: unknown): EventTexts | undefined {
  return typeof event === 'string' ? own(ALERT_EVENT_TEXTS, event) : undefined;
}

function eventsOf(...families: EventFamily[]): ReadonlySet<AlertEvent> {
  return new Set(ALERT_EVENTS.filter((event) => families.includes(ALERT_EVENT_TEXTS[event].family)));
}

/** Events that end an incident: their count and detail describe the incident that ended. */
export const RECOVERY_EVENTS: ReadonlySet<AlertEvent> = eventsOf('recovery');

/** Events about a blind spot of the networks (`network-health.ts`). */
export const HEALTH_EVENTS: ReadonlySet<AlertEvent> = eventsOf('health');

/** Events about an incident, whose `cycles` counts failures in a row rather than confirmations. */
export const INCIDENT_EVENTS: ReadonlySet<AlertEvent> = eventsOf('incident', 'recovery');
