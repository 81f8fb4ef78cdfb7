/**
 * The open incidents of `shieldwatch status`, each shape from the item that holds it: the API's and the status
 * away's from the monitor state item, a rule's across networks from the incident items, the blind spots from
 * every shard's health item, a rule's on one network from the rule items' cells. Pure: the time comes in as
 * `nowMs`.
 */
import type { IncidentKind, MonitorState } from '../../lambda/core/detect/decide.ts';
import type { HealthState } from '../../lambda/core/detect/network-health.ts';
import { isIncidentTransition } from '../../lambda/core/incidents/incident-membership.ts';
import type { Acknowledgement, IncidentScopeState } from '../../lambda/core/incidents/incidents.ts';
import { parseRules, readRules } from '../../lambda/core/rules/rules.ts';
import type { FailureKind, Snapshot } from '../../lambda/core/types.ts';
import type { VersionedState } from '../../lambda/ports.ts';
import { toHistoryEntry } from '../entries.ts';
import type { RuleItemView, StatusReport } from './report-types.ts';

/** Every incident item (`state` / `incident#<rule>`): its rule, state and outbox. */
export type IncidentScopeView = {
  readonly rule: string;
  readonly loaded: VersionedState<IncidentScopeState>;
};

/** A shard's health item (`health#<shard>`): its state and outbox. */
export type HealthItemView = {
  readonly shard: number;
  readonly loaded: VersionedState<HealthState>;
};

/** How long since `since`, never negative; null without a time. */
export const forMsOf = (since: string | undefined, nowMs: number): number | null =>
  since === undefined ? null : Math.max(0, nowMs - Date.parse(since));

/** The event that opens each API incident of the monitor state: the first segment of its id. */
const API_OPENERS: Readonly<Record<IncidentKind, string>> = {
  auth: 'api.auth_failed',
  unreachable: 'api.unreachable',
  unreadable: 'filter.status_unreadable',
};

/** The timers of the monitor's own incidents (docs/acknowledge.md): stage and acknowledgement, by id. */
export function monitorTimersOf(state: MonitorState, id: string | null) {
  return id !== null && state.incidentTimers !== undefined && Object.hasOwn(state.incidentTimers, id)
    ? state.incidentTimers[id]
    : undefined;
}

/** The API's incidents: open ones, and those counting towards an alert. */
export function apiIncidents(state: MonitorState, nowMs: number): StatusReport['incidents'] {
  return (Object.entries(state.incidents) as Array<[IncidentKind, MonitorState['incidents']['auth']]>)
    .filter(([, incident]) => incident.open || incident.count > 0)
    .map(([kind, incident]) => {
      const id =
        incident.open && incident.since !== undefined ? `${API_OPENERS[kind]}/${incident.since}` : null;
      const timers = monitorTimersOf(state, id);
      return {
        kind,
        open: incident.open,
        since: incident.since ?? null,
        forMs: forMsOf(incident.since, nowMs),
        cycles: incident.count,
        lastError: incident.lastError ?? null,
        id,
        stage: timers?.stage ?? 1,
        acknowledged: timers?.acknowledged ?? null,
      };
    });
}

/** The open incidents across networks, one per incident item (sorted by rule), active members first. */
export function groupedIncidents(
  incidentScopes: readonly IncidentScopeView[],
  nowMs: number,
): StatusReport['groupedIncidents'] {
  return incidentScopes.flatMap(({ loaded }) => {
    const open = loaded.state.open;
    if (open === undefined || open.state !== 'open') return [];
    // Active members first, each group in joining order.
    const members = [
      ...open.members.filter((m) => m.leftAt === undefined),
      ...open.members.filter((m) => m.leftAt !== undefined),
    ];
    return [
      {
        id: open.id,
        rule: open.rule,
        state: open.acknowledged === undefined ? ('open' as const) : ('acknowledged' as const),
        since: open.openedAt,
        forMs: forMsOf(open.openedAt, nowMs) ?? 0,
        stage: open.stage,
        networks: members.map((m) => ({
          network: m.network,
          active: m.leftAt === undefined,
          peak: m.peak ?? null,
          peakAt: m.peakAt ?? null,
        })),
        acknowledged: open.acknowledged ?? null,
      },
    ];
  });
}

/** The open blind spots of every shard's health item (sorted by shard): a network unreachable, a rule unread. */
export function networkIncidents(
  healthItems: readonly HealthItemView[],
  ruleTextOf: (name: string) => string | undefined,
  nowMs: number,
): StatusReport['networkIncidents'] {
  return healthItems.flatMap(({ shard, loaded: { state: health } }) => {
    const timersOf = (id: string) =>
      Object.hasOwn(health.incidents ?? {}, id) ? health.incidents?.[id] : undefined;
    const incidentOf = (
      id: string,
      kind: 'unreachable' | 'rule_unreadable',
      rule: string | null,
      cells: ReadonlyArray<[string, { since: string; n: number; kind?: FailureKind; http?: number }]>,
    ) => {
      const timers = timersOf(id);
      // Opened by the cycle of its first alert; an older item without timers: its oldest network's run.
      const since = timers?.openedAt ?? cells.map(([, c]) => c.since).sort()[0] ?? null;
      return {
        id,
        kind,
        shard,
        rule,
        path: rule === null ? null : (parseRules(ruleTextOf(rule) ?? '').rules[0]?.path ?? null),
        since,
        forMs: forMsOf(since ?? undefined, nowMs),
        stage: timers?.stage ?? 1,
        networks: cells.map(([network, cell]) => ({
          network,
          since: cell.since,
          cycles: cell.n,
          failure: cell.kind ?? null,
          httpStatus: cell.http ?? null,
        })),
        acknowledged: timers?.acknowledged ?? null,
      };
    };
    return [
      ...(health.downIncident === undefined
        ? []
        : [
            incidentOf(
              health.downIncident,
              'unreachable',
              null,
              Object.entries(health.down).filter(([, cell]) => cell.open === true),
            ),
          ]),
      ...Object.entries(health.blindIncidents)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([rule, id]) =>
          incidentOf(
            id,
            'rule_unreadable',
            rule,
            Object.entries(Object.hasOwn(health.blind, rule) ? (health.blind[rule] ?? {}) : {}).filter(
              ([, cell]) => cell.open === true,
            ),
          ),
        ),
    ];
  });
}

/** One open rule cell, as `status` shows it. */
interface OpenCell {
  readonly rule: string;
  readonly network: string;
  readonly since?: string;
  readonly incident?: string;
  readonly acknowledged?: Acknowledgement;
  readonly held: boolean;
  readonly item: string;
}

/**
 * The open rule cells of every item. An edit may leave a copy of a cell in two items for a while: the copy
 * judged last (the item's newest cycle) stands, as in the cycle itself.
 */
function openRuleCells(items: readonly RuleItemView[]): OpenCell[] {
  const newest = new Map<string, { readonly asOf: string; readonly cell: OpenCell | undefined }>();
  for (const { key, loaded } of items) {
    const asOf = loaded.state.rules.lastAt ?? '';
    for (const [rule, cells] of Object.entries(loaded.state.rules.cells)) {
      for (const [network, cell] of Object.entries(cells)) {
        const id = JSON.stringify([rule, network]);
        const before = newest.get(id);
        if (before !== undefined && before.asOf >= asOf) continue;
        newest.set(id, {
          asOf,
          cell: cell.open
            ? {
                rule,
                network,
                ...(cell.triggeredAt === undefined ? {} : { since: cell.triggeredAt }),
                ...(cell.incident === undefined ? {} : { incident: cell.incident }),
                // An open cell with a held trigger: triggered, its alert waiting behind the per-item cap.
                held: cell.held?.event === 'network.rule_triggered',
                item: key,
                ...(cell.timers?.acknowledged === undefined
                  ? {}
                  : { acknowledged: cell.timers.acknowledged }),
              }
            : undefined,
        });
      }
    }
  }
  return [...newest.values()].flatMap(({ cell }) => (cell === undefined ? [] : [cell]));
}

/** The value `rule` reads in a network's snapshot, or null. */
function ruleValue(
  ruleText: string | undefined,
  snapshot: Snapshot | undefined,
): { value: number | boolean; at: string } | null {
  if (ruleText === undefined || snapshot === undefined || !snapshot.ok) return null;
  const data = toHistoryEntry(snapshot).data;
  const [rule] = parseRules(ruleText).rules;
  if (data === undefined || rule === undefined) return null;
  const reading = readRules([rule], data)[rule.name];
  return reading?.kind === 'value' ? { value: reading.value, at: snapshot.at } : null;
}

/** Every open rule cell of every rule item (sorted by key), with the value its rule reads in the newest snapshot. */
export function ruleIncidents(input: {
  readonly ruleItems: readonly RuleItemView[];
  readonly incidentScopes: readonly IncidentScopeView[];
  readonly ruleTextOf: (name: string) => string | undefined;
  readonly lastOf: ((network: string) => Snapshot | undefined) | undefined;
  readonly nowMs: number;
}): StatusReport['ruleIncidents'] {
  const { incidentScopes, ruleTextOf, nowMs } = input;
  return openRuleCells(input.ruleItems).map((cell) => {
    const read = ruleValue(ruleTextOf(cell.rule), input.lastOf?.(cell.network));
    // A cell whose network is a member of its rule's incident across networks is that incident's (the id
    // its alerts carry), not one of its own (CONTRACT §15, One view).
    const scope = incidentScopes.find((s) => s.rule === cell.rule)?.loaded.state;
    const grouped =
      cell.incident !== undefined &&
      scope?.open !== undefined &&
      isIncidentTransition(scope, { network: cell.network, incident: cell.incident });
    return {
      rule: cell.rule,
      network: cell.network,
      since: cell.since ?? null,
      forMs: forMsOf(cell.since, nowMs),
      incident: grouped ? scope.open!.id : (cell.incident ?? null),
      value: read?.value ?? null,
      valueAt: read?.at ?? null,
      held: cell.held,
      item: cell.item,
      state: cell.acknowledged === undefined ? ('open' as const) : ('acknowledged' as const),
      acknowledgedAt: cell.acknowledged?.at ?? null,
      // Who and the note as the cell keeps them; one that keeps when only (written before who was kept, or
      // past its item's budget: rule-incidents.ts keptCellAck) names nobody: `incidents` reads its event.
      acknowledged:
        cell.acknowledged === undefined
          ? null
          : {
              by: cell.acknowledged.by === '' ? 'unknown' : cell.acknowledged.by,
              at: cell.acknowledged.at,
              ...(cell.acknowledged.note === undefined ? {} : { note: cell.acknowledged.note }),
            },
    };
  });
}
