/**
 * Acknowledging an incident (CONTRACT §14, docs/acknowledge.md): the decision over one incident scope as read,
 * for `shieldwatch ack`/`unack` and the acknowledge link alike. An acknowledgement sets `acknowledged` on the
 * open incident, bumps `ackRev`, adds a line to its timeline and queues `incident.acknowledged` (action
 * `acknowledge`) in the same write; acknowledging an incident already acknowledged changes nothing (so a second
 * click, or two at once, publishes once); an incident that is not open (resolved, or never was) is refused.
 * Pure: the scope, the time and who are parameters. A blind-spot incident (`network.unreachable/...`,
 * `network.rule_unreadable/...`) is acknowledged alike in its shard's health item ({@link acknowledgeHealthIncident}),
 * one of the monitor's own (`filter.status_changed/...`, `api.unreachable/...`) in the monitor state item
 * ({@link acknowledgeMonitorIncident}), and a rule's on one network (`<rule>/<network>/<triggeredAt>`,
 * `groupBy=none`) in the rule item that holds its cell ({@link acknowledgeRuleIncident}).
 */

import type { AckIncidentView } from '../ack/ack-page.ts';
import type { MonitorState } from '../detect/decide.ts';
import {
  type HealthIncidentState,
  type HealthState,
  healthIncidentAlert,
  type OpenHealthIncident,
} from '../detect/network-health.ts';
import { own } from '../own-record.ts';
import type { RuleCell, RuleState } from '../rules/rule-types.ts';
import type { AlertRecord, HealthMember } from '../types.ts';
import { FIRST_STAGE, type IncidentTimers } from './escalation.ts';
import { INCIDENT_OPENERS, parseIncidentId } from './incident-kinds.ts';
import { type Incident, type IncidentScopeState, incidentAlert, partTotals, sampleOf } from './incidents.ts';
import {
  type AckOutcome,
  type AckRequest,
  acknowledgeHeld,
  type HeldIncident,
  unacknowledgeHeld,
} from './lifecycle.ts';
import {
  type MonitorIncidentOpener,
  monitorIncidentAlert,
  monitorIncidentOpenerOf,
  monitorIncidentTime,
  type OpenMonitorIncident,
  ownTimers,
} from './monitor-incidents.ts';
import {
  cellAckBytes,
  cellTimers,
  keptCellAck,
  ruleIncidentAlert,
  ruleIncidentOf,
  ruleStateAckBytes,
  withTimers,
} from './rule-incidents.ts';

/** A rule item's state as the acknowledgement reads and writes it (`ports.ts` RuleScopeState, kept pure here). */
interface RuleScopeState {
  readonly rules: RuleState;
  readonly nextSeq: number;
}

export { ACK_BY_MAX_CHARS, ACK_NOTE_MAX_CHARS, cleanAckText } from './lifecycle.ts';

/** Who acknowledged through the link in an alert. */
export const ACK_BY_LINK = 'link';

/** What an acknowledgement decided. */
export type AckDecision =
  | {
      /** The incident was open and not acknowledged: write `state` and queue `alert`. */
      readonly outcome: 'acknowledged';
      readonly state: IncidentScopeState;
      readonly incident: Incident;
      readonly alert: AlertRecord;
    }
  | { readonly outcome: 'already'; readonly incident: Incident }
  /** No open incident of that id: resolved, replaced by a newer one, or never opened. */
  | { readonly outcome: 'not-open'; readonly resolved?: Incident };

/** What withdrawing an acknowledgement decided. */
export type UnackDecision =
  | { readonly outcome: 'unacknowledged'; readonly state: IncidentScopeState; readonly incident: Incident }
  | { readonly outcome: 'not-acknowledged'; readonly incident: Incident }
  | { readonly outcome: 'not-open'; readonly resolved?: Incident };

/** The rule of an incident id `<rule>@<openedAt>` (rule names hold no `@`), or undefined for another shape. */
export function incidentRuleOf(id: string): string | undefined {
  const ref = parseIncidentId(id);
  return ref?.home === 'incident' ? ref.rule : undefined;
}

/**
 * A rule's incident across networks where its incident item holds it (`incident#<rule>`), while open: its
 * timers are the incident's own fields, and an acknowledge or unacknowledge adds a line to its timeline.
 */
export function itemHold(
  scope: IncidentScopeState,
  id: string,
): HeldIncident<IncidentScopeState> | undefined {
  const open = scope.open;
  if (open === undefined || open.id !== id || open.state !== 'open') return undefined;
  const withTimers = (timers: IncidentTimers): Incident => {
    const { acknowledged: _old, ...rest } = open;
    return {
      ...rest,
      stage: timers.stage,
      ...(timers.acknowledged === undefined ? {} : { acknowledged: timers.acknowledged }),
      ...(timers.ackRev === undefined ? {} : { ackRev: timers.ackRev }),
    };
  };
  return {
    id,
    timers: {
      openedAt: open.openedAt,
      stage: open.stage,
      ...(open.lastRemindAt === undefined ? {} : { lastRemindAt: open.lastRemindAt }),
      ...(open.acknowledged === undefined ? {} : { acknowledged: open.acknowledged }),
      ...(open.ackRev === undefined ? {} : { ackRev: open.ackRev }),
    },
    alert(event, timers, at) {
      const incident = withTimers(timers);
      // The worst active members the incident item knows (its parts' samples), and how many are active.
      const active = sampleOf(incident, 'worst').filter((m) => m.leftAt === undefined);
      return incidentAlert(event, incident, active, at, partTotals(incident).active);
    },
    view: (timers) => ackView(withTimers(timers)),
    put(timers, change) {
      const incident = withTimers(timers);
      return {
        ...scope,
        open: {
          ...incident,
          timeline: [
            ...open.timeline,
            {
              at: change.at,
              what: change.what,
              count: 0,
              by: change.by,
              ...(change.note === undefined ? {} : { note: change.note }),
            },
          ],
          // The acknowledgement is one more incident alert.
          ...(change.what === 'acknowledged'
            ? { alerts: { ...open.alerts, sent: open.alerts.sent + 1 } }
            : {}),
        },
      };
    },
  };
}

/** What the acknowledge pages show of a rule's incident across networks: its networks active first, with peaks. */
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

/** The scope's last incident when it is `id` (resolved): what a refusal names. */
const lastOf = (scope: IncidentScopeState, id: string) =>
  scope.last?.id === id ? { resolved: scope.last } : {};

/**
 * Acknowledges incident `id` in `scope` (as read), by `by` at `at` (ISO-8601), with an optional note
 * ({@link acknowledgeHeld}). The alert takes the scope's next sequence number.
 */
export function acknowledgeIncident(scope: IncidentScopeState, id: string, ack: AckRequest): AckDecision {
  const held = itemHold(scope, id);
  const decided = acknowledgeHeld(scope, held, ack);
  if (decided.outcome === 'acknowledged') {
    const state = decided.state;
    return { outcome: 'acknowledged', state, incident: state.open!, alert: decided.alert! };
  }
  if (decided.outcome === 'already') return { outcome: 'already', incident: scope.open! };
  return { outcome: 'not-open', ...lastOf(scope, id) };
}

/**
 * Withdraws the acknowledgement of incident `id`: reminders and escalation apply again from the next cycle
 * (an escalation whose age passed meanwhile is due at once). Nothing is published; the timeline says who.
 */
export function unacknowledgeIncident(
  scope: IncidentScopeState,
  id: string,
  by: string,
  at: string,
): UnackDecision {
  const decided = unacknowledgeHeld(itemHold(scope, id), by, at);
  if (decided.outcome === 'unacknowledged') {
    return { outcome: 'unacknowledged', state: decided.state, incident: decided.state.open! };
  }
  if (decided.outcome === 'not-acknowledged') return { outcome: 'not-acknowledged', incident: scope.open! };
  return { outcome: 'not-open', ...lastOf(scope, id) };
}

/**
 * What acknowledging (or withdrawing) an incident whose timers live beside what opened it decided, in the state
 * `S` that holds them: a blind spot's health item, the monitor state item, a rule item.
 */
export type TimersAckDecision<S> = AckOutcome<S>;

/** What acknowledging (or withdrawing) a blind-spot incident decided. */
export type HealthAckDecision = TimersAckDecision<HealthState>;

/**
 * A blind-spot incident where its shard's health item holds it, while open: its networks still failing (or
 * unreadable), its timers by id.
 */
export function healthHold(state: HealthState, id: string): HeldIncident<HealthState> | undefined {
  const timers = own(state.incidents, id);
  if (timers === undefined) return undefined;
  let members: HealthMember[];
  let extra: OpenHealthIncident['extra'] = {};
  if (state.downIncident === id) {
    members = Object.entries(state.down)
      .filter(([, cell]) => cell.open === true)
      .map(([network, cell]) => ({
        network,
        since: cell.since,
        cycles: cell.n,
        ...(cell.kind === undefined ? {} : { errorKind: cell.kind }),
        ...(cell.http === undefined ? {} : { httpStatus: cell.http }),
      }));
  } else {
    const rule = Object.entries(state.blindIncidents).find(([, open]) => open === id)?.[0];
    if (rule === undefined) return undefined;
    members = Object.entries(state.blind[rule] ?? {})
      .filter(([, cell]) => cell.open === true)
      .map(([network, cell]) => ({ network, since: cell.since, cycles: cell.n }));
    extra = { rule };
  }
  const open: OpenHealthIncident = { id, members, extra };
  return {
    id,
    timers,
    alert: (event, next, at) => healthIncidentAlert(event, open, next, at),
    view: (next) => ({
      id,
      ...(extra.rule === undefined ? {} : { rule: extra.rule }),
      openedAt: next.openedAt,
      networks: members.map((m) => ({ network: m.network, active: true })),
      stage: next.stage,
      ...(next.acknowledged === undefined ? {} : { acknowledged: next.acknowledged }),
    }),
    put: (next) => ({ ...state, incidents: withOwn(state.incidents, id, next as HealthIncidentState) }),
  };
}

/** Acknowledges blind-spot incident `id` in its shard's health state (as read), in one write. */
export function acknowledgeHealthIncident(
  state: HealthState,
  id: string,
  ack: AckRequest,
): HealthAckDecision {
  return acknowledgeHeld(state, healthHold(state, id), ack);
}

/** Withdraws the acknowledgement of blind-spot incident `id`; nothing is published. */
export function unacknowledgeHealthIncident(state: HealthState, id: string): HealthAckDecision {
  return unacknowledgeHeld(healthHold(state, id), '', '');
}

/** A blind-spot incident as the acknowledge pages show it, when open; undefined otherwise. */
export function openHealthIncidentView(state: HealthState, id: string): AckIncidentView | undefined {
  const held = healthHold(state, id);
  return held?.view(held.timers);
}

/** What acknowledging (or withdrawing) one of the monitor's own incidents decided. */
export type MonitorAckDecision = TimersAckDecision<MonitorState>;

/** The API incidents of the monitor state by the event that opens them. */
const API_INCIDENT_OF: Readonly<
  Record<Exclude<MonitorIncidentOpener, 'filter.status_changed'>, keyof MonitorState['incidents']>
> = {
  'api.auth_failed': 'auth',
  'api.unreachable': 'unreachable',
  'filter.status_unreadable': 'unreadable',
};

/**
 * One of the monitor's own incidents where the monitor state item holds it, while open: what opened it, its
 * timers by id (an older item's: from its id).
 */
export function monitorHold(state: MonitorState, id: string): HeldIncident<MonitorState> | undefined {
  const opener = monitorIncidentOpenerOf(id);
  if (opener === undefined) return undefined;
  let fields: OpenMonitorIncident['fields'];
  if (opener === 'filter.status_changed') {
    if (state.awayIncident !== id || state.status === undefined) return undefined;
    fields = { to: state.status };
  } else {
    const incident = state.incidents[API_INCIDENT_OF[opener]];
    if (incident?.open !== true || `${opener}/${incident.since}` !== id) return undefined;
    fields = {};
  }
  const openedAt = monitorIncidentTime(id);
  const open: OpenMonitorIncident = { id, opener, openedAt, fields };
  const status =
    opener === 'filter.status_changed' && state.status !== undefined
      ? `: ${JSON.stringify(state.status)}`
      : '';
  return {
    id,
    timers: ownTimers(state.incidentTimers ?? {}, id) ?? { openedAt, stage: FIRST_STAGE },
    alert: (event, next, at) => monitorIncidentAlert(event, open, next, at),
    view: (next) => ({
      id,
      about: `${INCIDENT_OPENERS[opener].about}${status}`,
      openedAt: next.openedAt,
      networks: [],
      stage: next.stage,
      ...(next.acknowledged === undefined ? {} : { acknowledged: next.acknowledged }),
    }),
    put: (next) => ({ ...state, incidentTimers: withOwn(state.incidentTimers, id, next) }),
  };
}

/**
 * Acknowledges the monitor's incident `id` (the status away, an API incident) in the monitor state (as read),
 * in one write.
 */
export function acknowledgeMonitorIncident(
  state: MonitorState,
  id: string,
  ack: AckRequest,
): MonitorAckDecision {
  return acknowledgeHeld(state, monitorHold(state, id), ack);
}

/** Withdraws the acknowledgement of the monitor's incident `id`; nothing is published. */
export function unacknowledgeMonitorIncident(state: MonitorState, id: string): MonitorAckDecision {
  return unacknowledgeHeld(monitorHold(state, id), '', '');
}

/** One of the monitor's incidents as the acknowledge pages show it, when open; undefined otherwise. */
export function openMonitorIncidentView(state: MonitorState, id: string): AckIncidentView | undefined {
  const held = monitorHold(state, id);
  return held?.view(held.timers);
}

/** What acknowledging (or withdrawing) a rule's incident on one network (`groupBy=none`) decided. */
export type RuleCellAckDecision = TimersAckDecision<RuleScopeState>;

/** Where a rule item holds the open cell of incident `id`: its cells, or cells on their way to another item. */
interface OpenRuleCell {
  readonly rule: string;
  readonly network: string;
  readonly cell: RuleCell;
  readonly timers: IncidentTimers;
  readonly moved: boolean;
}

/** The open cell of per-network rule incident `id` in the rule item `scope`, with its timers; undefined otherwise. */
function openRuleCell(scope: RuleScopeState, id: string): OpenRuleCell | undefined {
  const parsed = ruleIncidentOf(id);
  if (parsed === undefined) return undefined;
  const { rule, network } = parsed;
  const found = (cell: RuleCell | undefined, moved: boolean): OpenRuleCell | undefined => {
    const timers = cell === undefined || cell.incident !== id ? undefined : cellTimers(cell);
    return timers === undefined || cell === undefined ? undefined : { rule, network, cell, timers, moved };
  };
  return (
    found(own(own(scope.rules.cells, rule), network), false) ??
    found(own(own(scope.rules.moved, network)?.cells, rule), true)
  );
}

/** The rule item with the cell of `open` changed to `cell`, where it was found. */
function withRuleCell(scope: RuleScopeState, open: OpenRuleCell, cell: RuleCell): RuleScopeState {
  const rules = scope.rules;
  if (!open.moved) {
    const row = withOwn(own(rules.cells, open.rule), open.network, cell);
    return { ...scope, rules: { ...rules, cells: withOwn(rules.cells, open.rule, row) } };
  }
  const record = own(rules.moved, open.network)!;
  const moved = withOwn(rules.moved, open.network, {
    ...record,
    cells: withOwn(record.cells, open.rule, cell),
  });
  return { ...scope, rules: { ...rules, moved } };
}

/**
 * A rule's incident on one network (`<rule>/<network>/<triggeredAt>`) where the rule item that holds its cell
 * keeps it, while open. The cell keeps the acknowledgement (who, when, the note, as every kind's hold does)
 * while its item's budget for them has room (`rule-incidents.ts` {@link keptCellAck}; past it, when only: the
 * alert and its event item carry who and the note); not `ackRev`.
 */
export function cellHold(scope: RuleScopeState, id: string): HeldIncident<RuleScopeState> | undefined {
  const open = openRuleCell(scope, id);
  if (open === undefined) return undefined;
  return {
    id,
    timers: open.timers,
    alert: (event, next, at) =>
      ruleIncidentAlert(event, { name: open.rule }, open.network, open.cell, next, at),
    view: (next) => ({
      id,
      rule: open.rule,
      openedAt: open.cell.triggeredAt ?? next.openedAt,
      networks: [{ network: open.network, active: true }],
      stage: next.stage,
      ...(next.acknowledged === undefined ? {} : { acknowledged: next.acknowledged }),
    }),
    put(next) {
      const { ackRev: _notKept, acknowledged, ...rest } = next;
      const others = ruleStateAckBytes(scope.rules) - cellAckBytes(open.cell.timers?.acknowledged);
      const kept: IncidentTimers =
        acknowledged === undefined ? rest : { ...rest, acknowledged: keptCellAck(acknowledged, others) };
      return withRuleCell(scope, open, withTimers(open.cell, kept));
    },
  };
}

/** Acknowledges per-network rule incident `id` in the rule item that holds its cell (as read), in one write. */
export function acknowledgeRuleIncident(
  scope: RuleScopeState,
  id: string,
  ack: AckRequest,
): RuleCellAckDecision {
  return acknowledgeHeld(scope, cellHold(scope, id), ack);
}

/** Withdraws the acknowledgement of per-network rule incident `id`; nothing is published. */
export function unacknowledgeRuleIncident(scope: RuleScopeState, id: string): RuleCellAckDecision {
  return unacknowledgeHeld(cellHold(scope, id), '', '');
}

/** A per-network rule incident as the acknowledge pages show it, when its cell in `scope` is open. */
export function openRuleIncidentView(scope: RuleScopeState, id: string): AckIncidentView | undefined {
  const held = cellHold(scope, id);
  return held?.view(held.timers);
}

/** `record` with `key` set to `value` as an own property (a network id may be `__proto__`). */
function withOwn<T>(
  record: Readonly<Record<string, T>> | undefined,
  key: string,
  value: T,
): Record<string, T> {
  const next: Record<string, T> = { ...record };
  Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
  return next;
}
