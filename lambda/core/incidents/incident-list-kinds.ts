/**
 * The incidents of every kind but a rule's (CONTRACT §13), as `shieldwatch incidents` lists them: a status away
 * from the expected one (`status`), the monitor's own incidents with the API (`api`: the API unreachable, the key
 * rejected, the status unreadable) and the blind spots (`network`: networks unreachable; `rule_unreadable`: a
 * rule that reads nothing). The open ones come from the state that holds them (the monitor state item, each
 * shard's health item); the others from their stored events, each paired with its opener by the `incident` id
 * they share, whose first segment names the event that opened it (docs/channels.md: `EVENT/FIRST-FAILING-CYCLE`,
 * `filter.status_changed/WHEN-IT-WENT-AWAY`; docs/alerts.md, Blind spots: `network.unreachable/<shard>/...`).
 * Pure: built from what the store returned.
 */

import type { MonitorState } from '../detect/decide.ts';
import type { HealthState } from '../detect/network-health.ts';
import {
  INCIDENT_OPENERS,
  type IncidentOpener,
  type IncidentOpenerSpec,
  kindOfIncident,
} from './incident-kinds.ts';
import {
  alertsOf,
  type IncidentEventRecord,
  type IncidentTimelineEntry,
  type IncidentView,
} from './incident-list-view.ts';
import type { Acknowledgement, IncidentKind, StoryMember, TimelineWhat } from './incidents.ts';

/** How each kind of incident but a rule's reads, by the event that opens it: the kinds' registry. */
const OPENERS = INCIDENT_OPENERS;

type Opener = IncidentOpener;

/** The event that opens each of the monitor state's API incidents. */
const API_OPENERS = {
  auth: 'api.auth_failed',
  unreachable: 'api.unreachable',
  unreadable: 'filter.status_unreadable',
} as const satisfies Readonly<Record<keyof MonitorState['incidents'], Opener>>;

/** How many networks a timeline line names. */
const TIMELINE_NETWORKS = 10;

/** The event that opened incident `id`, when it is one of the kinds here (a rule's id is `<rule>@<when>`). */
function openerOf(id: string): Opener | undefined {
  const head = id.slice(0, Math.max(0, id.indexOf('/')));
  return Object.hasOwn(OPENERS, head) ? (head as Opener) : undefined;
}

/** The kind of incident `id`: one of those here by its opener, else a rule's. */
export function incidentKindOf(id: string): IncidentKind {
  return kindOfIncident(id);
}

/** The time an id ends with (`.../2026-05-01T10:02:00.000Z`), when it is one. */
function idTime(id: string): string | undefined {
  const tail = id.slice(id.lastIndexOf('/') + 1);
  return tail !== '' && !Number.isNaN(Date.parse(tail)) ? tail : undefined;
}

/** One shard's health item as read. */
export interface HealthShard {
  readonly shard: number;
  readonly state: HealthState;
}

/** What the state item holding an open incident says of it. */
interface OpenNow {
  readonly openedAt?: string;
  readonly to?: string;
  readonly rule?: string;
  readonly detail?: string;
  /** A blind spot's networks still failing (or reading nothing), each since its first failing cycle. */
  readonly cells: ReadonlyArray<readonly [network: string, since: string]>;
  readonly acknowledged?: Acknowledgement;
}

/** What the incident list reads of the monitor state item (its incidents' timers: when present). */
export type MonitorIncidentsOf = Pick<MonitorState, 'status' | 'awayIncident' | 'incidents'> &
  Partial<Pick<MonitorState, 'incidentTimers'>>;

/** The incidents the monitor state item and the health items hold open, by id. */
function openIncidents(monitor: MonitorIncidentsOf, health: readonly HealthShard[]): Map<string, OpenNow> {
  const open = new Map<string, OpenNow>();
  // The monitor's own incidents are acknowledged in the monitor item, by id (docs/acknowledge.md).
  const acknowledgedOf = (id: string) => {
    const timers = monitor.incidentTimers;
    const acknowledged =
      timers !== undefined && Object.hasOwn(timers, id) ? timers[id]?.acknowledged : undefined;
    return acknowledged === undefined ? {} : { acknowledged };
  };
  if (monitor.awayIncident !== undefined) {
    open.set(monitor.awayIncident, {
      ...(monitor.status === undefined ? {} : { to: monitor.status }),
      ...(monitor.status === undefined ? {} : { detail: `status ${JSON.stringify(monitor.status)}` }),
      ...acknowledgedOf(monitor.awayIncident),
      cells: [],
    });
  }
  for (const [name, opener] of Object.entries(API_OPENERS)) {
    const incident = monitor.incidents[name as keyof typeof API_OPENERS];
    if (incident?.open !== true || incident.since === undefined) continue;
    const id = `${opener}/${incident.since}`;
    open.set(id, {
      openedAt: incident.since,
      ...(incident.lastError === undefined ? {} : { detail: incident.lastError }),
      ...acknowledgedOf(id),
      cells: [],
    });
  }
  for (const { state } of health) {
    const timers = (id: string) =>
      state.incidents !== undefined && Object.hasOwn(state.incidents, id) ? state.incidents[id] : undefined;
    const add = (id: string, cells: OpenNow['cells'], rule?: string) => {
      const t = timers(id);
      open.set(id, {
        ...(t === undefined ? {} : { openedAt: t.openedAt }),
        ...(t?.acknowledged === undefined ? {} : { acknowledged: t.acknowledged }),
        ...(rule === undefined ? {} : { rule }),
        ...(cells.length === 0 ? {} : { detail: cells.map(([network]) => network).join(', ') }),
        cells,
      });
    };
    const openCells = (cells: Readonly<Record<string, { since: string; open?: true }>>) =>
      Object.entries(cells)
        .filter(([, cell]) => cell.open === true)
        .map(([network, cell]) => [network, cell.since] as const);
    if (state.downIncident !== undefined) add(state.downIncident, openCells(state.down));
    for (const [rule, id] of Object.entries(state.blindIncidents)) {
      add(id, openCells(Object.hasOwn(state.blind, rule) ? (state.blind[rule] ?? {}) : {}), rule);
    }
  }
  return open;
}

/** Whether `e` ends an incident opened by `opener`: its closer (a status's back to the expected one), none left. */
function closes(e: IncidentEventRecord, opener: Opener): boolean {
  if (e.event !== OPENERS[opener].closer) return false;
  if (opener === 'filter.status_changed') return e.severity === 'resolved';
  return e.remaining === undefined || e.remaining.length === 0;
}

/** Whether `e` opens or extends (a status changed again while away, networks joined) an incident of `opener`. */
function opens(e: IncidentEventRecord, opener: Opener): boolean {
  return e.event === opener && (opener !== 'filter.status_changed' || e.severity === 'high');
}

function timelineWhat(
  e: IncidentEventRecord,
  opener: Opener,
  first: boolean,
  resolving: boolean,
): TimelineWhat {
  if (opens(e, opener)) return first ? 'opened' : opener === 'filter.status_changed' ? 'updated' : 'joined';
  if (e.event === OPENERS[opener].closer) return resolving ? 'resolved' : 'left';
  switch (e.event) {
    case 'filter.status_reminder':
    case 'incident.reminder':
      return 'reminded';
    case 'incident.escalated':
      return 'escalated';
    case 'incident.acknowledged':
      return 'acknowledged';
    default:
      return 'updated';
  }
}

/** Every network a blind spot named: when it first joined, when it last left (absent: still failing). */
function blindSpotMembers(
  opener: Opener,
  mine: readonly IncidentEventRecord[],
  now: OpenNow | undefined,
  resolvedAt: string | undefined,
): StoryMember[] {
  const members = new Map<string, { network: string; joinedAt: string; leftAt?: string }>();
  for (const e of mine) {
    const joins = opens(e, opener);
    if (!joins && e.event !== OPENERS[opener].closer) continue;
    for (const { network } of e.members ?? []) {
      const known = members.get(network);
      if (joins) members.set(network, { network, joinedAt: known?.joinedAt ?? e.at });
      else if (known !== undefined) known.leftAt = e.at;
    }
  }
  for (const [network, since] of now?.cells ?? []) {
    members.set(network, { network, joinedAt: members.get(network)?.joinedAt ?? since });
  }
  return [...members.values()].map((m) =>
    m.leftAt === undefined && resolvedAt !== undefined ? { ...m, leftAt: resolvedAt } : m,
  );
}

/** When it opened (see {@link IncidentOpenerSpec.openedAt}), from the best source at hand. */
function openedAtOf(
  id: string,
  spec: IncidentOpenerSpec,
  mine: readonly IncidentEventRecord[],
  firstAlert: string | undefined,
  now: OpenNow | undefined,
  end: IncidentEventRecord | undefined,
): string {
  const opened =
    spec.openedAt === 'id'
      ? (idTime(id) ?? end?.previousSince ?? firstAlert)
      : (now?.openedAt ?? firstAlert ?? idTime(id));
  return opened ?? mine[0]?.at ?? '';
}

/** Its timeline: one line per event, with the networks it names and what it told. */
function timelineOf(
  opener: Opener,
  mine: readonly IncidentEventRecord[],
  end: IncidentEventRecord | undefined,
): IncidentTimelineEntry[] {
  let opened = false;
  return mine.map((e) => {
    const what = timelineWhat(e, opener, !opened, e === end);
    if (opens(e, opener)) opened = true;
    const named = e.members?.map((m) => m.network) ?? [];
    const words =
      opener === 'filter.status_changed' && e.to !== undefined ? `status ${JSON.stringify(e.to)}` : e.detail;
    return {
      at: e.at,
      what,
      count: named.length,
      // What the alert said names its networks already (with how each fails): the list only without it.
      ...(named.length === 0 || words !== undefined ? {} : { networks: named.slice(0, TIMELINE_NETWORKS) }),
      ...(words === undefined ? {} : { detail: words }),
    };
  });
}

/**
 * Every incident but a rule's: each one the state holds open, and each one its stored events name (an end
 * paired with its opener by their `incident` id). One the state no longer holds is resolved: at its end's time,
 * or, when no end is recorded (its networks or rule left the configuration, or its end is still in an outbox),
 * without one. Each with its timeline and alerts from its events.
 */
export function otherIncidents(
  monitor: MonitorIncidentsOf,
  health: readonly HealthShard[],
  events: readonly IncidentEventRecord[],
): IncidentView[] {
  const open = openIncidents(monitor, health);
  const byId = new Map<string, IncidentEventRecord[]>();
  for (const e of events) {
    if (e.incident === undefined || openerOf(e.incident) === undefined) continue;
    const mine = byId.get(e.incident);
    if (mine === undefined) byId.set(e.incident, [e]);
    else mine.push(e);
  }
  const views: IncidentView[] = [];
  for (const id of new Set([...open.keys(), ...byId.keys()])) {
    const opener = openerOf(id);
    if (opener === undefined) continue;
    const spec: IncidentOpenerSpec = OPENERS[opener];
    const mine = byId.get(id) ?? [];
    const now = open.get(id);
    // The last end of one the state no longer holds (a blind spot's earlier ones: networks that left).
    const end = now === undefined ? mine.filter((e) => closes(e, opener)).at(-1) : undefined;
    const firstAlert = mine.find((e) => opens(e, opener))?.at;
    const latest = [...mine].reverse().find((e) => opens(e, opener) && (e.to ?? e.detail) !== undefined);
    const rule = now?.rule ?? mine.find((e) => e.rule !== undefined)?.rule;
    const ruleText = mine.find((e) => e.ruleText !== undefined)?.ruleText;
    const detail =
      now?.detail ??
      (opener === 'filter.status_changed'
        ? latest?.to === undefined
          ? undefined
          : `status ${JSON.stringify(latest.to)}`
        : latest?.detail);
    const members =
      spec.kind === 'network' || spec.kind === 'rule_unreadable'
        ? blindSpotMembers(opener, mine, now, end?.at)
        : [];
    views.push({
      id,
      kind: spec.kind,
      ...(rule === undefined ? {} : { rule }),
      about: spec.label({ to: now?.to ?? latest?.to, rule }),
      ...(ruleText === undefined ? {} : { ruleText }),
      state: now === undefined ? 'resolved' : now.acknowledged === undefined ? 'open' : 'acknowledged',
      openedAt: openedAtOf(id, spec, mine, firstAlert, now, end),
      ...(end === undefined ? {} : { resolvedAt: end.at }),
      networks: members.map((m) => ({ network: m.network })),
      ...(now?.acknowledged === undefined ? {} : { acknowledged: now.acknowledged }),
      ...(detail === undefined ? {} : { detail }),
      members,
      timeline: timelineOf(opener, mine, end),
      alerts: alertsOf(id, events),
    });
  }
  return views;
}
