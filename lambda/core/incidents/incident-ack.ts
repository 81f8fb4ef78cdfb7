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
import { parseIncidentId } from './incident-kinds.ts';
import {
  type Acknowledgement,
  type Incident,
  type IncidentScopeState,
  incidentAlert,
  partTotals,
  sampleOf,
} from './incidents.ts';
import {
  type MonitorIncidentOpener,
  type MonitorIncidentTimers,
  monitorIncidentAlert,
  monitorIncidentOpenerOf,
  monitorIncidentTime,
  type OpenMonitorIncident,
  ownTimers,
} from './monitor-incidents.ts';
import { cellTimers, ruleIncidentAlert, ruleIncidentOf, withTimers } from './rule-incidents.ts';

/** A rule item's state as the acknowledgement reads and writes it (`ports.ts` RuleScopeState, kept pure here). */
interface RuleScopeState {
  readonly rules: RuleState;
  readonly nextSeq: number;
}

/** Longest note kept with an acknowledgement, in characters. */
export const ACK_NOTE_MAX_CHARS = 500;
/** Longest `by` kept, in characters (an IAM ARN of a long session name fits). */
export const ACK_BY_MAX_CHARS = 300;
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

/** A note or a name as kept: control characters folded to spaces, cut to `max`. */
export function cleanAckText(text: string, max: number): string {
  const folded = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return [...folded].slice(0, max).join('');
}

/**
 * Acknowledges incident `id` in `scope` (as read), by `by` at `at` (ISO-8601), with an optional note. The
 * alert takes the scope's next sequence number.
 */
export function acknowledgeIncident(
  scope: IncidentScopeState,
  id: string,
  ack: { readonly by: string; readonly at: string; readonly note?: string },
): AckDecision {
  const open = scope.open;
  if (open === undefined || open.id !== id || open.state !== 'open') {
    return scope.last?.id === id ? { outcome: 'not-open', resolved: scope.last } : { outcome: 'not-open' };
  }
  if (open.acknowledged !== undefined) return { outcome: 'already', incident: open };
  const note = ack.note === undefined ? '' : cleanAckText(ack.note, ACK_NOTE_MAX_CHARS);
  const acknowledged: Acknowledgement = {
    by: cleanAckText(ack.by, ACK_BY_MAX_CHARS) || 'unknown',
    at: ack.at,
    ...(note === '' ? {} : { note }),
  };
  const incident: Incident = {
    ...open,
    acknowledged,
    ackRev: (open.ackRev ?? 0) + 1,
    timeline: [
      ...open.timeline,
      { at: ack.at, what: 'acknowledged', count: 0, by: acknowledged.by, ...(note === '' ? {} : { note }) },
    ],
    alerts: { ...open.alerts, sent: open.alerts.sent + 1 },
  };
  // The worst active members the incident item knows (its parts' samples), and how many are active.
  const active = sampleOf(incident, 'worst').filter((m) => m.leftAt === undefined);
  const alert: AlertRecord = {
    ...incidentAlert('incident.acknowledged', incident, active, ack.at, partTotals(incident).active),
    seq: scope.nextSeq,
    acknowledgedBy: acknowledged.by,
    ...(note === '' ? {} : { detail: note }),
  };
  return {
    outcome: 'acknowledged',
    state: { ...scope, nextSeq: scope.nextSeq + 1, open: incident },
    incident,
    alert,
  };
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
  const open = scope.open;
  if (open === undefined || open.id !== id || open.state !== 'open') {
    return scope.last?.id === id ? { outcome: 'not-open', resolved: scope.last } : { outcome: 'not-open' };
  }
  if (open.acknowledged === undefined) return { outcome: 'not-acknowledged', incident: open };
  const { acknowledged: _withdrawn, ...rest } = open;
  const incident: Incident = {
    ...rest,
    ackRev: (open.ackRev ?? 0) + 1,
    timeline: [
      ...open.timeline,
      { at, what: 'unacknowledged', count: 0, by: cleanAckText(by, ACK_BY_MAX_CHARS) },
    ],
  };
  return { outcome: 'unacknowledged', state: { ...scope, open: incident }, incident };
}

/**
 * What acknowledging (or withdrawing) an incident whose timers live beside what opened it decided, in the state
 * `S` that holds them: a blind spot's health item, the monitor state item.
 */
export type TimersAckDecision<S> =
  | {
      readonly outcome: 'acknowledged' | 'unacknowledged';
      readonly state: S;
      readonly view: AckIncidentView;
      /** `incident.acknowledged`, for an acknowledgement. */
      readonly alert?: AlertRecord;
    }
  | { readonly outcome: 'already' | 'not-acknowledged'; readonly view: AckIncidentView }
  | { readonly outcome: 'not-open' };

/** What acknowledging (or withdrawing) a blind-spot incident decided. */
export type HealthAckDecision = TimersAckDecision<HealthState>;

/** Incident `id` as its shard's health item holds it while open: its networks still failing, its timers. */
function openHealthIncident(
  state: HealthState,
  id: string,
): { open: OpenHealthIncident; timers: HealthIncidentState } | undefined {
  const timers = state.incidents?.[id];
  if (timers === undefined || !Object.hasOwn(state.incidents ?? {}, id)) return undefined;
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
  return { open: { id, members, extra }, timers };
}

function healthView(open: OpenHealthIncident, timers: HealthIncidentState): AckIncidentView {
  return {
    id: open.id,
    ...(open.extra.rule === undefined ? {} : { rule: open.extra.rule }),
    openedAt: timers.openedAt,
    networks: open.members.map((m) => ({ network: m.network, active: true })),
    stage: timers.stage,
    ...(timers.acknowledged === undefined ? {} : { acknowledged: timers.acknowledged }),
  };
}

/**
 * Acknowledges blind-spot incident `id` in its shard's health state (as read): `acknowledged` and `ackRev` on
 * the incident's timers, `incident.acknowledged` with the item's next sequence number, in one write.
 */
export function acknowledgeHealthIncident(
  state: HealthState,
  id: string,
  ack: { readonly by: string; readonly at: string; readonly note?: string },
): HealthAckDecision {
  const found = openHealthIncident(state, id);
  if (found === undefined) return { outcome: 'not-open' };
  const { open, timers } = found;
  if (timers.acknowledged !== undefined) return { outcome: 'already', view: healthView(open, timers) };
  const note = ack.note === undefined ? '' : cleanAckText(ack.note, ACK_NOTE_MAX_CHARS);
  const acknowledged: Acknowledgement = {
    by: cleanAckText(ack.by, ACK_BY_MAX_CHARS) || 'unknown',
    at: ack.at,
    ...(note === '' ? {} : { note }),
  };
  const next: HealthIncidentState = { ...timers, acknowledged, ackRev: (timers.ackRev ?? 0) + 1 };
  const alert: AlertRecord = {
    ...healthIncidentAlert('incident.acknowledged', open, next, ack.at),
    seq: state.nextSeq,
    acknowledgedBy: acknowledged.by,
    ...(note === '' ? {} : { detail: note }),
  };
  return {
    outcome: 'acknowledged',
    state: { ...state, nextSeq: state.nextSeq + 1, incidents: { ...state.incidents, [id]: next } },
    view: healthView(open, next),
    alert,
  };
}

/** Withdraws the acknowledgement of blind-spot incident `id`; nothing is published. */
export function unacknowledgeHealthIncident(state: HealthState, id: string): HealthAckDecision {
  const found = openHealthIncident(state, id);
  if (found === undefined) return { outcome: 'not-open' };
  const { open, timers } = found;
  if (timers.acknowledged === undefined)
    return { outcome: 'not-acknowledged', view: healthView(open, timers) };
  const { acknowledged: _withdrawn, ...rest } = timers;
  const next: HealthIncidentState = { ...rest, ackRev: (timers.ackRev ?? 0) + 1 };
  return {
    outcome: 'unacknowledged',
    state: { ...state, incidents: { ...state.incidents, [id]: next } },
    view: healthView(open, next),
  };
}

/** A blind-spot incident as the acknowledge pages show it, when open; undefined otherwise. */
export function openHealthIncidentView(state: HealthState, id: string): AckIncidentView | undefined {
  const found = openHealthIncident(state, id);
  return found === undefined ? undefined : healthView(found.open, found.timers);
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

/** What the pages and the acknowledgement say an incident of the monitor is. */
const ABOUT: Readonly<Record<MonitorIncidentOpener, string>> = {
  'filter.status_changed': 'the filter status is away from the expected one',
  'api.auth_failed': 'the API key is rejected',
  'api.unreachable': 'the API is unreachable',
  'filter.status_unreadable': 'the filter status cannot be read',
};

/** Incident `id` as the monitor state holds it while open, with its timers (an older item's: from its id). */
function openMonitorIncident(
  state: MonitorState,
  id: string,
): { open: OpenMonitorIncident; timers: MonitorIncidentTimers } | undefined {
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
  const timers = ownTimers(state.incidentTimers ?? {}, id) ?? { openedAt, stage: FIRST_STAGE };
  return { open: { id, opener, openedAt, fields }, timers };
}

function monitorView(
  state: MonitorState,
  open: OpenMonitorIncident,
  timers: MonitorIncidentTimers,
): AckIncidentView {
  const status =
    open.opener === 'filter.status_changed' && state.status !== undefined
      ? `: ${JSON.stringify(state.status)}`
      : '';
  return {
    id: open.id,
    about: `${ABOUT[open.opener]}${status}`,
    openedAt: timers.openedAt,
    networks: [],
    stage: timers.stage,
    ...(timers.acknowledged === undefined ? {} : { acknowledged: timers.acknowledged }),
  };
}

/**
 * Acknowledges the monitor's incident `id` (the status away, an API incident) in the monitor state (as read):
 * `acknowledged` and `ackRev` on its timers, `incident.acknowledged` with the item's next sequence number, in
 * one write.
 */
export function acknowledgeMonitorIncident(
  state: MonitorState,
  id: string,
  ack: { readonly by: string; readonly at: string; readonly note?: string },
): MonitorAckDecision {
  const found = openMonitorIncident(state, id);
  if (found === undefined) return { outcome: 'not-open' };
  const { open, timers } = found;
  if (timers.acknowledged !== undefined)
    return { outcome: 'already', view: monitorView(state, open, timers) };
  const note = ack.note === undefined ? '' : cleanAckText(ack.note, ACK_NOTE_MAX_CHARS);
  const acknowledged: Acknowledgement = {
    by: cleanAckText(ack.by, ACK_BY_MAX_CHARS) || 'unknown',
    at: ack.at,
    ...(note === '' ? {} : { note }),
  };
  const next: MonitorIncidentTimers = { ...timers, acknowledged, ackRev: (timers.ackRev ?? 0) + 1 };
  const alert = {
    ...monitorIncidentAlert('incident.acknowledged', open, next, ack.at),
    seq: state.nextSeq,
    acknowledgedBy: acknowledged.by,
    ...(note === '' ? {} : { detail: note }),
  } as AlertRecord;
  return {
    outcome: 'acknowledged',
    state: {
      ...state,
      nextSeq: state.nextSeq + 1,
      incidentTimers: { ...state.incidentTimers, [id]: next },
    },
    view: monitorView(state, open, next),
    alert,
  };
}

/** Withdraws the acknowledgement of the monitor's incident `id`; nothing is published. */
export function unacknowledgeMonitorIncident(state: MonitorState, id: string): MonitorAckDecision {
  const found = openMonitorIncident(state, id);
  if (found === undefined) return { outcome: 'not-open' };
  const { open, timers } = found;
  if (timers.acknowledged === undefined)
    return { outcome: 'not-acknowledged', view: monitorView(state, open, timers) };
  const { acknowledged: _withdrawn, ...rest } = timers;
  const next: MonitorIncidentTimers = { ...rest, ackRev: (timers.ackRev ?? 0) + 1 };
  return {
    outcome: 'unacknowledged',
    state: { ...state, incidentTimers: { ...state.incidentTimers, [id]: next } },
    view: monitorView(state, open, next),
  };
}

/** One of the monitor's incidents as the acknowledge pages show it, when open; undefined otherwise. */
export function openMonitorIncidentView(state: MonitorState, id: string): AckIncidentView | undefined {
  const found = openMonitorIncident(state, id);
  return found === undefined ? undefined : monitorView(state, found.open, found.timers);
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
  const set = <T>(record: Readonly<Record<string, T>> | undefined, key: string, value: T) => {
    const next: Record<string, T> = { ...record };
    // A network id may be `__proto__`: an own property all the same.
    Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
    return next;
  };
  const rules = scope.rules;
  if (!open.moved) {
    const row = set(own(rules.cells, open.rule), open.network, cell);
    return { ...scope, rules: { ...rules, cells: set(rules.cells, open.rule, row) } };
  }
  const record = own(rules.moved, open.network)!;
  const moved = set(rules.moved, open.network, { ...record, cells: set(record.cells, open.rule, cell) });
  return { ...scope, rules: { ...rules, moved } };
}

function ruleCellView(id: string, open: OpenRuleCell, timers: IncidentTimers): AckIncidentView {
  return {
    id,
    rule: open.rule,
    openedAt: open.cell.triggeredAt ?? timers.openedAt,
    networks: [{ network: open.network, active: true }],
    stage: timers.stage,
    ...(timers.acknowledged === undefined ? {} : { acknowledged: timers.acknowledged }),
  };
}

/**
 * Acknowledges per-network rule incident `id` (`<rule>/<network>/<triggeredAt>`) in the rule item that holds its
 * cell (as read): `acknowledged` on the cell's timers, `incident.acknowledged` with the item's next sequence
 * number, in one write. The item keeps when it was acknowledged, not who or the note (`rule-items.ts`): the
 * alert, and its event item, carry those.
 */
export function acknowledgeRuleIncident(
  scope: RuleScopeState,
  id: string,
  ack: { readonly by: string; readonly at: string; readonly note?: string },
): RuleCellAckDecision {
  const open = openRuleCell(scope, id);
  if (open === undefined) return { outcome: 'not-open' };
  if (open.timers.acknowledged !== undefined)
    return { outcome: 'already', view: ruleCellView(id, open, open.timers) };
  const note = ack.note === undefined ? '' : cleanAckText(ack.note, ACK_NOTE_MAX_CHARS);
  const acknowledged: Acknowledgement = {
    by: cleanAckText(ack.by, ACK_BY_MAX_CHARS) || 'unknown',
    at: ack.at,
    ...(note === '' ? {} : { note }),
  };
  const next: IncidentTimers = { ...open.timers, acknowledged };
  const alert = {
    ...ruleIncidentAlert('incident.acknowledged', { name: open.rule }, open.network, open.cell, next, ack.at),
    seq: scope.nextSeq,
    acknowledgedBy: acknowledged.by,
    ...(note === '' ? {} : { detail: note }),
  } as AlertRecord;
  return {
    outcome: 'acknowledged',
    state: { ...withRuleCell(scope, open, withTimers(open.cell, next)), nextSeq: scope.nextSeq + 1 },
    view: ruleCellView(id, open, next),
    alert,
  };
}

/** Withdraws the acknowledgement of per-network rule incident `id`; nothing is published. */
export function unacknowledgeRuleIncident(scope: RuleScopeState, id: string): RuleCellAckDecision {
  const open = openRuleCell(scope, id);
  if (open === undefined) return { outcome: 'not-open' };
  if (open.timers.acknowledged === undefined)
    return { outcome: 'not-acknowledged', view: ruleCellView(id, open, open.timers) };
  const { acknowledged: _withdrawn, ...next } = open.timers;
  return {
    outcome: 'unacknowledged',
    state: withRuleCell(scope, open, withTimers(open.cell, next)),
    view: ruleCellView(id, open, next),
  };
}

/** A per-network rule incident as the acknowledge pages show it, when its cell in `scope` is open. */
export function openRuleIncidentView(scope: RuleScopeState, id: string): AckIncidentView | undefined {
  const open = openRuleCell(scope, id);
  return open === undefined ? undefined : ruleCellView(id, open, open.timers);
}
