/**
 * Which per-network rule transitions belong to a rule incident (docs/design/incidents.md, Switching groupBy):
 * the incident item, not the `groupBy` setting of the cycle that sends them, says whether a
 * `network.rule_triggered` / `network.rule_resolved` is recorded only (its network is a member of the rule's
 * incident under that per-network incident) or published per network. So every per-network incident ends the
 * way it began, whatever the setting said in between, and in whichever cycle its alerts are sent. Pure.
 */

import type { RuleCell } from '../rules/rule-types.ts';
import type { IncidentMember, IncidentScopeState, ShardMembers } from './incidents.ts';

/** What a per-network rule alert (or a change a silence holds) says about its per-network incident. */
export interface RuleTransition {
  readonly network?: string;
  /** The per-network incident id: `<rule>/<network>/<triggeredAt>`. */
  readonly incident?: string;
  readonly triggeredAt?: string;
}

/** When the per-network incident was triggered: the alert's `triggeredAt`, or the time its id ends with. */
function triggeredAtOf(transition: RuleTransition): string | undefined {
  if (transition.triggeredAt !== undefined) return transition.triggeredAt;
  const id = transition.incident;
  if (id === undefined || transition.network === undefined) return undefined;
  const marker = `/${transition.network}/`;
  const at = id.lastIndexOf(marker);
  return at < 0 ? undefined : id.slice(at + marker.length);
}

function memberHolds(member: IncidentMember, transition: RuleTransition): boolean {
  if (member.network !== transition.network) return false;
  const since = triggeredAtOf(transition);
  if (member.triggers !== undefined) return since !== undefined && member.triggers.includes(since);
  // A member written before members named their per-network incidents: every one it was in while a member.
  if (since === undefined) return true;
  return member.leftAt === undefined || Date.parse(since) <= Date.parse(member.leftAt);
}

/**
 * Whether the per-network transition belongs to the rule's incident (open, or the latest resolved one) and is
 * therefore recorded only: its network joined that incident under this per-network incident. Otherwise it is
 * published per network.
 */
export function isIncidentTransition(
  scope: IncidentScopeState | undefined,
  transition: RuleTransition,
  shard?: ShardMembers,
): boolean {
  if (transition.network === undefined) return false;
  // The shard's working set (the current incident's members, and the one before's), then what an earlier
  // version kept in the incident item itself.
  const lists = [shard?.members, shard?.previous?.members, scope?.open?.members, scope?.last?.members];
  return lists.some((members) => members?.some((member) => memberHolds(member, transition)) === true);
}

/**
 * Whether an open cell may join its rule's incident in this cycle: only one whose trigger no cycle can have
 * sent yet, so the incident item decides how it is sent before anyone sends it: a trigger this cycle queued
 * (its claim keeps it for this cycle), or one the rule item's alert cap holds back (not queued at all). An
 * open cell whose trigger left earlier, or waits in an outbox, was or will be published per network.
 */
export function mayJoin(cell: RuleCell, queuedTrigger: boolean): boolean {
  return queuedTrigger || cell.held?.event === 'network.rule_triggered';
}
