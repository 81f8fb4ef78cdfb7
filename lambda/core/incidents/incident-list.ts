/**
 * The incidents as `shieldwatch incidents` shows them (CONTRACT §13), of every kind. A rule's across networks
 * (`groupBy=rule`): the open ones and the latest resolved one of each rule from the incident items, older ones
 * from their `incident.*` events (an `incident.resolved` event holds every member's peak). A rule's on one
 * network (`groupBy=none`): `incident-list-rules.ts`. The others (a status away, the API, the blind spots):
 * `incident-list-kinds.ts`. Pure: built from what the store returned.
 */
import type { MonitorState } from '../detect/decide.ts';
import { parseIncidentId } from './incident-kinds.ts';
import { type HealthShard, incidentKindOf, otherIncidents } from './incident-list-kinds.ts';
import { perNetworkRuleIncidents, type RuleItemCells } from './incident-list-rules.ts';
import { alertsOf, type IncidentEventRecord, type IncidentView } from './incident-list-view.ts';
import { type Incident, incidentRow, type StoryMember } from './incidents.ts';

export type { HealthShard } from './incident-list-kinds.ts';
export type { RuleItemCells } from './incident-list-rules.ts';
export { type IncidentEventRecord, type IncidentView, listingRow } from './incident-list-view.ts';

/**
 * An `incident.*` event of a rule's incident across networks (a blind spot's reminders and escalations are
 * `incident.*` too, and so are a rule's incident on one network's acknowledgement, reminders and escalations,
 * `<rule>/<network>/<time>`: those belong to their own incidents, never to one across networks).
 */
const isRuleIncidentEvent = (e: IncidentEventRecord) => {
  if (!e.event.startsWith('incident.') || e.incident === undefined) return false;
  const ref = parseIncidentId(e.incident);
  return ref === undefined ? incidentKindOf(e.incident) === 'rule' : ref.home === 'incident';
};

function fromItem(incident: Incident, events: readonly IncidentEventRecord[]): IncidentView {
  return {
    ...incidentRow(incident),
    about: incident.rule,
    ...(incident.ruleText === undefined ? {} : { ruleText: incident.ruleText }),
    ...(incident.spread === undefined ? {} : { spread: incident.spread }),
    members: incident.members.map((m) => ({
      network: m.network,
      joinedAt: m.joinedAt,
      ...(m.first === undefined ? {} : { first: m.first }),
      ...(m.leftAt === undefined ? {} : { leftAt: m.leftAt }),
      ...(m.value === undefined ? {} : { value: m.value }),
      ...(m.peak === undefined ? {} : { peak: m.peak }),
      ...(m.peakAt === undefined ? {} : { peakAt: m.peakAt }),
    })),
    timeline: incident.timeline,
    alerts: alertsOf(incident.id, events),
  };
}

function fromEvents(id: string, events: readonly IncidentEventRecord[]): IncidentView | undefined {
  const mine = events.filter((e) => e.incident === id);
  const resolved = mine.find((e) => e.event === 'incident.resolved');
  const first = mine[0];
  if (first === undefined) return undefined;
  // The resolve's story names every member; before it, the members the alerts named.
  const members = resolved?.story?.members ?? dedupe(mine.flatMap((e) => e.story?.members ?? []));
  const openedAt =
    resolved?.story?.openedAt ?? first.story?.openedAt ?? first.openedAt ?? first.since ?? first.at;
  return {
    id,
    kind: first.story?.kind ?? 'rule',
    ...(first.rule === undefined ? {} : { rule: first.rule }),
    about: first.rule ?? id,
    ...(first.ruleText === undefined ? {} : { ruleText: first.ruleText }),
    state: resolved === undefined ? 'open' : 'resolved',
    openedAt,
    ...(resolved === undefined ? {} : { resolvedAt: resolved.story?.resolvedAt ?? resolved.at }),
    ...(resolved?.story?.spread === undefined ? {} : { spread: resolved.story.spread }),
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

/** The rule incidents of one network (`groupBy=none`) of `sources`. */
function perNetworkOf(
  sources: IncidentSources,
  incidentEvents: readonly IncidentEventRecord[],
): IncidentView[] {
  return perNetworkRuleIncidents({
    ruleItems: sources.ruleItems ?? [],
    scopes: sources.scopes,
    incidentEvents,
    events: sources.events,
    ...(sources.ruleEvents === undefined ? {} : { ruleEvents: sources.ruleEvents }),
  });
}

/** What the store holds about incidents, as read. */
export interface IncidentSources {
  /** Every incident item's open and latest resolved incident. */
  readonly scopes: ReadonlyArray<{ readonly open?: Incident; readonly last?: Incident }>;
  /** The monitor state item: the status away from the expected one and the API incidents it holds open. */
  readonly monitor: Pick<MonitorState, 'status' | 'awayIncident' | 'incidents'>;
  /** Every shard's health item: the blind spots it holds open. @default [] */
  readonly health?: readonly HealthShard[];
  /** The stored events (of `--since` on), oldest first. */
  readonly events: readonly IncidentEventRecord[];
  /** Every rule item's state: the rule incidents of one network it holds open (`groupBy=none`). @default [] */
  readonly ruleItems?: readonly RuleItemCells[];
  /**
   * The stored events a rule incident of one network is told from: `events`, or from further back when one
   * listed triggered before them (its trigger holds its peak). @default events
   */
  readonly ruleEvents?: readonly IncidentEventRecord[];
}

/**
 * Every incident known to the store, oldest first (the same start: by id). Rules across networks: each incident
 * item's open and latest resolved incident, and every other incident named by an `incident.*` event (an incident
 * item's copy wins over the events'). Rules on one network: {@link perNetworkRuleIncidents}. The other kinds:
 * {@link otherIncidents}.
 */
export function listIncidents(sources: IncidentSources): IncidentView[] {
  const { scopes, events } = sources;
  const incidentEvents = events.filter(isRuleIncidentEvent);
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
  for (const view of perNetworkOf(sources, incidentEvents)) views.set(view.id, view);
  for (const view of otherIncidents(sources.monitor, sources.health ?? [], events)) views.set(view.id, view);
  return [...views.values()].sort(
    (a, b) => Date.parse(a.openedAt) - Date.parse(b.openedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * When the rule incidents of one network that `sources` lists triggered, for those that triggered before
 * `since`, oldest first: their triggers (which hold their peaks) are not among the events of `since` on, and are
 * read at those times ({@link IncidentSources.ruleEvents}).
 */
export function ruleTriggersBefore(sources: IncidentSources, since: string): string[] {
  const views = perNetworkOf(sources, sources.events.filter(isRuleIncidentEvent));
  const times = new Set(views.map((v) => v.openedAt).filter((at) => Date.parse(at) < Date.parse(since)));
  return [...times].sort();
}
