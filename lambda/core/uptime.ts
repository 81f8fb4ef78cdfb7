/**
 * Time-weighted uptime from the stored filter history: how long the filter was in each status and how much of
 * the time the protection API answered. Pure: the window's end comes in as a parameter, never from the clock.
 */

import type { FailureKind, Snapshot } from './types.ts';

/** Pseudo-status for monitored time during which no status could be read (any failed filter snapshot). */
export const UNREADABLE_STATUS = '(unreadable)';

/** The smallest default gap threshold: a few missed one-minute cycles are not yet a stopped monitor. */
export const MIN_DEFAULT_GAP_MS = 180_000;

/** Largest time a JavaScript Date can hold, in ms either side of the epoch. */
const MAX_DATE_MS = 8.64e15;

/** Failure kinds that mean the API did not answer usefully: no answer, 5xx or 429. */
const NOT_ANSWERED: ReadonlySet<FailureKind | undefined> = new Set(['transport', 'server', 'rate_limited']);

/** Uptime over one window. Every duration is in ms; every time is ISO-8601 UTC. */
export interface UptimeReport {
  /**
   * Start of the window actually covered: the later of `sinceMs` and the first snapshot. Time before the first
   * snapshot is outside the report, not a gap.
   */
  readonly from: string;
  /** End of the window: `untilMs`. `to - from` is `monitoredMs` plus the gaps. */
  readonly to: string;
  /** Time covered by snapshots; gaps excluded. */
  readonly monitoredMs: number;
  /**
   * Intervals with no snapshot for longer than the gap threshold (the monitor was not running), and intervals
   * held by a snapshot the operator cut short (no evidence about the API), clipped to the window, oldest first.
   * A trailing interval from the last snapshot to `untilMs` counts too.
   */
  readonly gaps: ReadonlyArray<{ readonly from: string; readonly to: string; readonly ms: number }>;
  /**
   * Time-weighted share of monitored time per filter status (exact, as read), largest first (ties by name);
   * time with a failed snapshot is counted under {@link UNREADABLE_STATUS}. Statuses held for 0 ms are left out.
   * Shares sum to 1 when `monitoredMs > 0`.
   */
  readonly statuses: ReadonlyArray<{ readonly status: string; readonly ms: number; readonly share: number }>;
  readonly availability: {
    /** Share of monitored time during which the API answered; 0 when nothing was monitored. */
    readonly share: number;
    /**
     * Monitored time held by snapshots that got an answer other than 5xx or 429 (errorKind not `transport`,
     * `server` or `rate_limited`). A rejected key or an unreadable body is still an answer.
     */
    readonly answeredMs: number;
    /** Filter snapshots observed inside the window, those cut short by the operator excepted. */
    readonly cycles: number;
    /** Of those, the ones that failed (`ok` false), whatever the reason. */
    readonly failedCycles: number;
    /** Failed cycles by `errorKind` (`unknown` when a failed snapshot has none); the counts sum to `failedCycles`. */
    readonly byKind: Readonly<Record<string, number>>;
    /**
     * Filter snapshots inside the window whose request the operator stopped (errorKind `cut_short`): counted
     * in neither `cycles` nor the shares; their time is a gap.
     */
    readonly cutShort: number;
  };
}

export interface UptimeOptions {
  /** End of the window, epoch ms (usually now). The last snapshot holds until then. */
  readonly untilMs: number;
  /**
   * Start of the window, epoch ms. The last snapshot before it holds into the window.
   * @default the first snapshot
   */
  readonly sinceMs?: number;
  /**
   * An interval between consecutive snapshots (or from the last one to `untilMs`) longer than this is a gap.
   * @default 3 × the median interval between snapshots, at least {@link MIN_DEFAULT_GAP_MS}
   */
  readonly gapMs?: number;
}

interface Timed {
  readonly ms: number;
  readonly snapshot: Snapshot;
}

/**
 * Computes the uptime report of the filter history `filterSnapshots` (oldest first; sorted again here, stably,
 * so an out-of-order page does no harm). Snapshots of networks and snapshots whose `at` does not parse are
 * ignored.
 *
 * Each snapshot holds from its `at` until the next snapshot's `at` (the last one until `untilMs`). An interval
 * longer than the gap threshold is a gap: it is excluded from monitored time entirely (the status before it is
 * not assumed to have lasted) and reported in `gaps`. So is the interval held by a snapshot the operator cut
 * short, which says nothing about the API. Intervals are then clipped to `[sinceMs, untilMs]`.
 *
 * Empty input gives zeros. Throws a RangeError only for options that are not usable times or durations.
 */
export function computeUptime(filterSnapshots: readonly Snapshot[], options: UptimeOptions): UptimeReport {
  const { untilMs, sinceMs } = options;
  checkTime('untilMs', untilMs);
  if (sinceMs !== undefined) checkTime('sinceMs', sinceMs);
  if (options.gapMs !== undefined && !(options.gapMs > 0 && Number.isFinite(options.gapMs))) {
    throw new RangeError(`gapMs must be a positive finite number of ms (got ${options.gapMs})`);
  }

  const timed: Timed[] = filterSnapshots
    .filter((snapshot) => snapshot.target?.kind === 'filter')
    .map((snapshot) => ({ ms: Date.parse(snapshot.at), snapshot }))
    .filter((entry) => Number.isFinite(entry.ms))
    .sort((a, b) => a.ms - b.ms);

  const first = timed[0];
  const fromMs = Math.max(sinceMs ?? Number.NEGATIVE_INFINITY, first?.ms ?? untilMs);
  if (first === undefined || fromMs >= untilMs) {
    return emptyReport(Math.min(fromMs, untilMs), untilMs, countCycles(timed, sinceMs, untilMs));
  }

  const gapMs = options.gapMs ?? defaultGapMs(timed);
  const byStatus = new Map<string, number>();
  const gaps: Array<{ from: string; to: string; ms: number }> = [];
  let monitoredMs = 0;
  let answeredMs = 0;

  for (let i = 0; i < timed.length; i++) {
    const start = timed[i]!.ms;
    const end = timed[i + 1]?.ms ?? Math.max(start, untilMs);
    const clippedStart = Math.max(start, fromMs);
    const clippedEnd = Math.min(end, untilMs);
    if (clippedEnd <= clippedStart) continue;
    const ms = clippedEnd - clippedStart;
    const snapshot = timed[i]!.snapshot;
    if (end - start > gapMs || isCutShort(snapshot)) {
      gaps.push({ from: iso(clippedStart), to: iso(clippedEnd), ms });
      continue;
    }
    monitoredMs += ms;
    const status = snapshot.ok && typeof snapshot.status === 'string' ? snapshot.status : UNREADABLE_STATUS;
    byStatus.set(status, (byStatus.get(status) ?? 0) + ms);
    if (apiAnswered(snapshot)) answeredMs += ms;
  }

  const statuses = [...byStatus]
    .map(([status, ms]) => ({ status, ms, share: ms / monitoredMs }))
    .sort((a, b) => b.ms - a.ms || (a.status < b.status ? -1 : a.status > b.status ? 1 : 0));

  return {
    from: iso(fromMs),
    to: iso(untilMs),
    monitoredMs,
    gaps,
    statuses,
    availability: {
      share: monitoredMs > 0 ? answeredMs / monitoredMs : 0,
      answeredMs,
      ...countCycles(timed, sinceMs, untilMs),
    },
  };
}

/** Whether the operator stopped this snapshot's request: no evidence about the API. */
function isCutShort(snapshot: Snapshot): boolean {
  return snapshot.errorKind === 'cut_short';
}

/** Whether the API gave an answer other than 5xx or 429. */
function apiAnswered(snapshot: Snapshot): boolean {
  if (snapshot.errorKind !== undefined) return !NOT_ANSWERED.has(snapshot.errorKind);
  if (typeof snapshot.httpStatus === 'number')
    return snapshot.httpStatus < 500 && snapshot.httpStatus !== 429;
  return snapshot.ok;
}

/** Cycle counts of the snapshots observed inside `[sinceMs, untilMs]`. */
function countCycles(timed: readonly Timed[], sinceMs: number | undefined, untilMs: number): Counts {
  let cycles = 0;
  let failedCycles = 0;
  let cutShort = 0;
  const byKind: Record<string, number> = {};
  for (const { ms, snapshot } of timed) {
    if (ms > untilMs || (sinceMs !== undefined && ms < sinceMs)) continue;
    if (isCutShort(snapshot)) {
      cutShort += 1;
      continue;
    }
    cycles += 1;
    if (snapshot.ok) continue;
    failedCycles += 1;
    const kind = snapshot.errorKind ?? 'unknown';
    byKind[kind] = (byKind[kind] ?? 0) + 1;
  }
  return { cycles, failedCycles, byKind, cutShort };
}

interface Counts {
  cycles: number;
  failedCycles: number;
  byKind: Record<string, number>;
  cutShort: number;
}

/** 3 × the median of the positive intervals between snapshots, at least {@link MIN_DEFAULT_GAP_MS}. */
function defaultGapMs(timed: readonly Timed[]): number {
  const intervals: number[] = [];
  for (let i = 1; i < timed.length; i++) {
    const interval = timed[i]!.ms - timed[i - 1]!.ms;
    if (interval > 0) intervals.push(interval);
  }
  if (intervals.length === 0) return MIN_DEFAULT_GAP_MS;
  intervals.sort((a, b) => a - b);
  const mid = intervals.length >> 1;
  const median = intervals.length % 2 === 1 ? intervals[mid]! : (intervals[mid - 1]! + intervals[mid]!) / 2;
  return Math.max(MIN_DEFAULT_GAP_MS, 3 * median);
}

function emptyReport(fromMs: number, untilMs: number, counts: Counts): UptimeReport {
  return {
    from: iso(fromMs),
    to: iso(untilMs),
    monitoredMs: 0,
    gaps: [],
    statuses: [],
    availability: { share: 0, answeredMs: 0, ...counts },
  };
}

function checkTime(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > MAX_DATE_MS) {
    throw new RangeError(`${name} must be a time in epoch ms (got ${value})`);
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
