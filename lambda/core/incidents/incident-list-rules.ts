/**
 * The rule incidents of one network (CONTRACT §13, the `groupBy` setting at `none`), as `shieldwatch incidents` lists
 * them: each network's trigger and resolve share the incident id `<rule>/<network>/<triggered at>`
 * (`ruleIncidentId`, rule-eval.ts). The open ones come from the rule items' cells (the state that holds them, as
 * `status` shows them), the others from their stored `network.rule_*` events paired by that id. With
 * `groupBy=rule` the same per-network transitions are recorded as events too, but they belong to the rule's
 * incident across networks: a transition is left to that incident when an incident of its rule (an incident
 * item's, or one its `incident.*` events tell) had its network as a member at the time (or, when not every
 * member is known, was open at the time). Pure: built from what the store returned.
 */

import type { RuleCell, RuleOp, RuleState } from '../rules/rule-types.ts';
import {
  alertsOf,
  type IncidentEventRecord,
  type IncidentTimelineEntry,
  type IncidentView,
} from './incident-list-view.ts';
import { type Incident, type StoryMember, worse } from './incidents.ts';

/** One rule item's state as read (`rules#<shard>[#<chunk>]`): its last cycle and its cells. */
export type RuleItemCells = Pick<RuleState, 'lastAt' | 'cells'>;

/** What the per-network rule incidents are read from. */
export interface PerNetworkRuleSources {
  /** Every rule item of every shard. */
  readonly ruleItems: readonly RuleItemCells[];
  /** Every incident item's open and latest resolved incident (the rules' incidents across networks). */
  readonly scopes: ReadonlyArray<{ readonly open?: Incident; readonly last?: Incident }>;
  /** The `incident.*` events of the rules' incidents across networks, oldest first. */
  readonly incidentEvents: readonly IncidentEventRecord[];
  /** The stored events of the listed range (of `--since` on), oldest first: they name the resolved incidents. */
  readonly events: readonly IncidentEventRecord[];
  /**
   * The stored events the incidents' stories and peaks are read from: `events`, or from further back when an
   * incident listed triggered before them. @default events
   */
  readonly ruleEvents?: readonly IncidentEventRecord[];
}

const TRIGGERED = 'network.rule_triggered';
const RESOLVED = 'network.rule_resolved';

const ACKNOWLEDGED = 'incident.acknowledged';

const isRuleAlert = (e: IncidentEventRecord) => e.event === TRIGGERED || e.event === RESOLVED;

/** The lifecycle's steps of an incident on one network, recorded under its id, and their timeline lines. */
const STEPS: ReadonlyMap<string, IncidentTimelineEntry['what']> = new Map([
  [ACKNOWLEDGED, 'acknowledged'],
  ['incident.reminder', 'reminded'],
  ['incident.escalated', 'escalated'],
]);

function stepLine(e: IncidentEventRecord): IncidentTimelineEntry[] {
  const what = STEPS.get(e.event);
  if (what === undefined) return [];
  return [
    {
      at: e.at,
      what,
      count: 1,
      ...(e.event === ACKNOWLEDGED && e.acknowledgedBy !== undefined ? { by: e.acknowledgedBy } : {}),
      ...(e.event === ACKNOWLEDGED && e.detail !== undefined ? { note: e.detail } : {}),
    },
  ];
}

/** Oldest first; equal times keep their order. */
const byTime = <T extends { readonly at: string }>(rows: readonly T[]): T[] =>
  [...rows].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));

/** A network's time in an incident across networks, or the incident's when not every member is known. */
interface Span {
  readonly from: number;
  /** Absent: still open. */
  readonly to?: number;
}

/** The incidents across networks of each rule: per network its spans, or the incident's span for any network. */
interface GroupedCover {
  readonly members: Map<string, Span[]>;
  readonly any: Span[];
}

const ms = (iso: string | undefined): number | undefined => {
  const t = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
};

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Where the rules' incidents across networks were, from their items and their events. */
function groupedCovers(sources: PerNetworkRuleSources): Map<string, GroupedCover> {
  const covers = new Map<string, GroupedCover>();
  const coverOf = (rule: string) => {
    let cover = covers.get(rule);
    if (cover === undefined) {
      cover = { members: new Map(), any: [] };
      covers.set(rule, cover);
    }
    return cover;
  };
  const addMembers = (rule: string, members: readonly StoryMember[], end: number | undefined) => {
    const cover = coverOf(rule);
    for (const m of members) {
      const from = ms(m.joinedAt);
      if (from === undefined) continue;
      const left = ms(m.leftAt) ?? end;
      push(cover.members, m.network, left === undefined ? { from } : { from, to: left });
    }
  };
  const known = new Set<string>();
  for (const scope of sources.scopes) {
    for (const incident of [scope.last, scope.open]) {
      if (incident === undefined || incident.kind !== 'rule') continue;
      known.add(incident.id);
      addMembers(incident.rule, incident.members, ms(incident.resolvedAt));
    }
  }
  const byId = new Map<string, IncidentEventRecord[]>();
  for (const e of sources.incidentEvents) {
    if (e.incident !== undefined && e.rule !== undefined && !known.has(e.incident)) push(byId, e.incident, e);
  }
  for (const mine of byId.values()) {
    const first = mine[0]!;
    const rule = first.rule!;
    const resolved = mine.find((e) => e.event === 'incident.resolved');
    const story = resolved?.story;
    // The resolve names every member (up to its cap); before it, or past the cap, not every member is known.
    if (story !== undefined && story.members.length >= (story.count ?? 0)) {
      addMembers(rule, story.members, ms(story.resolvedAt ?? resolved!.at));
      continue;
    }
    const from = ms(story?.openedAt ?? first.story?.openedAt ?? first.openedAt ?? first.since ?? first.at);
    const to = ms(story?.resolvedAt ?? resolved?.at ?? mine.at(-1)!.at);
    if (from !== undefined) coverOf(rule).any.push(to === undefined ? { from } : { from, to });
  }
  return covers;
}

/** Whether [from, to] (to absent: still open) meets one of `spans`. */
function meets(spans: readonly Span[] | undefined, from: number, to: number | undefined): boolean {
  return (spans ?? []).some(
    (s) => (s.to === undefined || from <= s.to) && (to === undefined || s.from <= to),
  );
}

/** An open cell, or a closed one whose resolve the alert cap still holds back. */
interface CellIncident {
  readonly rule: string;
  readonly network: string;
  readonly cell: RuleCell;
}

/**
 * The cells that tell of an incident, by incident id: the open ones and those whose resolve is held back. An
 * edit may leave a copy of a cell in two items for a while: the copy judged last (its item's newest cycle)
 * stands, as in the cycle itself.
 */
function cellIncidents(items: readonly RuleItemCells[]): Map<string, CellIncident> {
  const newest = new Map<string, { readonly asOf: string; readonly cell: CellIncident }>();
  for (const item of items) {
    const asOf = item.lastAt ?? '';
    for (const [rule, cells] of Object.entries(item.cells)) {
      for (const [network, cell] of Object.entries(cells)) {
        const key = JSON.stringify([rule, network]);
        const before = newest.get(key);
        if (before !== undefined && before.asOf >= asOf) continue;
        newest.set(key, { asOf, cell: { rule, network, cell } });
      }
    }
  }
  const byId = new Map<string, CellIncident>();
  for (const { cell } of newest.values()) {
    const c = cell.cell;
    const tells = c.open || c.held?.event === RESOLVED;
    if (tells && c.incident !== undefined && c.triggeredAt !== undefined) byId.set(c.incident, cell);
  }
  return byId;
}

/** The operator the peak is judged by: the rule's, or read from the trigger's value against its threshold. */
function opOf(mine: readonly IncidentEventRecord[]): RuleOp | undefined {
  const op = mine.find((e) => e.condition !== undefined)?.condition?.op;
  if (op !== undefined) return op;
  const trigger = mine.find((e) => e.event === TRIGGERED);
  if (typeof trigger?.value !== 'number' || typeof trigger.threshold !== 'number') return undefined;
  return trigger.value > trigger.threshold ? '>' : trigger.value < trigger.threshold ? '<' : undefined;
}

/** A reading as the timeline tells it: its value against the threshold. */
function reading(e: { readonly value?: number | boolean; readonly threshold?: number | boolean }) {
  if (e.value === undefined) return {};
  return { detail: `value ${e.value}${e.threshold === undefined ? '' : `, threshold ${e.threshold}`}` };
}

/** One per-network rule incident, from its cell (open, or its resolve held back) and its stored alerts. */
function view(
  id: string,
  mine: readonly IncidentEventRecord[],
  now: CellIncident | undefined,
  steps: readonly IncidentEventRecord[] = [],
): IncidentView | undefined {
  const ack = steps.findLast((e) => e.event === ACKNOWLEDGED);
  const trigger = mine.find((e) => e.event === TRIGGERED);
  const resolve = mine.findLast((e) => e.event === RESOLVED);
  const any = trigger ?? resolve;
  const rule = now?.rule ?? any?.rule;
  const network = now?.network ?? any?.network;
  const openedAt = now?.cell.triggeredAt ?? trigger?.triggeredAt ?? resolve?.triggeredAt ?? trigger?.at;
  if (rule === undefined || network === undefined || openedAt === undefined) return undefined;
  const held = now?.cell.held;
  const heldValue = held?.values.at(-1);
  const open = now?.cell.open === true;
  // A resolve the alert cap holds back is not stored yet: the cell says when it happened.
  const resolvedAt = open ? undefined : (resolve?.at ?? (held?.event === RESOLVED ? held.at : undefined));

  // The peak: the worst of the stored readings of a trigger known (its own, or the one the cap holds back), and
  // of the peaks kept between them: the cell's while open (or while the cap holds its resolve back), the
  // resolve's once it went out. A cell or resolve of the previous release keeps none: its trigger's stands.
  const readings: Array<{ value: number | boolean; at: string }> = [];
  if (held?.event === TRIGGERED && heldValue !== undefined) readings.push({ value: heldValue, at: held.at });
  for (const e of mine) if (e.value !== undefined) readings.push({ value: e.value, at: e.at });
  const peaks: Array<{ value: number | boolean; at: string }> = [];
  if (now?.cell.peak !== undefined) peaks.push(now.cell.peak);
  for (const e of mine) {
    if (e.event === RESOLVED && e.peak !== undefined && e.peakAt !== undefined)
      peaks.push({ value: e.peak, at: e.peakAt });
  }
  const op = opOf(mine);
  let peak: { value: number | boolean; at: string } | undefined;
  const candidates = trigger !== undefined || held?.event === TRIGGERED ? [...readings, ...peaks] : peaks;
  for (const r of candidates) if (worse(op, r.value, peak?.value)) peak = r;
  const latest = readings.at(-1);
  const member: StoryMember = {
    network,
    joinedAt: openedAt,
    ...(resolvedAt === undefined ? {} : { leftAt: resolvedAt }),
    ...(latest === undefined ? {} : { value: latest.value }),
    ...(peak === undefined ? {} : { peak: peak.value, peakAt: peak.at }),
  };

  const timeline: IncidentTimelineEntry[] = byTime([
    ...mine.map(
      (e): IncidentTimelineEntry => ({
        at: e.at,
        what: e.event === TRIGGERED ? 'opened' : 'resolved',
        count: 1,
        ...reading(e),
      }),
    ),
    ...steps.flatMap(stepLine),
  ]);
  if (trigger === undefined) {
    timeline.unshift({
      at: openedAt,
      what: 'opened',
      count: 1,
      ...(held?.event === TRIGGERED ? { detail: 'its alert waits behind the alert cap' } : {}),
    });
  }
  if (resolve === undefined && held?.event === RESOLVED) {
    timeline.push({
      at: held.at,
      what: 'resolved',
      count: 1,
      detail: 'its alert waits behind the alert cap',
    });
  }
  const ruleText = mine.find((e) => e.ruleText !== undefined)?.ruleText;
  // Acknowledged: the cell keeps who, when and the note, as `status` reads them; a cell that keeps when only
  // (written before who was kept, or past its item's budget: rule-incidents.ts keptCellAck) takes who and the
  // note from its `incident.acknowledged` event.
  const kept = open ? now?.cell.timers?.acknowledged : undefined;
  const acknowledged =
    kept === undefined
      ? undefined
      : kept.by !== ''
        ? kept
        : {
            by: ack?.acknowledgedBy ?? 'unknown',
            at: kept.at,
            ...(ack?.detail === undefined ? {} : { note: ack.detail }),
          };
  return {
    id,
    kind: 'rule',
    rule,
    about: `${rule} on ${network}`,
    ...(ruleText === undefined ? {} : { ruleText }),
    state: open ? (acknowledged === undefined ? 'open' : 'acknowledged') : 'resolved',
    ...(acknowledged === undefined ? {} : { acknowledged }),
    openedAt,
    ...(resolvedAt === undefined ? {} : { resolvedAt }),
    networks: [{ network, ...(peak === undefined ? {} : { peak: peak.value, peakAt: peak.at }) }],
    members: [member],
    timeline,
    alerts: alertsOf(id, byTime([...mine, ...steps])),
  };
}

/**
 * Every rule incident of one network (`groupBy=none`): each one a rule cell holds open (or whose resolve the
 * alert cap holds back), and each one a `network.rule_*` event of `events` names, paired by incident id; one no
 * cell holds any more is resolved: at its resolve, or, when none is recorded (its rule or network left the
 * configuration), without one. Those that belong to an incident across networks (`groupBy=rule`) are left to it.
 */
export function perNetworkRuleIncidents(sources: PerNetworkRuleSources): IncidentView[] {
  const cells = cellIncidents(sources.ruleItems);
  const ruleEvents = (sources.ruleEvents ?? sources.events).filter(isRuleAlert);
  const byId = new Map<string, IncidentEventRecord[]>();
  for (const e of ruleEvents) if (e.incident !== undefined) push(byId, e.incident, e);
  const listed = new Set(cells.keys());
  for (const e of sources.events) if (isRuleAlert(e) && e.incident !== undefined) listed.add(e.incident);
  const covers = groupedCovers(sources);
  const views: IncidentView[] = [];
  // Its acknowledgements, reminders and escalations: they stay in its timeline once it resolved, as every
  // kind's do, so its time to acknowledge is known after its end too.
  const stepsOf = new Map<string, IncidentEventRecord[]>();
  for (const e of sources.events) {
    if (e.incident !== undefined && listed.has(e.incident) && STEPS.has(e.event))
      push(stepsOf, e.incident, e);
  }
  for (const id of listed) {
    const v = view(id, byId.get(id) ?? [], cells.get(id), stepsOf.get(id));
    if (v === undefined) continue;
    const network = v.networks[0]!.network;
    const cover = covers.get(v.rule!);
    const from = ms(v.openedAt);
    const to = v.state === 'open' ? undefined : (ms(v.resolvedAt) ?? from);
    if (from !== undefined && cover !== undefined) {
      if (meets(cover.members.get(network), from, to) || meets(cover.any, from, to)) continue;
    }
    views.push(v);
  }
  return views;
}
