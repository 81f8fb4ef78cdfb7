/**
 * Acknowledge and unacknowledge an incident in the store (docs/acknowledge.md; docs/design/incidents.md, For
 * acknowledgement and escalation): read the incident's scope item, decide (`core/incidents/incident-ack.ts`), and write
 * the decision with the `incident.acknowledged` alert in one write conditioned on the item's version. When a
 * cycle (or another click) wrote first, read again and decide again: two acknowledgements at once publish
 * once, and a cycle never loses one. The alert is left unclaimed in the item's outbox, so the next poll cycle
 * records and publishes it through the outbox like every other alert (claim, record, publish, remove).
 * Shared by `shieldwatch ack`/`unack` and the acknowledge function. A blind-spot incident's id names its shard
 * (`network.unreachable/<shard>/...`): it is acknowledged alike in that shard's health item (`health#<shard>`);
 * one of the monitor's own (`filter.status_changed/...`, `api.unreachable/...`) in the monitor state item; a
 * rule's on one network (`<rule>/<network>/<triggeredAt>`, `groupBy=none`) in the rule item that holds its cell.
 */

import { COMMIT_ATTEMPTS } from './commit.ts';
import type { AckIncidentView } from './core/ack/ack-page.ts';
import type { MonitorState } from './core/detect/decide.ts';
import type { HealthState } from './core/detect/network-health.ts';
import {
  type AckDecision,
  acknowledgeHealthIncident,
  acknowledgeIncident,
  acknowledgeMonitorIncident,
  acknowledgeRuleIncident,
  openHealthIncidentView,
  openMonitorIncidentView,
  openRuleIncidentView,
  type TimersAckDecision,
  type UnackDecision,
  unacknowledgeHealthIncident,
  unacknowledgeIncident,
  unacknowledgeMonitorIncident,
  unacknowledgeRuleIncident,
} from './core/incidents/incident-ack.ts';
import { parseIncidentId } from './core/incidents/incident-kinds.ts';
import { type Incident, type IncidentScopeState, sampleOf } from './core/incidents/incidents.ts';
import { describeError, StoreError } from './errors.ts';
import type { FoundRuleItem, RuleScopeState, StateStore, VersionedState } from './ports.ts';

/** The incident scopes, as the incident store gives them (docs/design/incidents.md, Ports and files). */
export interface IncidentScopes {
  incidentScope(rule: string): StateStore<IncidentScopeState>;
  /**
   * Every rule item of every shard (one Query on pk `state`, sk from `rules#`): they hold the cells whose
   * per-network incidents (`groupBy=none`) are acknowledged in them. Without it those ids are not found.
   */
  allRuleItems?(): Promise<readonly FoundRuleItem[]>;
  /** A shard's health item, which holds its blind-spot incidents (docs/alerts.md, Blind spots). */
  healthScope(shard: number): StateStore<HealthState>;
  /** The monitor state item (`state/monitor`), which holds the status's and the API's incidents. */
  readonly monitorState: StateStore<MonitorState>;
}

/** What {@link acknowledge} did; `view` is the incident as the pages show it. */
export type AckResult =
  | { readonly outcome: 'acknowledged' | 'already'; readonly view: AckIncidentView }
  | { readonly outcome: 'not-open'; readonly resolvedAt?: string };

/** What {@link unacknowledge} did. */
export type UnackResult =
  | { readonly outcome: 'unacknowledged' | 'not-acknowledged'; readonly view: AckIncidentView }
  | { readonly outcome: 'not-open'; readonly resolvedAt?: string };

/**
 * Whether `id` is an incident id `ack` can look for: a rule's across networks (`<rule>@<at>`), a rule's on one
 * network (`<rule>/<network>/<at>`), a blind spot's, or the monitor's.
 */
export function isAckableId(id: string): boolean {
  return parseIncidentId(id) !== undefined;
}

async function load<S>(store: StateStore<S>, id: string): Promise<VersionedState<S>> {
  try {
    return await store.load();
  } catch (error) {
    throw new StoreError(`cannot read incident ${id}: ${describeError(error)}`, { cause: error });
  }
}

/**
 * Reads, decides and writes until the write lands or nothing is to be written. `decide` returns the state
 * to write and its alerts, or its final answer.
 */
async function settle<S, R>(
  store: StateStore<S>,
  id: string,
  decide: (
    scope: S,
  ) => { readonly write: S; readonly alerts: AckAlerts; readonly result: R } | { readonly result: R },
): Promise<R> {
  for (let attempt = 1; attempt <= COMMIT_ATTEMPTS; attempt++) {
    const loaded = await load(store, id);
    const decision = decide(loaded.state);
    if (!('write' in decision)) return decision.result;
    let written: boolean;
    try {
      written = await store.commit(decision.write, loaded.version, decision.alerts);
    } catch (error) {
      throw new StoreError(`cannot write incident ${id}: ${describeError(error)}`, { cause: error });
    }
    if (written) return decision.result;
  }
  throw new StoreError(`incident ${id} kept changing (${COMMIT_ATTEMPTS} attempts)`);
}

type AckAlerts = Parameters<StateStore<IncidentScopeState>['commit']>[2];

/**
 * Acknowledgements a rule item keeps waiting for the next cycle at most: each may carry a note and who (a few
 * KB), and the item's worst case counts this many beyond its own alerts (docs/design/rule-state.md).
 */
export const RULE_ACKS_WAITING_MAX = 8;

/**
 * The rule items that hold a cell of per-network rule incident `id`, first the one whose cell is open (several
 * may hold copies for a moment while a network moves; docs/design/rule-state.md), by key.
 */
async function ruleItemsOf(scopes: IncidentScopes, id: string): Promise<FoundRuleItem[]> {
  if (scopes.allRuleItems === undefined) return [];
  let found: readonly FoundRuleItem[];
  try {
    found = await scopes.allRuleItems();
  } catch (error) {
    throw new StoreError(`cannot read incident ${id}: ${describeError(error)}`, { cause: error });
  }
  return found
    .filter((item) => openRuleIncidentView(item.loaded.state, id) !== undefined)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * A per-network rule incident's acknowledgement or its withdrawal, settled in the rule item that holds its
 * open cell (read again and decided again when a cycle wrote first). An item with
 * {@link RULE_ACKS_WAITING_MAX} acknowledgements waiting takes no more until the next cycle sent them.
 */
async function settleRuleCell<R>(
  scopes: IncidentScopes,
  id: string,
  decide: (state: RuleScopeState) => TimersAckDecision<RuleScopeState>,
): Promise<R> {
  const [item] = await ruleItemsOf(scopes, id);
  if (item === undefined) return { outcome: 'not-open' } as R;
  let loaded: VersionedState<RuleScopeState> = item.loaded;
  for (let attempt = 1; attempt <= COMMIT_ATTEMPTS; attempt++) {
    if (attempt > 1) loaded = await load(item.store, id);
    const decision = decide(loaded.state);
    const settled = timersSettled<R, RuleScopeState>(decision);
    if (!('write' in settled)) return settled.result;
    const waiting = loaded.outbox.filter((entry) => entry.event === 'incident.acknowledged').length;
    if (settled.alerts.length > 0 && waiting >= RULE_ACKS_WAITING_MAX) {
      throw new StoreError(
        `cannot write incident ${id}: ${waiting} acknowledgements wait in its rule item (${item.key}); try again after the next poll cycle`,
      );
    }
    let written: boolean;
    try {
      written = await item.store.commit(settled.write, loaded.version, settled.alerts);
    } catch (error) {
      throw new StoreError(`cannot write incident ${id}: ${describeError(error)}`, { cause: error });
    }
    if (written) return settled.result;
  }
  throw new StoreError(`incident ${id} kept changing (${COMMIT_ATTEMPTS} attempts)`);
}

/**
 * A blind-spot or monitor incident's decision (both kept as timers beside what opened them) as the result of
 * {@link acknowledge} or {@link unacknowledge}.
 */
function timersSettled<R, S>(
  decision: TimersAckDecision<S>,
): { readonly write: S; readonly alerts: AckAlerts; readonly result: R } | { readonly result: R } {
  if (decision.outcome === 'not-open') return { result: { outcome: 'not-open' } as R };
  const result = { outcome: decision.outcome, view: decision.view } as R;
  if ('state' in decision) {
    return {
      write: decision.state,
      alerts: decision.alert === undefined ? [] : [decision.alert],
      result,
    };
  }
  return { result };
}

/** A rule incident's `not-open` answer: when it resolved, if it is the scope's last one. */
function notOpen(resolved: Incident | undefined): {
  readonly outcome: 'not-open';
  readonly resolvedAt?: string;
} {
  return resolved?.resolvedAt === undefined
    ? { outcome: 'not-open' }
    : { outcome: 'not-open', resolvedAt: resolved.resolvedAt };
}

/** Acknowledges incident `id` (open, not acknowledged yet), by `by`, at `at` (ISO-8601). */
export async function acknowledge(
  scopes: IncidentScopes,
  id: string,
  ack: { readonly by: string; readonly at: string; readonly note?: string },
): Promise<AckResult> {
  // Where the incident lives, by its id (the kinds' registry): one acknowledgement, written to that item.
  const ref = parseIncidentId(id);
  if (ref === undefined) return { outcome: 'not-open' };
  if (ref.home === 'monitor') {
    return settle(scopes.monitorState, id, (state) =>
      timersSettled<AckResult, MonitorState>(acknowledgeMonitorIncident(state, id, ack)),
    );
  }
  if (ref.home === 'health') {
    return settle(scopes.healthScope(ref.shard), id, (state) =>
      timersSettled<AckResult, HealthState>(acknowledgeHealthIncident(state, id, ack)),
    );
  }
  if (ref.home === 'cell') {
    return settleRuleCell<AckResult>(scopes, id, (state) => acknowledgeRuleIncident(state, id, ack));
  }
  return settle<IncidentScopeState, AckResult>(scopes.incidentScope(ref.rule), id, (scope) => {
    const decision: AckDecision = acknowledgeIncident(scope, id, ack);
    if (decision.outcome === 'acknowledged') {
      return {
        write: decision.state,
        alerts: [decision.alert],
        result: { outcome: 'acknowledged', view: ackView(decision.incident) },
      };
    }
    if (decision.outcome === 'already')
      return { result: { outcome: 'already', view: ackView(decision.incident) } };
    return { result: notOpen(decision.resolved) };
  });
}

/** Withdraws the acknowledgement of incident `id`; nothing is published. */
export async function unacknowledge(
  scopes: IncidentScopes,
  id: string,
  by: string,
  at: string,
): Promise<UnackResult> {
  const ref = parseIncidentId(id);
  if (ref === undefined) return { outcome: 'not-open' };
  if (ref.home === 'monitor') {
    return settle(scopes.monitorState, id, (state) =>
      timersSettled<UnackResult, MonitorState>(unacknowledgeMonitorIncident(state, id)),
    );
  }
  if (ref.home === 'health') {
    return settle(scopes.healthScope(ref.shard), id, (state) =>
      timersSettled<UnackResult, HealthState>(unacknowledgeHealthIncident(state, id)),
    );
  }
  if (ref.home === 'cell') {
    return settleRuleCell<UnackResult>(scopes, id, (state) => unacknowledgeRuleIncident(state, id));
  }
  return settle<IncidentScopeState, UnackResult>(scopes.incidentScope(ref.rule), id, (scope) => {
    const decision: UnackDecision = unacknowledgeIncident(scope, id, by, at);
    if (decision.outcome === 'unacknowledged') {
      return {
        write: decision.state,
        alerts: [],
        result: { outcome: 'unacknowledged', view: ackView(decision.incident) },
      };
    }
    if (decision.outcome === 'not-acknowledged') {
      return { result: { outcome: 'not-acknowledged', view: ackView(decision.incident) } };
    }
    return { result: notOpen(decision.resolved) };
  });
}

/** The open incident `id` as the pages show it, or undefined (resolved, replaced, unknown). A read only. */
export async function findOpenIncident(
  scopes: IncidentScopes,
  id: string,
): Promise<AckIncidentView | undefined> {
  const ref = parseIncidentId(id);
  if (ref === undefined) return undefined;
  if (ref.home === 'monitor') {
    return openMonitorIncidentView((await load(scopes.monitorState, id)).state, id);
  }
  if (ref.home === 'health') {
    return openHealthIncidentView((await load(scopes.healthScope(ref.shard), id)).state, id);
  }
  if (ref.home === 'cell') {
    const [item] = await ruleItemsOf(scopes, id);
    return item === undefined ? undefined : openRuleIncidentView(item.loaded.state, id);
  }
  const { state } = await load(scopes.incidentScope(ref.rule), id);
  return state.open !== undefined && state.open.id === id && state.open.state === 'open'
    ? ackView(state.open)
    : undefined;
}

/** What the acknowledge pages show of an incident: its networks active first, each with its peak. */
export function ackView(incident: Incident): AckIncidentView {
  // The incident item names a few (its parts' worst); an earlier version's item, every member.
  const networks = sampleOf(incident, 'worst').map((m) => ({
    network: m.network,
    ...(m.peak === undefined ? {} : { peak: m.peak }),
    active: m.leftAt === undefined,
  }));
  networks.sort((a, b) => Number(b.active) - Number(a.active));
  return {
    id: incident.id,
    rule: incident.rule,
    openedAt: incident.openedAt,
    networks,
    stage: incident.stage,
    ...(incident.acknowledged === undefined ? {} : { acknowledged: incident.acknowledged }),
  };
}
