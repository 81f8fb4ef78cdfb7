/**
 * How fast the team answers (issue 31.4): each incident's time to acknowledge and time to resolve, and over a set
 * of incidents the count per kind and per rule, the median, 90th percentile and worst of each time. Read from the
 * listing (`incident-list.ts` {@link IncidentView}), whatever the kind. Pure: the time comes in as `nowMs`.
 *
 * - Time to acknowledge: from the opening to the first acknowledgement recorded (a later withdrawal does not
 *   undo it). Only acknowledged incidents have one; the others are counted apart (`notAcknowledged`).
 * - Time to resolve: from the opening to the recorded end; it is the incident's duration. Only resolved
 *   incidents with a recorded end have one. Open incidents are counted apart with how long they have been open
 *   so far (`openSoFar`), never mixed into the resolved ones' figures.
 * - Percentiles by nearest rank: the p-th percentile of n sorted values is the value of rank ⌈p/100 · n⌉; the
 *   median is the 50th (for an even n the lower of the two middle values). Every figure is one incident's.
 */
import type { IncidentView } from './incident-list-view.ts';
import type { IncidentKind } from './incidents.ts';

/** How the percentiles are taken, as the JSON and the table say it. */
export const PERCENTILE_METHOD = 'nearest-rank';

/** An incident's acknowledgement as the listing knows it: the latest one (who, when, note) and the first time. */
export interface AcknowledgementSeen {
  /** Who, when the listing knows it (an event-only timeline line may not). */
  readonly by?: string;
  readonly at: string;
  readonly note?: string;
  /** The first acknowledgement's time: the time to acknowledge counts to it. */
  readonly firstAt: string;
  /** When the latest acknowledgement was withdrawn (`shieldwatch unack`), if it was. */
  readonly withdrawnAt?: string;
}

const ms = (iso: string): number => Date.parse(iso);

/**
 * The acknowledgement of `view`, from everything the listing holds of it: its current acknowledgement, its
 * timeline's `acknowledged` and `unacknowledged` lines, its `incident.acknowledged` alerts. Undefined when it
 * was never acknowledged (as far as the listing knows).
 */
export function acknowledgementOf(view: IncidentView): AcknowledgementSeen | undefined {
  const lines = view.timeline.filter((t) => t.what === 'acknowledged' || t.what === 'unacknowledged');
  const times = [
    ...(view.acknowledged === undefined ? [] : [view.acknowledged.at]),
    ...lines.filter((t) => t.what === 'acknowledged').map((t) => t.at),
    ...view.alerts.filter((a) => a.event === 'incident.acknowledged').map((a) => a.at),
  ].filter((at) => Number.isFinite(ms(at)));
  if (times.length === 0) return undefined;
  const firstAt = times.reduce((a, b) => (ms(b) < ms(a) ? b : a));
  if (view.acknowledged !== undefined) {
    const { by, at, note } = view.acknowledged;
    return { by, at, ...(note === undefined ? {} : { note }), firstAt };
  }
  // No acknowledgement stands: the latest one the timeline or the alerts name, and its withdrawal if any.
  const lastAck = lines.findLast((t) => t.what === 'acknowledged');
  const withdrawn = lines.findLast((t) => t.what === 'unacknowledged');
  const latestAt = times.reduce((a, b) => (ms(b) > ms(a) ? b : a));
  const note = lastAck?.note ?? lastAck?.detail;
  return {
    ...(lastAck?.by === undefined ? {} : { by: lastAck.by }),
    at: lastAck?.at ?? latestAt,
    ...(note === undefined ? {} : { note }),
    firstAt,
    ...(withdrawn !== undefined && ms(withdrawn.at) >= ms(lastAck?.at ?? latestAt)
      ? { withdrawnAt: withdrawn.at }
      : {}),
  };
}

/** One incident's times. */
export interface IncidentTimes {
  readonly id: string;
  readonly kind: IncidentKind;
  readonly rule?: string;
  readonly state: IncidentView['state'];
  readonly openedAt: string;
  /** The first acknowledgement. */
  readonly acknowledgedAt?: string;
  readonly resolvedAt?: string;
  /** From the opening to the first acknowledgement (0 for one acknowledged at its opening). */
  readonly timeToAcknowledgeMs?: number;
  /** From the opening to the recorded end: the duration of a resolved incident. */
  readonly timeToResolveMs?: number;
  /** An open incident: how long it has been open so far. */
  readonly openForMs?: number;
}

/** A time never below zero (a clock that ran ahead may have stamped an acknowledgement before the opening). */
const between = (from: string, to: string): number | undefined => {
  const d = ms(to) - ms(from);
  return Number.isFinite(d) ? Math.max(0, d) : undefined;
};

/** The times of one incident. */
export function incidentTimes(view: IncidentView, nowMs: number): IncidentTimes {
  const ack = acknowledgementOf(view);
  const toAck = ack === undefined ? undefined : between(view.openedAt, ack.firstAt);
  const toResolve =
    view.state === 'resolved' && view.resolvedAt !== undefined
      ? between(view.openedAt, view.resolvedAt)
      : undefined;
  const openFor =
    view.state === 'resolved' ? undefined : between(view.openedAt, new Date(nowMs).toISOString());
  return {
    id: view.id,
    kind: view.kind,
    ...(view.rule === undefined ? {} : { rule: view.rule }),
    state: view.state,
    openedAt: view.openedAt,
    ...(ack === undefined ? {} : { acknowledgedAt: ack.firstAt }),
    ...(view.resolvedAt === undefined ? {} : { resolvedAt: view.resolvedAt }),
    ...(toAck === undefined ? {} : { timeToAcknowledgeMs: toAck }),
    ...(toResolve === undefined ? {} : { timeToResolveMs: toResolve }),
    ...(openFor === undefined ? {} : { openForMs: openFor }),
  };
}

/**
 * The `p`-th percentile (0 < p ≤ 100) of `values` by nearest rank: the value of rank ⌈p/100 · n⌉ in ascending
 * order. Undefined for no value.
 */
export function nearestRank(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

/** The spread of one time over the incidents that have it; the figures null when none has. */
export interface Spread {
  /** How many incidents the figures are over. */
  readonly count: number;
  readonly medianMs: number | null;
  readonly p90Ms: number | null;
  /** The longest. */
  readonly worstMs: number | null;
}

export function spreadOf(values: readonly number[]): Spread {
  return {
    count: values.length,
    medianMs: nearestRank(values, 50) ?? null,
    p90Ms: nearestRank(values, 90) ?? null,
    worstMs: values.length === 0 ? null : Math.max(...values),
  };
}

/** How many incidents of one kind, or of one rule and kind. */
export interface CountRow {
  readonly count: number;
  readonly open: number;
  readonly resolved: number;
}

/** How fast the team answered a set of incidents. */
export interface ResponseStats {
  readonly percentiles: typeof PERCENTILE_METHOD;
  readonly count: number;
  /** Open (acknowledged or not). */
  readonly open: number;
  readonly resolved: number;
  /** Per kind, the most first (then by name). */
  readonly byKind: ReadonlyArray<{ readonly kind: IncidentKind } & CountRow>;
  /** Per rule, for the incidents that name one (a rule's, a rule that reads nothing), the most first. */
  readonly byRule: ReadonlyArray<{ readonly rule: string; readonly kind: IncidentKind } & CountRow>;
  /** Over the incidents acknowledged, open or resolved. */
  readonly timeToAcknowledge: Spread;
  /** Never acknowledged: resolved without one, or open and not (yet) acknowledged. */
  readonly notAcknowledged: { readonly resolved: number; readonly open: number };
  /** Over the resolved incidents with a recorded end: their durations. */
  readonly timeToResolve: Spread;
  /** Resolved without a recorded end (their networks or rule left the configuration): in no figure. */
  readonly resolvedWithoutEnd: number;
  /** The open incidents, apart: how long each has been open so far. */
  readonly openSoFar: Spread;
  /** Each incident's times, in the order given. */
  readonly incidents: readonly IncidentTimes[];
}

function countRows<K extends string>(
  times: readonly IncidentTimes[],
  keyOf: (t: IncidentTimes) => K | undefined,
): Array<{ key: K } & CountRow> {
  const rows = new Map<K, { key: K; count: number; open: number; resolved: number }>();
  for (const t of times) {
    const key = keyOf(t);
    if (key === undefined) continue;
    const row = rows.get(key) ?? { key, count: 0, open: 0, resolved: 0 };
    row.count += 1;
    if (t.state === 'resolved') row.resolved += 1;
    else row.open += 1;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

const defined = (values: ReadonlyArray<number | undefined>): number[] =>
  values.filter((v): v is number => v !== undefined);

/** The response figures of `views` (the caller picks them: a window, open ones only). */
export function responseStats(views: readonly IncidentView[], nowMs: number): ResponseStats {
  const incidents = views.map((v) => incidentTimes(v, nowMs));
  const open = incidents.filter((t) => t.state !== 'resolved');
  const resolved = incidents.filter((t) => t.state === 'resolved');
  return {
    percentiles: PERCENTILE_METHOD,
    count: incidents.length,
    open: open.length,
    resolved: resolved.length,
    byKind: countRows(incidents, (t) => t.kind).map(({ key, ...row }) => ({ kind: key, ...row })),
    byRule: countRows(incidents, (t) =>
      t.rule === undefined ? undefined : JSON.stringify([t.rule, t.kind]),
    ).map(({ key, ...row }) => {
      const [rule, kind] = JSON.parse(key) as [string, IncidentKind];
      return { rule, kind, ...row };
    }),
    timeToAcknowledge: spreadOf(defined(incidents.map((t) => t.timeToAcknowledgeMs))),
    notAcknowledged: {
      resolved: resolved.filter((t) => t.timeToAcknowledgeMs === undefined).length,
      open: open.filter((t) => t.timeToAcknowledgeMs === undefined).length,
    },
    timeToResolve: spreadOf(defined(resolved.map((t) => t.timeToResolveMs))),
    resolvedWithoutEnd: resolved.filter((t) => t.timeToResolveMs === undefined).length,
    openSoFar: spreadOf(defined(open.map((t) => t.openForMs))),
    incidents,
  };
}
