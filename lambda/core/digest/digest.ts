/**
 * The digest (CONTRACT §19, issue 35): one period at a glance for those who do not watch the alerts. Built from
 * what the store already holds, read elsewhere: the one listing of incidents ({@link IncidentView}), the filter
 * snapshots, the silences and maintenance-window occurrences (`SilenceStore.list()`), and the period. Pure: the
 * period's end is the digest's "now"; no clock, no store, no environment. The texts live apart
 * (`digest-text.ts`, `digest-html.ts`), so the CLI and the stack's `monitor.digest` render the same object.
 *
 * - Incidents opened in the period: `openedAt` in [since, until]; resolved in the period: `resolvedAt` in it.
 * - The period's incidents (for the response times and the worst networks): those opened or resolved in the
 *   period, and those still open at its end whatever their age; the response figures are
 *   {@link responseStats} over them (nearest-rank median, worst).
 * - Filter statuses and API availability: {@link computeUptime} over the period (each snapshot holds until the
 *   next one: time-weighted; gaps in the monitoring are left out of the shares).
 * - Silences and windows: every silence or window occurrence that overlaps the period.
 */

import type { IncidentKind } from '../incidents/incident-kinds.ts';
import type { IncidentView } from '../incidents/incident-list-view.ts';
import { responseStats } from '../incidents/response-times.ts';
import type { Silence } from '../silences/silence-window.ts';
import type { Snapshot } from '../types.ts';
import { computeUptime } from '../uptime.ts';

/** How many networks the digest names per rule. */
export const DIGEST_WORST_NETWORKS = 5;

/** Failure kinds of a cycle whose filter request got no answer (as `uptime.ts` counts them). */
const NOT_ANSWERED = ['transport', 'server', 'rate_limited'] as const;

/** What a digest is built from. */
export interface DigestInput {
  /** The listing (`listIncidents` / `readIncidentListing`), read with `since` the period's start. */
  readonly incidents: readonly IncidentView[];
  /**
   * The filter snapshots of the period and the last one before it, which holds into the period until the
   * first one in it (others are ignored).
   */
  readonly snapshots: readonly Snapshot[];
  /** Silences and window occurrences as `SilenceStore.list()` returns them. */
  readonly silences: readonly Silence[];
  /** The period, ISO-8601; `until` is the digest's "now". */
  readonly since: string;
  readonly until: string;
}

/** Opened and resolved in the period, for one kind or one rule. */
export interface DigestCount {
  readonly opened: number;
  readonly resolved: number;
}

/** The median and the worst of one response time (ms), over `count` incidents; null when none. */
export interface DigestSpread {
  readonly count: number;
  readonly medianMs: number | null;
  readonly worstMs: number | null;
}

/** A network's worst peak under one rule in the period. */
export interface DigestPeak {
  readonly network: string;
  readonly peak: number;
  readonly peakAt?: string;
  /** The incident the peak was recorded in. */
  readonly incident: string;
}

/** One silence or maintenance-window occurrence that overlaps the period. */
export interface DigestSilence {
  readonly id: string;
  /** `maintenance`: an occurrence of a window (stored, or declared in context); `silence`: `silence --for`. */
  readonly kind: 'silence' | 'maintenance';
  readonly startsAt: string;
  readonly endsAt: string;
  readonly pattern: string;
  readonly reason?: string;
  readonly repeat?: string;
  /** `context`: a window declared in the stack's context `maintenance` (the `maintenance` setting). */
  readonly source?: 'context';
}

/** The period at a glance (`shieldwatch digest --format json`, the stack's `monitor.digest`). */
export interface Digest {
  readonly since: string;
  readonly until: string;
  readonly incidents: {
    readonly opened: number;
    readonly resolved: number;
    /** Open (acknowledged or not) at the period's end, whenever they opened. */
    readonly openAtEnd: number;
    /** Per kind, the most opened first (then by name); kinds with nothing in the period left out. */
    readonly byKind: ReadonlyArray<{ readonly kind: IncidentKind } & DigestCount>;
    /** Per rule (incidents that name one), the most opened first. */
    readonly byRule: ReadonlyArray<{ readonly rule: string; readonly kind: IncidentKind } & DigestCount>;
  };
  /** Per rule, its networks with the highest numeric peaks in the period (at most {@link DIGEST_WORST_NETWORKS}). */
  readonly worstNetworks: ReadonlyArray<{ readonly rule: string; readonly networks: readonly DigestPeak[] }>;
  readonly response: {
    /** Over the period's incidents acknowledged: from the opening to the first acknowledgement. */
    readonly timeToAcknowledge: DigestSpread;
    /** Over the period's incidents resolved with a recorded end: their durations. */
    readonly timeToResolve: DigestSpread;
    /** The period's incidents never acknowledged. */
    readonly notAcknowledged: number;
  };
  /** Time-weighted share of each filter status over the monitored time of the period, largest first. */
  readonly filter: {
    readonly monitoredMs: number;
    /** Time of the period with no snapshot for longer than the gap threshold (the monitor was not running). */
    readonly notMonitoredMs: number;
    readonly statuses: ReadonlyArray<{
      readonly status: string;
      readonly ms: number;
      readonly share: number;
    }>;
  };
  readonly availability: {
    /** Filter cycles in the period (those cut short by the operator excepted). */
    readonly cycles: number;
    /** Of those, the ones whose filter request got an answer (anything but transport failure, 5xx, 429). */
    readonly answeredCycles: number;
    /** `answeredCycles / cycles`; null with no cycle. */
    readonly share: number | null;
    /** The share of monitored time the API answered (as `shieldwatch uptime` gives it); null with none. */
    readonly timeShare: number | null;
    /** Failed cycles by kind (a rejected key or unreadable body failed but was answered). */
    readonly failedByKind: Readonly<Record<string, number>>;
  };
  /** Silences and window occurrences overlapping the period, by start. */
  readonly silences: readonly DigestSilence[];
}

const ms = (iso: string | undefined): number => (iso === undefined ? Number.NaN : Date.parse(iso));

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function counts<K extends string>(
  opened: readonly IncidentView[],
  resolved: readonly IncidentView[],
  keyOf: (v: IncidentView) => K | undefined,
): Array<{ key: K } & DigestCount> {
  const rows = new Map<K, { key: K; opened: number; resolved: number }>();
  const add = (v: IncidentView, field: 'opened' | 'resolved') => {
    const key = keyOf(v);
    if (key === undefined) return;
    const row = rows.get(key) ?? { key, opened: 0, resolved: 0 };
    row[field] += 1;
    rows.set(key, row);
  };
  for (const v of opened) add(v, 'opened');
  for (const v of resolved) add(v, 'resolved');
  return [...rows.values()].sort(
    (a, b) => b.opened - a.opened || b.resolved - a.resolved || byName(a.key, b.key),
  );
}

function worstNetworks(
  views: readonly IncidentView[],
  sinceMs: number,
  untilMs: number,
): Digest['worstNetworks'] {
  const perRule = new Map<string, Map<string, DigestPeak>>();
  for (const view of views) {
    if (view.rule === undefined) continue;
    for (const n of view.networks) {
      if (typeof n.peak !== 'number' || !Number.isFinite(n.peak)) continue;
      // A peak recorded before the period (an incident open across its start) is not the period's.
      const at = ms(n.peakAt);
      if (Number.isFinite(at) && (at < sinceMs || at > untilMs)) continue;
      const networks = perRule.get(view.rule) ?? new Map<string, DigestPeak>();
      const best = networks.get(n.network);
      if (best === undefined || n.peak > best.peak) {
        networks.set(n.network, {
          network: n.network,
          peak: n.peak,
          ...(n.peakAt === undefined ? {} : { peakAt: n.peakAt }),
          incident: view.id,
        });
      }
      perRule.set(view.rule, networks);
    }
  }
  return [...perRule]
    .map(([rule, networks]) => ({
      rule,
      networks: [...networks.values()]
        .sort((a, b) => b.peak - a.peak || byName(a.network, b.network))
        .slice(0, DIGEST_WORST_NETWORKS),
    }))
    .sort((a, b) => byName(a.rule, b.rule));
}

function silencesOf(silences: readonly Silence[], sinceMs: number, untilMs: number): DigestSilence[] {
  const seen = new Set<string>();
  const out: DigestSilence[] = [];
  for (const s of silences) {
    const start = ms(s.startsAt);
    const end = ms(s.endsAt);
    if (!Number.isFinite(start) || !Number.isFinite(end) || start >= untilMs || end <= sinceMs) continue;
    const key = `${s.id} ${s.startsAt}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({
      id: s.id,
      kind: s.window === undefined ? 'silence' : 'maintenance',
      startsAt: s.startsAt,
      endsAt: s.endsAt,
      pattern: s.pattern,
      ...(s.reason === undefined ? {} : { reason: s.reason }),
      ...(s.window?.repeat === undefined ? {} : { repeat: s.window.repeat }),
      ...(s.window?.source === undefined ? {} : { source: s.window.source }),
    });
  }
  return out.sort((a, b) => ms(a.startsAt) - ms(b.startsAt) || byName(a.id, b.id));
}

/** The digest of the period `[input.since, input.until]`. Throws a RangeError for a period that is not one. */
export function buildDigest(input: DigestInput): Digest {
  const sinceMs = ms(input.since);
  const untilMs = ms(input.until);
  if (!Number.isFinite(sinceMs) || !Number.isFinite(untilMs) || sinceMs > untilMs) {
    throw new RangeError(`not a period: ${input.since} .. ${input.until}`);
  }
  const inPeriod = (iso: string | undefined) => {
    const t = ms(iso);
    return Number.isFinite(t) && t >= sinceMs && t <= untilMs;
  };
  const opened = input.incidents.filter((v) => inPeriod(v.openedAt));
  const resolved = input.incidents.filter((v) => v.state === 'resolved' && inPeriod(v.resolvedAt));
  // Open at the period's end: opened by then and not resolved by then (a digest sent late, of a period that ended
  // before now, counts an incident resolved since as open at its end, as it was).
  const openAtEnd = input.incidents.filter(
    (v) => ms(v.openedAt) <= untilMs && (v.state !== 'resolved' || ms(v.resolvedAt) > untilMs),
  );
  const ofPeriod = input.incidents.filter(
    (v) => opened.includes(v) || resolved.includes(v) || openAtEnd.includes(v),
  );

  const stats = responseStats(ofPeriod, untilMs);
  const spread = (s: { count: number; medianMs: number | null; worstMs: number | null }): DigestSpread => ({
    count: s.count,
    medianMs: s.medianMs,
    worstMs: s.worstMs,
  });

  const uptime = computeUptime(input.snapshots, { sinceMs, untilMs });
  const a = uptime.availability;
  const unanswered = NOT_ANSWERED.reduce((n, kind) => n + (a.byKind[kind] ?? 0), 0);
  const answeredCycles = a.cycles - unanswered;

  return {
    since: new Date(sinceMs).toISOString(),
    until: new Date(untilMs).toISOString(),
    incidents: {
      opened: opened.length,
      resolved: resolved.length,
      openAtEnd: openAtEnd.length,
      byKind: counts(opened, resolved, (v) => v.kind).map(({ key, ...row }) => ({ kind: key, ...row })),
      byRule: counts(opened, resolved, (v) =>
        v.rule === undefined ? undefined : JSON.stringify([v.rule, v.kind]),
      ).map(({ key, ...row }) => {
        const [rule, kind] = JSON.parse(key) as [string, IncidentKind];
        return { rule, kind, ...row };
      }),
    },
    worstNetworks: worstNetworks(ofPeriod, sinceMs, untilMs),
    response: {
      timeToAcknowledge: spread(stats.timeToAcknowledge),
      timeToResolve: spread(stats.timeToResolve),
      notAcknowledged: stats.notAcknowledged.open + stats.notAcknowledged.resolved,
    },
    filter: {
      monitoredMs: uptime.monitoredMs,
      notMonitoredMs: uptime.gaps.reduce((n, g) => n + g.ms, 0),
      statuses: uptime.statuses,
    },
    availability: {
      cycles: a.cycles,
      answeredCycles,
      share: a.cycles === 0 ? null : answeredCycles / a.cycles,
      timeShare: uptime.monitoredMs === 0 ? null : a.share,
      failedByKind: a.byKind,
    },
    silences: silencesOf(input.silences, sinceMs, untilMs),
  };
}
