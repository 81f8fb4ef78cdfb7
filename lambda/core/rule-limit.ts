/**
 * How many rule alerts one cycle may append to one rule item (README, Traffic rules: where rule state
 * lives). A cycle in which every network of a large shard trips a rule at once would otherwise write
 * thousands of alerts into one DynamoDB item. Pure: no clock, no environment.
 */
import type { RuleEvalResult } from './rule-eval.ts';
import type { RuleCell, RuleState } from './rule-types.ts';

/**
 * Keeps the first `max` alerts of an evaluation. The cells behind the others keep their state from before
 * the cycle, as if their network had not been observed (no evidence): they trigger or resolve in a later
 * cycle whose reading still says so, each alert still sent once. Within `max`, the result is unchanged.
 */
export function limitRuleAlerts(
  before: RuleState | undefined,
  result: RuleEvalResult,
  max: number,
): RuleEvalResult {
  if (result.alerts.length <= max) return result;
  const kept = result.alerts.slice(0, Math.max(0, max));
  const deferred = new Map<string, Set<string>>();
  for (const alert of result.alerts.slice(kept.length)) {
    const networks = deferred.get(alert.rule) ?? new Set<string>();
    networks.add(alert.network);
    deferred.set(alert.rule, networks);
  }
  const cells = Object.fromEntries(
    Object.entries(result.state.cells).map(([rule, row]) => {
      const wait = deferred.get(rule);
      if (wait === undefined) return [rule, row];
      const entries: [string, RuleCell][] = [];
      for (const [network, cell] of Object.entries(row)) {
        if (!wait.has(network)) entries.push([network, cell]);
        else {
          const old = before?.cells[rule]?.[network];
          if (old !== undefined) entries.push([network, old]);
        }
      }
      // Object.fromEntries defines own properties: a network id `__proto__` stays a cell.
      return [rule, Object.fromEntries(entries)];
    }),
  );
  return { ...result, state: { ...result.state, cells }, alerts: kept };
}
