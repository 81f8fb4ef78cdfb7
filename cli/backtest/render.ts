/** What `shieldwatch backtest` prints (docs/rules.md, Tuning a rule with backtest): the alerts and the counts. */
import type { Rule, RuleAlert } from '../../lambda/core/rules/rule-types.ts';
import { printThreshold } from '../../lambda/core/rules/rules.ts';
import { clip, printable, renderTable } from '../format.ts';
import type { ReplayCount } from './replay.ts';

/** One alert as `backtest --format json` prints it. */
export interface BacktestAlert {
  readonly at: string;
  readonly event: RuleAlert['event'];
  readonly rule: string;
  readonly network: string;
  readonly value: number | boolean;
}

export function toBacktestAlert(alert: RuleAlert): BacktestAlert {
  return { at: alert.at, event: alert.event, rule: alert.rule, network: alert.network, value: alert.value };
}

/** What the value was compared with: `> 500000`, `== true`, `> 3x baseline 1200 (3600)`. */
function against(rule: Rule | undefined, alert: RuleAlert): string {
  if (rule === undefined) return '';
  const threshold =
    alert.baseline === undefined
      ? printThreshold(rule.threshold)
      : `${printThreshold(rule.threshold)} ${alert.baseline} (${alert.threshold})`;
  return `${rule.op} ${threshold}`;
}

/** The alerts as a table, oldest first. */
export function renderAlertTable(rules: readonly Rule[], alerts: readonly RuleAlert[]): string {
  if (alerts.length === 0) return 'no alert would have been sent';
  const byName = new Map(rules.map((rule) => [rule.name, rule]));
  return renderTable(
    ['at', 'event', 'rule', 'network', 'value', 'against'],
    alerts.map((alert) => [
      alert.at,
      alert.event === 'network.rule_triggered' ? 'triggered' : 'resolved',
      alert.rule,
      clip(printable(alert.network), 40),
      String(alert.value),
      against(byName.get(alert.rule), alert),
    ]),
  );
}

/**
 * The count per rule and network: readable values and their range, alerts, and the state at the end. A
 * pair that saw no readable value is flagged: the path is probably wrong, or of the wrong type.
 */
export function renderCounts(counts: readonly ReplayCount[]): string {
  if (counts.length === 0) return 'no rule watches any network';
  const table = renderTable(
    ['rule', 'network', 'values', 'min', 'max', 'triggered', 'resolved', 'at end'],
    counts.map((count) => [
      count.rule,
      clip(printable(count.network), 40),
      String(count.readings),
      count.min === undefined ? '-' : String(count.min),
      count.max === undefined ? '-' : String(count.max),
      String(count.triggered),
      String(count.resolved),
      count.end === 'open' ? 'open (still triggered)' : count.end,
    ]),
  );
  const unread = [...new Set(counts.filter((count) => count.readings === 0).map((count) => count.rule))];
  const notes = unread.map(
    (rule) =>
      `note: rule "${rule}" read no value on some networks: a missing path, a value of the wrong type, or only failed snapshots`,
  );
  return [table, ...notes].join('\n');
}
