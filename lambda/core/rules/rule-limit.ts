/**
 * How many rule alerts one cycle may append to one rule item
 * (docs/design/rule-state.md). A cycle in which every network of a large shard trips a rule at once would otherwise write
 * thousands of alerts into one DynamoDB item. Pure: no clock, no environment.
 */
import { own } from '../own-record.ts';
import { type RuleEvalResult, ruleIncidentId } from './rule-eval.ts';
import { ruleKind } from './rule-kinds/index.ts';
import type { HeldTransition, Rule, RuleAlert, RuleCell } from './rule-types.ts';

/** One transition that wants to go out this cycle: held from an earlier one, or made by this one. */
interface Outgoing {
  readonly rule: string;
  readonly network: string;
  /** Set for a transition made by this cycle. */
  readonly alert?: RuleAlert;
  /** Set for a transition held from an earlier cycle. */
  readonly held?: HeldTransition;
}

/**
 * Keeps at most `max` alerts of an evaluation, the transitions held back by earlier cycles first (oldest
 * first), then this cycle's. A transition that does not fit is not forgotten: its cell has changed already and
 * holds the transition itself ({@link RuleCell.held}), which goes out, with its own time, values and
 * incident, in the first cycle with room. Every trigger and every resolve is sent, even of a condition that
 * ended before its trigger could be sent. Within `max` and with nothing held, the result is unchanged.
 */
export function limitRuleAlerts(rules: readonly Rule[], result: RuleEvalResult, max: number): RuleEvalResult {
  if (result.stale) return result;
  const order = new Map(rules.map((rule, index) => [rule.name, index]));
  const waiting: Outgoing[] = [];
  for (const [rule, row] of Object.entries(result.state.cells)) {
    for (const [network, cell] of Object.entries(row)) {
      if (cell.held !== undefined) waiting.push({ rule, network, held: cell.held });
    }
  }
  if (waiting.length === 0 && result.alerts.length <= max) return result;
  // Oldest first; within one cycle in rule order, then as the row lists its networks (the evaluator's order).
  waiting.sort(
    (a, b) =>
      (a.held!.at < b.held!.at ? -1 : a.held!.at > b.held!.at ? 1 : 0) ||
      (order.get(a.rule) ?? 0) - (order.get(b.rule) ?? 0),
  );
  const outgoing: Outgoing[] = [
    ...waiting,
    ...result.alerts.map((alert) => ({ rule: alert.rule, network: alert.network, alert })),
  ];
  const limit = Math.max(0, max);
  const changed = new Map<string, Map<string, RuleCell>>();
  const setCell = (rule: string, network: string, cell: RuleCell) => {
    const row = changed.get(rule) ?? new Map<string, RuleCell>();
    row.set(network, cell);
    changed.set(rule, row);
  };
  const alerts: RuleAlert[] = [];
  outgoing.forEach((item, index) => {
    const cell = own(own(result.state.cells, item.rule), item.network);
    if (cell === undefined) return;
    const ruleOf = rules.find((r) => r.name === item.rule);
    if (index < limit) {
      if (item.alert !== undefined) alerts.push(item.alert);
      else if (ruleOf !== undefined) {
        alerts.push(heldAlert(ruleOf, item.network, cell, item.held!));
        setCell(item.rule, item.network, released(cell));
      }
      return;
    }
    if (item.alert !== undefined) setCell(item.rule, item.network, holding(cell, item.alert));
  });
  const cells = Object.fromEntries(
    Object.entries(result.state.cells).map(([rule, row]) => {
      const replaced = changed.get(rule);
      if (replaced === undefined) return [rule, row];
      // Object.fromEntries defines own properties: a network id `__proto__` stays a cell.
      return [
        rule,
        Object.fromEntries(
          Object.entries(row).map(([network, cell]) => [network, replaced.get(network) ?? cell]),
        ),
      ];
    }),
  );
  return { ...result, state: { ...result.state, cells }, alerts };
}

/** The cell after this cycle's transition, holding that transition back. */
function holding(cell: RuleCell, alert: RuleAlert): RuleCell {
  const held: HeldTransition = {
    event: alert.event,
    at: alert.at,
    values: alert.values,
    ...(alert.baseline === undefined ? {} : { baseline: alert.baseline }),
    ...(alert.stage === undefined ? {} : { stage: alert.stage }),
  };
  // A resolved cell is closed: it keeps the incident's start, id and peak until its resolve goes out.
  return alert.event === 'network.rule_resolved'
    ? {
        ...cell,
        triggeredAt: alert.triggeredAt ?? alert.at,
        incident: alert.incident,
        ...(alert.peak === undefined ? {} : { peak: { value: alert.peak, at: alert.peakAt ?? alert.at } }),
        held,
      }
    : { ...cell, held };
}

/** The cell once its held transition went out: a closed cell forgets the incident it resolved. */
function released(cell: RuleCell): RuleCell {
  const { held: _held, ...rest } = cell;
  if (rest.open) return rest;
  const { triggeredAt: _triggeredAt, incident: _incident, peak: _peak, ...closed } = rest;
  return closed;
}

/** The alert of a held transition, as the evaluator made it in the cycle that held it back. */
function heldAlert(rule: Rule, network: string, cell: RuleCell, held: HeldTransition): RuleAlert {
  const value = held.values[held.values.length - 1] ?? 0;
  // A threshold that cannot be known (a damaged reference) shows the value itself.
  const threshold = ruleKind(rule).heldThreshold(rule.threshold, held.baseline) ?? value;
  const triggeredAt = cell.triggeredAt ?? held.at;
  return {
    event: held.event,
    at: held.at,
    rule: rule.name,
    network,
    value,
    threshold,
    ...(held.baseline === undefined ? {} : { baseline: held.baseline }),
    ruleText: rule.text,
    values: held.values,
    incident: cell.incident ?? ruleIncidentId(rule.name, network, triggeredAt),
    triggeredAt,
    ...(held.stage === undefined ? {} : { stage: held.stage }),
    ...(held.event === 'network.rule_resolved' && cell.peak !== undefined
      ? { peak: cell.peak.value, peakAt: cell.peak.at }
      : {}),
  };
}
