/**
 * Every alert family, one record each (issue 20.3; docs/alerts.md): a family added to `EventFamily`
 * (`alert-events.ts`) does not compile until it has its entry here, and an entry does not compile until it has
 * every text, attribute, action and level of {@link AlertFamily}. The renderers look an alert's family up
 * here; nothing else dispatches on a family. An `incident.*` alert about a blind spot (its networks as `members`) is the health family's;
 * one about the monitor's own incidents (neither, its id `filter.status_changed/...`, `api.unreachable/...`) the status or API family's;
 * one about a rule's incident on one network (a rule and a network, no story: `groupBy=none`) the rule family's.
 *
 * The keys are the family tags of `alert-events.ts`: `incident` and `recovery` are the API's incidents and
 * their ends (one family, `api.ts`), `grouped` a rule's incident across networks (`incident.ts`).
 */

import { familyOfIncident } from '../../incidents/incident-kinds.ts';
import { isMonitorIncidentAlert, monitorIncidentFamilyOf } from '../../incidents/monitor-incidents.ts';
import { isRuleIncidentAlert } from '../../incidents/rule-incidents.ts';
import type { AlertRecord, AlertRecordOf } from '../../types.ts';
import { type EventFamily, type EventsOf, eventTexts } from '../alert-events.ts';
import { isHealthIncidentAlert } from '../health-alert-text.ts';
import { API_FAMILY } from './api.ts';
import { DIGEST_FAMILY } from './digest.ts';
import type { AlertFamily } from './family.ts';
import { HEALTH_FAMILY } from './health.ts';
import { INCIDENT_FAMILY } from './incident.ts';
import { MAINTENANCE_FAMILY } from './maintenance.ts';
import { RULE_FAMILY } from './rule.ts';
import { silenceFamily } from './silence.ts';
import { STATUS_FAMILY } from './status.ts';
import { TEST_FAMILY } from './test.ts';

export type { AlertAction, AlertFamily, AlertLevel, TextField } from './family.ts';

/** Each family's record, typed by the records of its events. */
export const ALERT_FAMILIES = {
  status: STATUS_FAMILY,
  incident: API_FAMILY,
  recovery: API_FAMILY,
  rule: RULE_FAMILY,
  health: HEALTH_FAMILY,
  grouped: INCIDENT_FAMILY,
  silence: silenceFamily(eventFamily),
  maintenance: MAINTENANCE_FAMILY,
  test: TEST_FAMILY,
  digest: DIGEST_FAMILY,
} as const satisfies { readonly [F in EventFamily]: AlertFamily<AlertRecordOf<EventsOf<F>>> };

/**
 * The family of an event by its name alone (not the record's shape: a blind spot's `incident.*` event is the
 * grouped family's here); undefined for an event this version does not know. What a silence holds back, and
 * how its end names it, go by the event.
 */
export function eventFamily(event: unknown): AlertFamily<AlertRecord> | undefined {
  const family = eventTexts(event)?.family;
  // The compiler cannot tie a record to its event's family; the caller's record carries this event.
  return family === undefined ? undefined : (ALERT_FAMILIES[family] as AlertFamily<AlertRecord>);
}

/**
 * The family of an alert's event; an event this version does not know is rendered as plainly as the delivery
 * check ({@link TEST_FAMILY}).
 */
export function familyOf(
  alert: (Pick<AlertRecord, 'event'> & Partial<AlertRecord>) | undefined,
): AlertFamily<AlertRecord> {
  // An `incident.*` alert is rendered by its incident's kind (the kinds' registry, by its id): a blind spot's by
  // the health family, the monitor's own by the status or API family, a rule's on one network by the rule
  // family, a rule's across networks by its own.
  if (alert !== undefined && typeof alert.event === 'string' && alert.event.startsWith('incident.')) {
    const kind = familyOfIncident(alert.incident);
    if (kind !== undefined) return ALERT_FAMILIES[kind] as AlertFamily<AlertRecord>;
    // An id no kind reads (a record another version wrote): told by the record's shape.
    if (isHealthIncidentAlert(alert)) return HEALTH_FAMILY as AlertFamily<AlertRecord>;
    if (isRuleIncidentAlert(alert)) return RULE_FAMILY as AlertFamily<AlertRecord>;
    if (isMonitorIncidentAlert(alert)) {
      return (
        monitorIncidentFamilyOf(alert) === 'status' ? STATUS_FAMILY : API_FAMILY
      ) as AlertFamily<AlertRecord>;
    }
  }
  const family = eventTexts(alert?.event)?.family;
  // The compiler cannot tie the record to its event's family; the key came from the record's own event.
  return (family === undefined ? TEST_FAMILY : ALERT_FAMILIES[family]) as AlertFamily<AlertRecord>;
}
