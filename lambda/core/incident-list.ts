/**
 * The incidents as `shieldwatch incidents` (and `status`) show them (CONTRACT §13): the open ones and the
 * latest resolved one of each rule from the incident items, older ones from their `incident.*` events (an
 * `incident.resolved` event holds every member's peak). Pure: built from what the store returned.
 */
import {
  type Incident,
  type IncidentKind,
  type IncidentRow,
  incidentRow,
  type StoryMember,
  type TimelineEntry,
} from './incidents.ts';

/** An `incident.*` event as the store keeps it (a subset of `StoredEvent`). */
export interface IncidentEventRecord {
  readonly at: string;
  readonly event: string;
  readonly incident?: string;
  readonly rule?: string;
  readonly ruleText?: string;
  readonly since?: string;
  readonly suppressedBy?: string;
  readonly story?: {
    readonly kind: IncidentKind;
    readonly openedAt: string;
    readonly resolvedAt?: string;
    readonly members: readonly StoryMember[];
  };
}

/** One incident with its story, for `incidents show`. */
export interface IncidentView extends IncidentRow {
  readonly ruleText?: string;
  /** Every member: joined, left, latest value, peak. */
  readonly members: readonly StoryMember[];
  /** The incident item's timeline (bounded), or its alerts' times for an incident known from events only. */
  readonly timeline: readonly TimelineEntry[];
  /** The incident's alerts as recorded: sent, or suppressed by a silence. */
  readonly alerts: ReadonlyArray<{
    readonly at: string;
    readonly event: string;
    readonly suppressedBy?: string;
  }>;
}

const isIncidentEvent = (e: IncidentEventRecord) =>
  e.event.startsWith('incident.') && e.incident !== undefined;

function fromItem(incident: Incident, events: readonly IncidentEventRecord[]): IncidentView {
  return {
    ...incidentRow(incident),
    ...(incident.ruleText === undefined ? {} : { ruleText: incident.ruleText }),
    members: incident.members.map((m) => ({
      network: m.network,
      joinedAt: m.joinedAt,
      ...(m.leftAt === undefined ? {} : { leftAt: m.leftAt }),
      ...(m.value === undefined ? {} : { value: m.value }),
      ...(m.peak === undefined ? {} : { peak: m.peak }),
      ...(m.peakAt === undefined ? {} : { peakAt: m.peakAt }),
    })),
    timeline: incident.timeline,
    alerts: alertsOf(incident.id, events),
  };
}

function alertsOf(id: string, events: readonly IncidentEventRecord[]): IncidentView['alerts'] {
  return events
    .filter((e) => e.incident === id)
    .map((e) => ({
      at: e.at,
      event: e.event,
      ...(e.suppressedBy === undefined ? {} : { suppressedBy: e.suppressedBy }),
    }));
}

function fromEvents(id: string, events: readonly IncidentEventRecord[]): IncidentView | undefined {
  const mine = events.filter((e) => e.incident === id);
  const resolved = mine.find((e) => e.event === 'incident.resolved');
  const first = mine[0];
  if (first === undefined) return undefined;
  // The resolve's story names every member; before it, the members the alerts named.
  const members = resolved?.story?.members ?? dedupe(mine.flatMap((e) => e.story?.members ?? []));
  const openedAt = resolved?.story?.openedAt ?? first.story?.openedAt ?? first.since ?? first.at;
  return {
    id,
    kind: first.story?.kind ?? 'rule',
    ...(first.rule === undefined ? {} : { rule: first.rule }),
    ...(first.ruleText === undefined ? {} : { ruleText: first.ruleText }),
    state: resolved === undefined ? 'open' : 'resolved',
    openedAt,
    ...(resolved === undefined ? {} : { resolvedAt: resolved.story?.resolvedAt ?? resolved.at }),
    networks: members.map((m) => ({
      network: m.network,
      ...(m.peak === undefined ? {} : { peak: m.peak }),
      ...(m.peakAt === undefined ? {} : { peakAt: m.peakAt }),
    })),
    members,
    timeline: mine.map((e) => ({
      at: e.at,
      what:
        e.event === 'incident.opened' ? 'opened' : e.event === 'incident.resolved' ? 'resolved' : 'updated',
      count: e.story?.members.length ?? 0,
    })),
    alerts: alertsOf(id, events),
  };
}

function dedupe(members: readonly StoryMember[]): StoryMember[] {
  const seen = new Map<string, StoryMember>();
  for (const m of members) if (!seen.has(m.network)) seen.set(m.network, m);
  return [...seen.values()];
}

/**
 * Every incident known to the store, oldest first: each incident item's open and latest resolved incident,
 * and every other incident named by an `incident.*` event. An incident item's copy wins over the events'.
 */
export function listIncidents(
  scopes: ReadonlyArray<{ readonly open?: Incident; readonly last?: Incident }>,
  events: readonly IncidentEventRecord[],
): IncidentView[] {
  const incidentEvents = events.filter(isIncidentEvent);
  const views = new Map<string, IncidentView>();
  for (const scope of scopes) {
    for (const incident of [scope.last, scope.open]) {
      if (incident !== undefined) views.set(incident.id, fromItem(incident, incidentEvents));
    }
  }
  for (const id of new Set(incidentEvents.map((e) => e.incident!))) {
    if (views.has(id)) continue;
    const view = fromEvents(id, incidentEvents);
    if (view !== undefined) views.set(id, view);
  }
  return [...views.values()].sort((a, b) => Date.parse(a.openedAt) - Date.parse(b.openedAt));
}
