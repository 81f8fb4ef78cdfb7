/**
 * The incidents a sequence of per-network rule transitions would have formed (`shieldwatch backtest`; docs/
 * rules.md, Tuning a rule with backtest): the transitions replayed cycle by cycle (one observation time, one
 * cycle) through the same {@link judgeIncident} the monitor uses, so backtest shows what would have been
 * published with the `groupBy` setting at `rule`. Peaks are those of the transitions' values (backtest keeps no
 * other reading). Pure.
 */

import type { RuleCondition } from '../rules/rule-kinds/index.ts';
import {
  EMPTY_SHARD_MEMBERS,
  type IncidentAlert,
  type IncidentRow,
  type IncidentScopeState,
  incidentRow,
  judgeIncident,
  type ShardMembers,
  withMembers,
} from './incidents.ts';

/** A per-network transition as backtest makes it. */
export interface ReplayedTransition {
  readonly at: string;
  readonly event: string;
  readonly rule: string;
  readonly network: string;
  readonly value: number | boolean;
}

/** What the transitions would have formed: the incidents, and the incident alerts published, in order. */
export interface ReplayedIncidents {
  readonly incidents: readonly IncidentRow[];
  readonly alerts: ReadonlyArray<Pick<IncidentAlert, 'at' | 'event' | 'incident' | 'rule'>>;
}

/** Replays `transitions` (oldest first) rule by rule into incidents. */
export function replayIncidents(
  transitions: readonly ReplayedTransition[],
  rules: ReadonlyArray<{ readonly name: string; readonly text?: string; readonly condition?: RuleCondition }>,
  groupIntervalMs: number,
): ReplayedIncidents {
  const incidents: IncidentRow[] = [];
  const alerts: Array<Pick<IncidentAlert, 'at' | 'event' | 'incident' | 'rule'>> = [];
  for (const rule of rules) {
    const mine = transitions.filter((t) => t.rule === rule.name);
    const cycles = [...new Set(mine.map((t) => t.at))].sort((a, b) => Date.parse(a) - Date.parse(b));
    let state: IncidentScopeState | undefined;
    // The one shard's working set, carried as the store would (its members, for the rows).
    let members: ShardMembers = EMPTY_SHARD_MEMBERS;
    for (const at of cycles) {
      const judged = judgeIncident(state, {
        subject: {
          rule: rule.name,
          ...(rule.text === undefined ? {} : { ruleText: rule.text }),
          ...(rule.condition === undefined ? {} : { condition: rule.condition }),
        },
        shard: 0,
        at,
        views: mine
          .filter((t) => t.at === at)
          .map((t) => ({ network: t.network, open: t.event === 'network.rule_triggered', value: t.value })),
        groupIntervalMs,
        members,
      });
      if (judged.stale) continue;
      const finished = members;
      members = judged.members;
      if (!judged.changed) continue;
      if (members.incident === undefined && judged.state.open !== undefined) {
        members = { ...members, incident: judged.state.open.id };
      }
      for (const alert of judged.alerts) {
        alerts.push({ at: alert.at, event: alert.event, incident: alert.incident, rule: rule.name });
      }
      if (judged.state.last !== undefined && judged.state.last !== state?.last) {
        const last = judged.state.last;
        const set = members.incident === last.id ? members : finished;
        incidents.push(incidentRow(withMembers(last, set.incident === last.id ? set.members : [])));
      }
      state = judged.state;
    }
    if (state?.open !== undefined) incidents.push(incidentRow(withMembers(state.open, members.members)));
  }
  incidents.sort((a, b) => Date.parse(a.openedAt) - Date.parse(b.openedAt));
  return { incidents, alerts };
}
