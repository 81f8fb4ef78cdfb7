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
import { cellHold, healthHold, itemHold, monitorHold } from './core/incidents/incident-ack.ts';
import { parseIncidentId } from './core/incidents/incident-kinds.ts';
import type { IncidentScopeState } from './core/incidents/incidents.ts';
import {
  type AckOutcome,
  acknowledgeHeld,
  type HeldIncident,
  unacknowledgeHeld,
} from './core/incidents/lifecycle.ts';
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
    .filter((item) => cellHold(item.loaded.state, id) !== undefined)
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
  decide: (state: RuleScopeState) => AckOutcome<RuleScopeState>,
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

/** An acknowledge's or unacknowledge's decision as {@link acknowledge} and {@link unacknowledge} answer it. */
function timersSettled<R, S>(
  decision: AckOutcome<S>,
  notOpen: { readonly resolvedAt?: string } = {},
): { readonly write: S; readonly alerts: AckAlerts; readonly result: R } | { readonly result: R } {
  if (decision.outcome === 'not-open') return { result: { outcome: 'not-open', ...notOpen } as R };
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
function resolvedOf(scope: IncidentScopeState, id: string): { readonly resolvedAt?: string } {
  const last = scope.last;
  return last?.id === id && last.resolvedAt !== undefined ? { resolvedAt: last.resolvedAt } : {};
}

/** The one decision of the lifecycle (acknowledge or withdraw), over an incident where its kind holds it. */
type Decide = <S extends { readonly nextSeq: number }>(
  state: S,
  held: HeldIncident<S> | undefined,
) => AckOutcome<S>;

/**
 * Settles `decide` over incident `id` where its id says it is held (the kinds' registry): the monitor state
 * item, a shard's health item, the rule item that holds its cell, the rule's incident item. Each is read,
 * decided and written alike.
 */
async function settleHeld<R>(scopes: IncidentScopes, id: string, decide: Decide): Promise<R> {
  const ref = parseIncidentId(id);
  if (ref === undefined) return { outcome: 'not-open' } as R;
  switch (ref.home) {
    case 'monitor':
      return settle(scopes.monitorState, id, (state) =>
        timersSettled<R, MonitorState>(decide(state, monitorHold(state, id))),
      );
    case 'health':
      return settle(scopes.healthScope(ref.shard), id, (state) =>
        timersSettled<R, HealthState>(decide(state, healthHold(state, id))),
      );
    case 'cell':
      return settleRuleCell<R>(scopes, id, (state) => decide(state, cellHold(state, id)));
    case 'incident':
      return settle(scopes.incidentScope(ref.rule), id, (scope) =>
        timersSettled<R, IncidentScopeState>(decide(scope, itemHold(scope, id)), resolvedOf(scope, id)),
      );
  }
}

/** Acknowledges incident `id` (open, not acknowledged yet), by `by`, at `at` (ISO-8601). */
export function acknowledge(
  scopes: IncidentScopes,
  id: string,
  ack: { readonly by: string; readonly at: string; readonly note?: string },
): Promise<AckResult> {
  return settleHeld<AckResult>(scopes, id, (state, held) => acknowledgeHeld(state, held, ack));
}

/** Withdraws the acknowledgement of incident `id`; nothing is published. */
export function unacknowledge(
  scopes: IncidentScopes,
  id: string,
  by: string,
  at: string,
): Promise<UnackResult> {
  return settleHeld<UnackResult>(scopes, id, (_state, held) => unacknowledgeHeld(held, by, at));
}

/** The open incident `id` as the pages show it, or undefined (resolved, replaced, unknown). A read only. */
export async function findOpenIncident(
  scopes: IncidentScopes,
  id: string,
): Promise<AckIncidentView | undefined> {
  const ref = parseIncidentId(id);
  if (ref === undefined) return undefined;
  const shown = <S>(held: HeldIncident<S> | undefined) => held?.view(held.timers);
  switch (ref.home) {
    case 'monitor':
      return shown(monitorHold((await load(scopes.monitorState, id)).state, id));
    case 'health':
      return shown(healthHold((await load(scopes.healthScope(ref.shard), id)).state, id));
    case 'cell': {
      const [item] = await ruleItemsOf(scopes, id);
      return item === undefined ? undefined : shown(cellHold(item.loaded.state, id));
    }
    case 'incident':
      return shown(itemHold((await load(scopes.incidentScope(ref.rule), id)).state, id));
  }
}

export { ackView } from './core/incidents/incident-ack.ts';
