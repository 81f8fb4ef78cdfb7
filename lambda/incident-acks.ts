/**
 * Acknowledge and unacknowledge an incident in the store (docs/acknowledge.md; docs/design/incidents.md, For
 * acknowledgement and escalation): read the incident's scope item, decide (`core/incident-ack.ts`), and write
 * the decision with the `incident.acknowledged` alert in one write conditioned on the item's version. When a
 * cycle (or another click) wrote first, read again and decide again: two acknowledgements at once publish
 * once, and a cycle never loses one. The alert is left unclaimed in the item's outbox, so the next poll cycle
 * records and publishes it through the outbox like every other alert (claim, record, publish, remove).
 * Shared by `shieldwatch ack`/`unack` and the acknowledge function.
 */
import { COMMIT_ATTEMPTS } from './commit.ts';
import type { AckIncidentView } from './core/ack-page.ts';
import {
  type AckDecision,
  acknowledgeIncident,
  incidentRuleOf,
  type UnackDecision,
  unacknowledgeIncident,
} from './core/incident-ack.ts';
import type { Incident, IncidentScopeState } from './core/incidents.ts';
import { describeError, StoreError } from './errors.ts';
import type { StateStore, VersionedState } from './ports.ts';

/** The incident scopes, as the incident store gives them (docs/design/incidents.md, Ports and files). */
export interface IncidentScopes {
  incidentScope(rule: string): StateStore<IncidentScopeState>;
}

/** What {@link acknowledge} did. */
export type AckResult =
  | { readonly outcome: 'acknowledged' | 'already'; readonly incident: Incident }
  | { readonly outcome: 'not-open'; readonly resolved?: Incident };

/** What {@link unacknowledge} did. */
export type UnackResult =
  | { readonly outcome: 'unacknowledged' | 'not-acknowledged'; readonly incident: Incident }
  | { readonly outcome: 'not-open'; readonly resolved?: Incident };

async function load(
  store: StateStore<IncidentScopeState>,
  id: string,
): Promise<VersionedState<IncidentScopeState>> {
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
async function settle<R>(
  scopes: IncidentScopes,
  id: string,
  decide: (
    scope: IncidentScopeState,
  ) =>
    | { readonly write: IncidentScopeState; readonly alerts: AckAlerts; readonly result: R }
    | { readonly result: R },
): Promise<R | { readonly outcome: 'not-open' }> {
  const rule = incidentRuleOf(id);
  if (rule === undefined) return { outcome: 'not-open' };
  const store = scopes.incidentScope(rule);
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

/** Acknowledges incident `id` (open, not acknowledged yet), by `by`, at `at` (ISO-8601). */
export async function acknowledge(
  scopes: IncidentScopes,
  id: string,
  ack: { readonly by: string; readonly at: string; readonly note?: string },
): Promise<AckResult> {
  return settle<AckResult>(scopes, id, (scope) => {
    const decision: AckDecision = acknowledgeIncident(scope, id, ack);
    if (decision.outcome === 'acknowledged') {
      return {
        write: decision.state,
        alerts: [decision.alert],
        result: { outcome: 'acknowledged', incident: decision.incident },
      };
    }
    return { result: decision };
  });
}

/** Withdraws the acknowledgement of incident `id`; nothing is published. */
export async function unacknowledge(
  scopes: IncidentScopes,
  id: string,
  by: string,
  at: string,
): Promise<UnackResult> {
  return settle<UnackResult>(scopes, id, (scope) => {
    const decision: UnackDecision = unacknowledgeIncident(scope, id, by, at);
    if (decision.outcome === 'unacknowledged') {
      return {
        write: decision.state,
        alerts: [],
        result: { outcome: 'unacknowledged', incident: decision.incident },
      };
    }
    return { result: decision };
  });
}

/** The open incident `id`, or undefined (resolved, replaced, unknown). A read only. */
export async function findOpenIncident(scopes: IncidentScopes, id: string): Promise<Incident | undefined> {
  const rule = incidentRuleOf(id);
  if (rule === undefined) return undefined;
  const { state } = await load(scopes.incidentScope(rule), id);
  return state.open !== undefined && state.open.id === id && state.open.state === 'open'
    ? state.open
    : undefined;
}

/** What the acknowledge pages show of an incident: its networks active first, each with its peak. */
export function ackView(incident: Incident): AckIncidentView {
  const networks = incident.members.map((m) => ({
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
