/**
 * The `rule` family (docs/rules.md): a traffic rule triggered or resolved on one network. The texts are in
 * `rule-alert-text.ts`; a trigger is `high` and opens the rule's incident on that network, a resolve closes it.
 */
import { ruleEmailLines, ruleSeverity, ruleSms, ruleSubject } from '../rule-alert-text.ts';
import { ruleHeldText } from '../silence-alert-text.ts';
import type { RuleAlertRecord } from '../types.ts';
import {
  type AlertFamily,
  detailLines,
  incidentFromEvent,
  NOTHING,
  ownIncident,
  stringAttributes,
} from './family.ts';

/** A traffic rule on one network (the `groupBy` setting at `none`, and always recorded). */
export const RULE_FAMILY: AlertFamily<RuleAlertRecord> = {
  subject: ruleSubject,
  sms: ruleSms,
  // The rule's lines carry its severity and incident.
  emailLines: ruleEmailLines,
  emailTail: detailLines,
  // The rule's own lines name its incident; the chat's common `Incident` line would repeat it.
  chatLines: (alert, field) => ruleEmailLines(alert, field).filter((line) => !line.startsWith('*Incident:*')),
  chatTail: NOTHING.lines,
  attributes: (alert) => ({ severity: ruleSeverity(alert), ...stringAttributes(alert, ['rule', 'network']) }),
  action: (alert) => (alert.event === 'network.rule_resolved' ? 'resolve' : 'trigger'),
  level: (alert) => (alert.event === 'network.rule_triggered' ? 'critical' : 'info'),
  severity: ruleSeverity,
  derivedIncident: (alert, action) => incidentFromEvent(alert, action, 'network.rule_triggered'),
  documentFields: NOTHING.fields,
  // A rule triggering and resolving both change what holds.
  heldKey: ownIncident,
  heldText: ruleHeldText,
};
