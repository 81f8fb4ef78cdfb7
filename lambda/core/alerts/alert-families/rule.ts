/**
 * The `rule` family (docs/rules.md): a traffic rule triggered or resolved on one network, and (`groupBy=none`,
 * docs/acknowledge.md) the reminders, escalations and acknowledgement of the incident that trigger opened on
 * that network, which keep their `incident.*` events. The texts are in `rule-alert-text.ts`; a trigger is
 * `high` and opens the rule's incident on that network, a resolve closes it.
 */

import type { RuleIncidentEvent } from '../../incidents/rule-incidents.ts';
import type { AlertRecordOf, RuleAlertRecord } from '../../types.ts';
import { momentOf } from '../alert-time.ts';
import { incidentDocumentFields, incidentIntro } from '../monitor-incident-text.ts';
import { isRuleFollowUp, ruleEmailLines, ruleSeverity, ruleSms, ruleSubject } from '../rule-alert-text.ts';
import { ruleHeldText } from '../silence-alert-text.ts';
import { shorten } from '../visible-text.ts';
import {
  type AlertFamily,
  detailLines,
  incidentFromEvent,
  NOTHING,
  ownIncident,
  stringAttributes,
} from './family.ts';

/** A traffic rule on one network (the `groupBy` setting at `none`, and always recorded), and its incident's follow-ups. */
export const RULE_FAMILY: AlertFamily<RuleAlertRecord | AlertRecordOf<RuleIncidentEvent>> = {
  subject: ruleSubject,
  sms: ruleSms,
  // The rule's lines carry its severity and incident.
  emailLines: ruleEmailLines,
  // An acknowledgement's note is among its own lines.
  emailTail: (alert, field) => (isRuleFollowUp(alert) ? [] : detailLines(alert, field)),
  // The rule's own lines name its incident; the chat's common `Incident` line would repeat it.
  chatLines: (alert, field) =>
    ruleEmailLines(alert, field, true).filter((line) => !line.startsWith('*Incident:*')),
  chatTail: NOTHING.lines,
  attributes: (alert) => {
    const severity = RULE_FAMILY.severity(alert);
    return {
      ...(severity === undefined ? {} : { severity }),
      ...stringAttributes(alert, ['rule', 'network']),
    };
  },
  // As every incident's: a reminder neither triggers nor resolves, an escalation triggers (CONTRACT §13-14).
  action: (alert) => {
    switch (alert.event) {
      case 'network.rule_resolved':
        return 'resolve';
      case 'incident.reminder':
        return undefined;
      case 'incident.acknowledged':
        return 'acknowledge';
      default:
        return 'trigger';
    }
  },
  // A reminder is as urgent as the trigger it reminds of (it has no action: PagerDuty is not told).
  level: (alert, action) =>
    alert.event === 'network.rule_triggered' || action === 'trigger' || alert.event === 'incident.reminder'
      ? 'critical'
      : 'info',
  // Someone's acknowledgement has no severity of its own.
  severity: (alert) => (alert.event === 'incident.acknowledged' ? undefined : ruleSeverity(alert)),
  derivedIncident: (alert, action) =>
    isRuleFollowUp(alert) ? undefined : incidentFromEvent(alert, action, 'network.rule_triggered'),
  // A reminder, escalation or acknowledgement says it as every incident's does (the `incident.*` events' own
  // words speak of a rule's incident across networks).
  intro: (alert) =>
    isRuleFollowUp(alert)
      ? incidentIntro(alert, 'A traffic rule still holds on the network below', 'its resolve')
      : undefined,
  // Its stage (a follow-up's, a resolve's once the incident escalated) and who acknowledged, as the monitor's; a
  // resolve that carries its peak gives it as an incident across networks gives its members' (`peaks`).
  documentFields: (alert) => ({ ...incidentDocumentFields(alert), ...resolvePeaks(alert) }),
  // A rule triggering and resolving both change what holds; an escalation raises the stage; a reminder or an
  // acknowledgement change nothing that could still hold.
  heldKey: (alert) =>
    alert.event === 'incident.reminder' || alert.event === 'incident.acknowledged'
      ? undefined
      : ownIncident(alert),
  heldText: ruleHeldText,
};

/**
 * `network.rule_resolved` with its incident's peak: `peaks` of one entry, the shape an incident across networks
 * gives each member (`incident-alert-text.ts`), so a receiver reads a peak one way whatever `groupBy` says.
 */
function resolvePeaks(
  alert: RuleAlertRecord | AlertRecordOf<RuleIncidentEvent>,
): Readonly<Record<string, unknown>> {
  if (alert.event !== 'network.rule_resolved') return {};
  const peak = alert.peak;
  if (!(typeof peak === 'boolean' || (typeof peak === 'number' && Number.isFinite(peak)))) return {};
  if (typeof alert.network !== 'string') return {};
  const network = shorten(alert.network, 1024);
  const time = (value: unknown) =>
    typeof value === 'string' && momentOf(value) !== undefined ? value : undefined;
  const peakAt = time(alert.peakAt);
  const joinedAt = time(alert.triggeredAt);
  const leftAt = time(alert.at);
  return {
    peaks: [
      {
        network,
        peak,
        ...(peakAt === undefined ? {} : { peakAt }),
        ...(joinedAt === undefined ? {} : { joinedAt }),
        ...(leftAt === undefined ? {} : { leftAt }),
      },
    ],
  };
}
