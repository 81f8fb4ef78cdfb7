/**
 * The texts of the `rule` family (docs/rules.md): a traffic rule triggered or resolved on a network.
 * The subject and SMS name the network, the rule and the observed value against the threshold; the email adds
 * the rule as written, the values of the last N cycles and what the rule's kind adds (a baseline rule's
 * baseline). The path, operator and threshold come from the record's `condition`, never from parsing the rule
 * text again. Network ids and paths come from configuration but may hold anything: they are folded and
 * escaped as API text is. Pure.
 */

import type { RuleIncidentEvent } from '../incidents/rule-incidents.ts';
import { conditionOf, kindOf, type RuleCondition } from '../rules/rule-kinds/index.ts';
import type { RuleOp } from '../rules/rule-types.ts';
import { parseRules } from '../rules/rules.ts';
import type { AlertRecord, AlertRecordOf, RuleAlertRecord, Severity } from '../types.ts';
import { ALERT_EVENT_TEXTS } from './alert-events.ts';
import { SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from './alert-limits.ts';
import { formatDuration, momentOf } from './alert-time.ts';
import { thresholdMultiple } from './incident-alert-text.ts';
import { incidentLines, incidentTag } from './monitor-incident-text.ts';
import { escapeHidden, foldVisible, shorten } from './visible-text.ts';

/** Raw characters folded for a subject or SMS; anything longer is cut first so a huge id costs nothing. */
const MAX_FOLD_INPUT = 1000;
const MAX_TEXT_IN_EMAIL = 2000;
const MAX_VALUES_IN_EMAIL = 100;

/** A record of the family: a trigger or resolve, or its incident's reminder, escalation or acknowledgement. */
type RuleFamilyRecord = RuleAlertRecord | AlertRecordOf<RuleIncidentEvent>;

/** The operator that holds exactly when `op` fails: a resolve shows the value on the other side. */
const NEGATED: Readonly<Record<RuleOp, RuleOp>> = {
  '>': '<=',
  '>=': '<',
  '<': '>=',
  '<=': '>',
  '==': '!=',
  '!=': '==',
};

/**
 * The rule's path, operator and threshold, as the record carries them. A record stored before records
 * carried them (an outbox entry waiting across an upgrade) has only the rule as written: that text is read
 * here, and only for such a record. Undefined when neither says (the texts then compare with `vs`).
 */
function conditionOfAlert(alert: AlertRecord): RuleCondition | undefined {
  if (alert.condition !== undefined) return alert.condition;
  if (typeof alert.ruleText !== 'string') return undefined;
  const rule = parseRules(shorten(alert.ruleText, MAX_TEXT_IN_EMAIL)).rules[0];
  return rule === undefined ? undefined : conditionOf(rule);
}

/** The severity of a rule alert: a trigger is `high`, a resolve `resolved`. */
export function ruleSeverity(alert: AlertRecord): Severity {
  return alert.event === 'network.rule_resolved' ? 'resolved' : 'high';
}

/** A number or boolean as the subject and SMS show it: a whole number below 1e15 exactly, any other to six significant digits. */
export function shortValue(value: unknown): string {
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'number' || !Number.isFinite(value)) return '?';
  return Number.isSafeInteger(value) && Math.abs(value) < 1e15
    ? String(value)
    : String(Number(value.toPrecision(6)));
}

/** One-line ASCII text from configuration or a record, hidden characters as `<U+XXXX>`. */
function oneLine(text: unknown, fallback: string): string {
  if (typeof text !== 'string' || text === '') return fallback;
  return foldVisible(shorten(text, MAX_FOLD_INPUT));
}

/**
 * Whether the record is a reminder, escalation or acknowledgement of the rule's incident on one network
 * (`rule-incidents.ts`): within this family, the `incident.*` events.
 */
export function isRuleFollowUp(alert: Pick<AlertRecord, 'event'>): boolean {
  return typeof alert.event === 'string' && alert.event.startsWith('incident.');
}

/**
 * The pieces of the subject and SMS: `net N: rule verb (path value op threshold)`. A reminder, escalation or
 * acknowledgement says first what it is (`REMINDER `, `ESCALATED stage 2: `, `ACK by alice: `), and compares the
 * value this cycle read when it has one (an acknowledgement has none), or names the condition alone.
 */
function parts(alert: AlertRecord) {
  const shape = conditionOfAlert(alert);
  const resolved = alert.event === 'network.rule_resolved';
  const followUp = isRuleFollowUp(alert);
  const op = shape === undefined ? 'vs' : resolved ? NEGATED[shape.op] : shape.op;
  const threshold =
    shape === undefined
      ? shortValue(alert.threshold)
      : kindOf(shape.threshold).shortThreshold(shape.threshold, alert, shortValue);
  const texts = ALERT_EVENT_TEXTS[resolved ? 'network.rule_resolved' : 'network.rule_triggered'];
  const hasValue = typeof alert.value === 'number' || typeof alert.value === 'boolean';
  const comparison =
    !followUp || hasValue
      ? `${shortValue(alert.value)} ${op} ${threshold}`
      : shape === undefined
        ? ''
        : `${op} ${threshold}`;
  return {
    tag: followUp ? incidentTag(alert) : '',
    network: oneLine(alert.network, '?'),
    rule: oneLine(alert.rule, '?'),
    verb: followUp && alert.event !== 'incident.acknowledged' ? `still ${texts.subject}` : texts.subject,
    smsVerb: followUp && alert.event !== 'incident.acknowledged' ? `still ${texts.sms}` : texts.sms,
    path: shape === undefined ? undefined : foldVisible(shape.path),
    comparison,
  };
}

/**
 * ` (path comparison)`, ` (path)` or ` (comparison)` (`path` undefined: the rule's path is unknown), or nothing
 * when there is neither. Its length grows with `path` alone, as `fitTwo` counts it.
 */
function condition(path: string | undefined, comparison: string): string {
  if (path === undefined) return comparison === '' ? '' : ` (${comparison})`;
  return comparison === '' ? ` (${path})` : ` (${path} ${comparison})`;
}

/**
 * `head + network + middle + path + tail` within `max`: the network and the path share the room left, each
 * keeping what it needs when the other needs less.
 */
function fitTwo(
  render: (network: string, path: string) => string,
  network: string,
  path: string,
  max: number,
): string {
  const room = max - render('', '').length;
  if (network.length + path.length <= room) return render(network, path);
  const half = Math.max(3, Math.floor(room / 2));
  const networkRoom = Math.max(
    3,
    network.length <= half ? network.length : Math.max(half, room - path.length),
  );
  const pathRoom = Math.max(3, room - Math.min(network.length, networkRoom));
  return render(shorten(network, networkRoom), shorten(path, pathRoom));
}

/** The subject of a rule alert, before the final ASCII guard, e.g. `[x] net 2: pps triggered (traffic.in_pps 90000 > 50000)`. */
export function ruleSubject(alert: AlertRecord, prefix: string): string {
  const p = parts(alert);
  return fitTwo(
    (network, path) =>
      `${prefix}${p.tag}net ${network}: ${p.rule} ${p.verb}${condition(p.path === undefined ? undefined : path, p.comparison)}`,
    p.network,
    p.path ?? '',
    SUBJECT_MAX_CHARS,
  );
}

/** The SMS of a rule alert, before the final ASCII guard; `when` is `seen ...`. */
export function ruleSms(alert: RuleFamilyRecord, name: string, when: string): string {
  const p = parts(alert);
  const lasted = alert.event === 'network.rule_resolved' ? durationOf(alert) : undefined;
  const after = lasted === undefined ? '' : ` after ${lasted}`;
  return fitTwo(
    (network, path) =>
      `${name}: ${p.tag}net ${network}: ${p.rule} ${p.smsVerb}${after}${condition(p.path === undefined ? undefined : path, p.comparison)}, ${when}.`,
    p.network,
    p.path ?? '',
    SMS_MAX_CHARS,
  );
}

/** How long the incident lasted, from its trigger to this alert; undefined when either time is unknown. */
function durationOf(alert: AlertRecord): string | undefined {
  const since = momentOf(triggeredAtOf(alert));
  const seen = momentOf(alert.at);
  return since === undefined || seen === undefined ? undefined : formatDuration(seen.ms - since.ms);
}

function exact(value: unknown): string {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '(unknown)';
}

function emailText(text: unknown): string {
  return typeof text === 'string' && text !== ''
    ? escapeHidden(shorten(text, MAX_TEXT_IN_EMAIL), 'space')
    : '(unknown)';
}

/** When the incident was triggered: a trigger's or resolve's `triggeredAt`, a follow-up's `openedAt`. */
function triggeredAtOf(alert: AlertRecord): unknown {
  return isRuleFollowUp(alert)
    ? (alert as { readonly openedAt?: unknown }).openedAt
    : (alert as { readonly triggeredAt?: unknown }).triggeredAt;
}

/**
 * The email lines of a reminder, escalation or acknowledgement of the rule's incident on one network: the rule,
 * the network, the value this cycle read, when it triggered and how long ago, then its stage, who acknowledged
 * and the note, and its id.
 */
function followUpLines(
  alert: AlertRecord,
  field: (label: string, value: string) => string,
  chat: boolean,
): string[] {
  const lines = [
    field('Rule', emailText(alert.ruleText ?? alert.rule)),
    field('Network', emailText(alert.network)),
  ];
  if (typeof alert.value === 'number' || typeof alert.value === 'boolean')
    lines.push(field('Value (latest)', exact(alert.value)));
  const triggered = momentOf(triggeredAtOf(alert));
  if (triggered !== undefined) lines.push(field('Triggered', `${triggered.iso} (${triggered.human})`));
  const open = durationOf(alert);
  if (open !== undefined) lines.push(field('Open for', open));
  return [...lines, ...incidentLines(alert, field, chat)];
}

/**
 * The email lines of a rule alert: the rule as written, the network, the values and the baseline, the times
 * (`chat`: without the incident's id, which the chat's common lines give).
 */
export function ruleEmailLines(
  alert: RuleFamilyRecord,
  field: (label: string, value: string) => string,
  chat = false,
): string[] {
  if (isRuleFollowUp(alert)) return followUpLines(alert, field, chat);
  const shape = conditionOfAlert(alert);
  const resolved = alert.event === 'network.rule_resolved';
  const lines = [
    field('Rule', emailText(alert.ruleText)),
    field('Network', emailText(alert.network)),
    field(resolved ? 'Value (resolving)' : 'Value (triggering)', exact(alert.value)),
  ];
  const thresholdLines =
    shape === undefined
      ? [['Threshold', exact(alert.threshold)] as const]
      : kindOf(shape.threshold).thresholdLines(shape.threshold, alert, exact);
  for (const [label, value] of thresholdLines) lines.push(field(label, value));
  const values: readonly unknown[] = Array.isArray(alert.values) ? alert.values : [];
  if (values.length > 0) {
    const shown = values.slice(-MAX_VALUES_IN_EMAIL).map(exact).join(', ');
    const what = resolved ? 'the condition failed' : 'the condition held';
    lines.push(
      field(
        `Last ${values.length} cycle${values.length === 1 ? '' : 's'}`,
        `${shown} (${what}, oldest first)`,
      ),
    );
  }
  const triggered = momentOf(triggeredAtOf(alert));
  if (triggered !== undefined) lines.push(field('Triggered', `${triggered.iso} (${triggered.human})`));
  if (resolved) lines.push(field('Lasted', durationOf(alert) ?? 'unknown'));
  // The incident's peak on the network, as an incident across networks gives each of its networks'.
  const peakAt = resolved ? momentOf(alert.peakAt) : undefined;
  if (peakAt !== undefined && (typeof alert.peak === 'number' || typeof alert.peak === 'boolean'))
    lines.push(field('Peak', `${exact(alert.peak)} at ${peakAt.iso}${thresholdMultiple(alert.peak, shape)}`));
  if (typeof alert.incident === 'string' && alert.incident !== '')
    lines.push(field('Incident', emailText(alert.incident)));
  return lines;
}
