/**
 * The report's data (docs/report.md): what the page shows, prepared from what the store returns.
 * Pure: no store, no clock, no environment; the command hands in snapshots, events and the times.
 */

import { type AlertLevel, alertAction, alertLevel } from '../core/alerts/alert-documents.ts';
import { formatDuration } from '../core/alerts/alert-text.ts';
import { figureCandidates, pickFigures } from '../core/detect/figures.ts';
import { displayStatus } from '../core/detect/status.ts';
import type { IncidentView } from '../core/incidents/incident-list.ts';
import { type ResponseStats, responseStats } from '../core/incidents/response-times.ts';
import type { Rule } from '../core/rules/rule-types.ts';
import { type Silence, silenceStatus } from '../core/silences/silence-window.ts';
import type { AlertRecord, Snapshot } from '../core/types.ts';
import { computeUptime, UNREADABLE_STATUS, type UptimeReport } from '../core/uptime.ts';
import type { StoredEvent } from '../ports.ts';
import { type ChartPanel, chartPanels, ruleApplies } from './charts.ts';
import {
  inReport,
  type PeakWatch,
  peakWatches,
  type ReportIncident,
  reportIncidents,
  rulesOf,
  withObservedPeaks,
} from './incidents.ts';
import { type ChartRows, SeriesReducer, type SeriesReducerOptions } from './series.ts';
import { type FigureUnit, unitOf } from './units.ts';

/** Most figures drawn per network when none are configured (the first numeric fields, ids and times left out). */
export const MAX_CHART_FIGURES = 6;
/** Most event rows in the table: the newest are kept, and the page says how many were left out. */
export const MAX_EVENT_ROWS = 2000;
/** Bodies looked at to choose the figures of a network: twice this at first, then this many per doubling. */
const FIGURE_SAMPLE = 40;

/** One stretch of the status band. */
export interface StatusInterval {
  /** Epoch ms. */
  readonly from: number;
  readonly to: number;
  /** The status as read (exact), {@link UNREADABLE_STATUS}, or `null`: not monitored (no snapshot, a gap). */
  readonly status: string | null;
}

/** One row of the events table. */
export interface EventRow {
  readonly at: string;
  readonly event: string;
  /** `change` (status changes), `rule` (traffic rules), `incident` (API and readability), `other`. */
  readonly family: 'change' | 'rule' | 'incident' | 'other';
  /** What happened, in words: `"active" -> "mitigating"`, the rule and its value, the detail, other fields. */
  readonly summary: string;
  /** The network of a rule alert. */
  readonly network?: string;
  /** Set when the alert was suppressed (a silence), with the silence when known. */
  readonly suppressed?: string;
  /** The severity the alert had (docs/channels.md, The `sqs` document: `level`), or `resolved` when it closes an incident: its colour. */
  readonly level: AlertLevel | 'resolved';
}

/** A rule alert drawn on its network's chart. */
export interface ChartMark {
  /** Epoch ms. */
  readonly at: number;
  readonly event: string;
  /** e.g. `pps triggered: 90000 > 50000`. */
  readonly label: string;
}

/** One network's chart. */
export interface NetworkChart {
  readonly id: string;
  /** Dot paths of the figures drawn, one series each. */
  readonly fields: string[];
  readonly rows: ChartRows;
  /** The charts drawn: one per unit, with the rules' thresholds ({@link chartPanels}). */
  readonly panels: ChartPanel[];
  /** The unit of each figure. */
  readonly units: FigureUnit[];
  /** Snapshots in the window, and how many of them failed (no figures). */
  readonly snapshots: number;
  readonly failed: number;
  /** True when the rows are min/max per bucket rather than every snapshot. */
  readonly downsampled: boolean;
  readonly marks: ChartMark[];
}

/** A silence (or a maintenance window's occurrence) shown in the present (CONTRACT §15, Quiet times). */
export interface PresentSilence {
  readonly id: string;
  readonly pattern: string;
  readonly reason: string | null;
  /** ISO-8601. */
  readonly startsAt: string;
  readonly endsAt: string;
  /** True while it holds; false for the next one, still to start. */
  readonly active: boolean;
}

/**
 * The present, the page's first lines: the filter status now, the open incidents (acknowledged ones too) or since
 * when all is clear, and the silences that hold now (and the next one).
 */
export interface Present {
  /** The last status seen in the window and since when (epoch ms); null without filter snapshots. */
  readonly status: string | null;
  readonly statusSince: number | null;
  /** True when an expected status is set and the status is another. */
  readonly away: boolean;
  readonly open: ReportIncident[];
  /** No open incident: when the last incident of the window resolved (epoch ms); null when there was none. */
  readonly allClearSince: number | null;
  /** The silences active when the report was made, the soonest to end first, then the next one to start. */
  readonly silences: PresentSilence[];
}

/** Everything the page shows. */
export interface ReportData {
  /** When it was made, ISO-8601. */
  readonly generatedAt: string;
  /** The table it was read from (the store's location is not shown: the page is meant to be mailed). */
  readonly table: string;
  /** The window asked for, ISO-8601. */
  readonly since: string;
  readonly until: string;
  /** The window shown: from the first data in the window (or `since`) to `until`, epoch ms. */
  readonly fromMs: number;
  readonly toMs: number;
  /** The same figures as `shieldwatch uptime` for the window; null without filter snapshots. */
  readonly uptime: UptimeReport | null;
  readonly band: StatusInterval[];
  /**
   * Statuses in the legend's order (longest held first; the expected one first when set). Their colours do
   * not depend on it: each has its own (status-colours.ts).
   */
  readonly statuses: string[];
  readonly expected?: string;
  /** Times of the confirmed status changes (filter.status_changed), epoch ms, with their texts. */
  readonly changes: Array<{ readonly at: number; readonly label: string }>;
  readonly events: EventRow[];
  /** Events in the window (the table keeps the newest {@link MAX_EVENT_ROWS}). */
  readonly eventCount: number;
  readonly networks: NetworkChart[];
  /** The incidents of the window, open ones first, then newest first. */
  readonly incidents: ReportIncident[];
  /** How fast the team answered them (the figures of `incidents --stats`); absent without the listing. */
  readonly response?: ResponseStats;
  readonly present: Present;
}

/** What {@link prepareReport} needs: the store's answers and the request. */
export interface ReportInput {
  readonly generatedAt: string;
  readonly table: string;
  readonly since: string;
  readonly until: string;
  /** Filter snapshots of the window, oldest first. */
  readonly filter: readonly Snapshot[];
  readonly events: readonly StoredEvent[];
  /**
   * The one listing of incidents (`readIncidentListing`, CONTRACT §15): the report shows those open and those
   * of the window ({@link reportIncidents}). @default []
   */
  readonly incidents?: readonly IncidentView[];
  /** Every stored silence (`DynamoSilenceStore.list`): those active now are shown in the present. @default [] */
  readonly silences?: readonly Silence[];
  /**
   * Each network's snapshots of the window, oldest first; or its chart already reduced from them as they
   * were read ({@link NetworkChartReducer}, made with the window's end as `endMs`), as `shieldwatch report` does.
   */
  readonly networks: ReadonlyArray<
    { readonly id: string; readonly snapshots: readonly Snapshot[] } | NetworkChartReducer
  >;
  /** The `figureFields` setting when set: drawn first, before the other numeric fields of the bodies. */
  readonly figureFields?: readonly string[];
  readonly expected?: string;
  /** The `rules` setting when set: their thresholds are drawn (besides the rules the events carry). */
  readonly rules?: readonly Rule[];
  /** The `figureUnits` setting: units of figures whose names say none ({@link unitOf}). */
  readonly units?: ReadonlyMap<string, FigureUnit>;
}

/** What the window's events and the listing decide before the networks are read: the rules, the incidents, the peaks to watch. */
export interface ReportPlan {
  readonly rules: Rule[];
  readonly incidents: ReportIncident[];
  /** The figure fields to follow on a network: the configured ones, then the paths of its rules. */
  fieldsFor(network: string): string[] | undefined;
  /** The windows of a network whose extremes give its incidents' peaks. */
  watchesFor(network: string): PeakWatch[];
}

/** See {@link ReportPlan}; the same for `shieldwatch report` (reading page by page) and {@link prepareReport}. */
export function planReport(
  events: readonly StoredEvent[],
  options: {
    readonly since: string;
    readonly until: string;
    readonly rules?: readonly Rule[];
    readonly figureFields?: readonly string[];
    readonly incidents?: readonly IncidentView[];
  },
): ReportPlan {
  const byName = rulesOf(events, options.rules);
  const rules = [...byName.values()];
  const window = { sinceMs: Date.parse(options.since), untilMs: Date.parse(options.until) };
  const incidents = reportIncidents(options.incidents ?? [], window, byName);
  const watches = peakWatches(incidents, window);
  return {
    rules,
    incidents,
    fieldsFor(network) {
      const paths = rules.filter((rule) => ruleApplies(rule, network)).map((rule) => rule.path);
      const fields = [...new Set([...(options.figureFields ?? []), ...paths])];
      return fields.length === 0 ? undefined : fields;
    },
    watchesFor: (network) => watches.filter((w) => w.network === network),
  };
}

/** The report's data: uptime exactly as `shieldwatch uptime` computes it, the band, the events, the charts. */
export function prepareReport(input: ReportInput): ReportData {
  const sinceMs = Date.parse(input.since);
  const untilMs = Date.parse(input.until);
  const uptime =
    input.filter.length === 0 ? null : computeUptime(input.filter, { sinceMs, untilMs: untilMs });
  const plan = planReport(input.events, input);
  const reducers = input.networks.map((network) => {
    if (network instanceof NetworkChartReducer) return network;
    const reducer = new NetworkChartReducer(
      network.id,
      plan.fieldsFor(network.id),
      { endMs: untilMs },
      plan.watchesFor(network.id),
    );
    for (const snapshot of network.snapshots) reducer.add(snapshot);
    return reducer;
  });
  const observed = new Map(reducers.flatMap((reducer) => [...reducer.peaks]));
  const units = (path: string) => unitOf(path, input.units);
  const incidents = withObservedPeaks(plan.incidents, observed).map((incident) =>
    incident.path === undefined ? incident : { ...incident, unit: units(incident.path) },
  );
  let firstData = Number.POSITIVE_INFINITY;
  for (const { at } of [input.filter[0], input.events[0]].filter((item) => item !== undefined)) {
    const ms = Date.parse(at);
    if (ms < firstData) firstData = ms;
  }
  for (const reducer of reducers) firstData = Math.min(firstData, reducer.firstMs);
  const fromMs = Number.isFinite(firstData) ? Math.min(untilMs, Math.max(sinceMs, firstData)) : sinceMs;
  const marks = ruleMarks(input.events);
  const rows = eventRows(input.events);
  const band = statusIntervals(input.filter, uptime, fromMs, untilMs);
  return {
    generatedAt: input.generatedAt,
    table: input.table,
    since: input.since,
    until: input.until,
    fromMs,
    toMs: untilMs,
    uptime,
    band,
    statuses: statusOrder(uptime, input.expected),
    ...(input.expected === undefined ? {} : { expected: input.expected }),
    changes: input.events
      .filter((e) => e.event === 'filter.status_changed')
      .map((e) => ({ at: Date.parse(e.at), label: `${quoted(e.from)} -> ${quoted(e.to)}` })),
    events: rows.slice(-MAX_EVENT_ROWS),
    eventCount: rows.length,
    networks: reducers.map((reducer) => reducer.chart(marks.get(reducer.id) ?? [], units, plan.rules)),
    incidents,
    ...(input.incidents === undefined
      ? {}
      : {
          response: responseStats(
            input.incidents.filter((view) => inReport(view, { sinceMs, untilMs })),
            untilMs,
          ),
        }),
    present: {
      ...presentOf(band, incidents, input.expected),
      silences: presentSilences(input.silences ?? [], Date.parse(input.generatedAt)),
    },
  };
}

/** The silences active at `nowMs`, the soonest to end first, then the next one to start (if any). */
export function presentSilences(silences: readonly Silence[], nowMs: number): PresentSilence[] {
  const shown = (silence: Silence, active: boolean): PresentSilence => ({
    id: silence.id,
    pattern: silence.pattern,
    reason: silence.reason ?? null,
    startsAt: silence.startsAt,
    endsAt: silence.endsAt,
    active,
  });
  const byStatus = (status: 'active' | 'pending') =>
    silences.filter((s) => silenceStatus(s, nowMs) === status);
  const active = byStatus('active').sort(
    (a, b) => a.endsAt.localeCompare(b.endsAt) || a.id.localeCompare(b.id),
  );
  const next = byStatus('pending').sort(
    (a, b) => a.startsAt.localeCompare(b.startsAt) || a.id.localeCompare(b.id),
  )[0];
  return [...active.map((s) => shown(s, true)), ...(next === undefined ? [] : [shown(next, false)])];
}

/** The page's first lines ({@link Present}): the last status seen, the open incidents, or since when all is clear. */
export function presentOf(
  band: readonly StatusInterval[],
  incidents: readonly ReportIncident[],
  expected: string | undefined,
): Omit<Present, 'silences'> {
  const last = [...band].reverse().find((interval) => interval.status !== null);
  let since: number | null = last === undefined ? null : last.from;
  // The status's stretch may be cut by gaps and unreadable reads: it holds since the first of the same status.
  if (last !== undefined) {
    for (let i = band.indexOf(last) - 1; i >= 0; i--) {
      const status = band[i]!.status;
      if (status === last.status) since = band[i]!.from;
      else if (status !== null && status !== UNREADABLE_STATUS) break;
    }
  }
  const open = incidents.filter((incident) => incident.state !== 'resolved');
  const resolved = incidents
    .map((incident) => (incident.resolvedAt === null ? Number.NaN : Date.parse(incident.resolvedAt)))
    .filter((ms) => Number.isFinite(ms));
  const status = last?.status ?? null;
  return {
    status,
    statusSince: since,
    away: expected !== undefined && status !== null && status !== UNREADABLE_STATUS && status !== expected,
    open,
    allClearSince: open.length > 0 || resolved.length === 0 ? null : Math.max(...resolved),
  };
}

/**
 * The status band over `[fromMs, untilMs]`: each snapshot's status holds until the next snapshot (the last
 * until `untilMs`), as in `shieldwatch uptime`; the uptime report's gaps (and the time before the first
 * snapshot) are not monitored (`null`); a failed snapshot is {@link UNREADABLE_STATUS}. Neighbours with the
 * same status are merged; the stretches cover the window without overlap, oldest first.
 */
export function statusIntervals(
  filter: readonly Snapshot[],
  uptime: UptimeReport | null,
  fromMs: number,
  untilMs: number,
): StatusInterval[] {
  const timed = filter
    .map((snapshot) => ({ ms: Date.parse(snapshot.at), snapshot }))
    .filter((t) => Number.isFinite(t.ms))
    .sort((a, b) => a.ms - b.ms);
  const gaps = (uptime?.gaps ?? []).map((g) => ({ from: Date.parse(g.from), to: Date.parse(g.to) }));
  const out: StatusInterval[] = [];
  const add = (from: number, to: number, status: string | null) => {
    if (to <= from) return;
    const last = out[out.length - 1];
    if (last !== undefined && last.status === status && last.to === from) {
      out[out.length - 1] = { from: last.from, to, status };
    } else {
      out.push({ from, to, status });
    }
  };
  add(fromMs, Math.min(untilMs, timed[0]?.ms ?? untilMs), null);
  for (let i = 0; i < timed.length; i++) {
    const start = Math.max(fromMs, timed[i]!.ms);
    const end = Math.min(untilMs, timed[i + 1]?.ms ?? untilMs);
    if (end <= start) continue;
    const { snapshot } = timed[i]!;
    const inGap = gaps.some((g) => g.from <= start && end <= g.to);
    const status = snapshot.ok && typeof snapshot.status === 'string' ? snapshot.status : UNREADABLE_STATUS;
    add(start, end, inGap ? null : status);
  }
  return out;
}

/** The statuses in legend order: the expected one first when set, then by time held, longest first. */
function statusOrder(uptime: UptimeReport | null, expected: string | undefined): string[] {
  const held = (uptime?.statuses ?? []).map((s) => s.status).filter((s) => s !== UNREADABLE_STATUS);
  return expected === undefined ? held : [expected, ...held.filter((s) => s !== expected)];
}

/** A share as `shieldwatch uptime` prints it: one decimal at 0 and from 99.95%, two otherwise. */
export function formatShare(share: number): string {
  return `${(share * 100).toFixed(share >= 0.9995 || share === 0 ? 1 : 2)}%`;
}

/** The uptime as rows of text: status, share, time, as `shieldwatch uptime` shows them. */
export function uptimeRows(uptime: UptimeReport): Array<{ status: string; share: string; time: string }> {
  return uptime.statuses.map((s) => ({
    status: s.status === UNREADABLE_STATUS ? s.status : displayStatus(s.status),
    share: formatShare(s.share),
    time: formatDuration(s.ms),
  }));
}

const quoted = (status: string | undefined) =>
  status === undefined ? '?' : JSON.stringify(displayStatus(status));

/** Fields of a stored event that its summary already says, or that are bookkeeping. */
const SHOWN_FIELDS = new Set([
  'at',
  'event',
  'seq',
  'from',
  'to',
  'detail',
  'rule',
  'network',
  'value',
  // The row's colour says the severity; the incidents table pairs the start with the end.
  'severity',
  'previousSince',
]);
const SHOWN_FIELDS_RULE = new Set([...SHOWN_FIELDS, 'threshold', 'ruleText', 'values']);
const SUPPRESSION_FIELDS = new Set(['suppressedBy', 'suppressed', 'silence', 'silenceId']);

/** Reads a field that today's {@link StoredEvent} may not have yet (rule alerts, silences): defensively. */
function field(event: StoredEvent, name: string): unknown {
  return (event as unknown as Record<string, unknown>)[name];
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * The events table: one row per stored event, of any kind (an unknown kind is listed with its fields), oldest
 * first. Rule alerts name their rule, network and value against the threshold; a suppressed alert says so.
 */
export function eventRows(events: readonly StoredEvent[]): EventRow[] {
  return events.map((event) => {
    const name = String(event.event);
    const network = text(field(event, 'network'));
    const rule = text(field(event, 'rule'));
    const isRule = name.startsWith('network.') || rule !== undefined;
    const parts: string[] = [];
    if (event.from !== undefined || event.to !== undefined)
      parts.push(`${quoted(event.from)} -> ${quoted(event.to)}`);
    if (isRule) parts.push(ruleText(event));
    if (event.detail !== undefined) parts.push(event.detail);
    const skip = isRule ? SHOWN_FIELDS_RULE : SHOWN_FIELDS;
    for (const [key, value] of Object.entries(event)) {
      if (skip.has(key) || SUPPRESSION_FIELDS.has(key)) continue;
      const shown = text(value);
      if (shown !== undefined) parts.push(`${key} ${shown}`);
    }
    const suppressed = suppression(event);
    return {
      at: event.at,
      event: name,
      family:
        name === 'filter.status_changed'
          ? 'change'
          : isRule
            ? 'rule'
            : /^(api\.|filter\.status_(un)?readable)/.test(name)
              ? 'incident'
              : 'other',
      summary: parts.join('; '),
      level:
        alertAction(event as unknown as AlertRecord) === 'resolve'
          ? 'resolved'
          : alertLevel(event as unknown as AlertRecord),
      ...(network === undefined ? {} : { network }),
      ...(suppressed === undefined ? {} : { suppressed }),
    };
  });
}

/** `pps triggered: 90000 > 50000` style words for a rule alert, from whatever fields it has. */
function ruleText(event: StoredEvent): string {
  const rule = text(field(event, 'rule')) ?? '(rule)';
  const value = text(field(event, 'value'));
  const threshold = text(field(event, 'threshold'));
  const verb = event.event === 'network.rule_resolved' ? 'resolved' : 'triggered';
  const network = text(field(event, 'network'));
  const figures =
    value === undefined ? '' : threshold === undefined ? `: ${value}` : `: ${value} against ${threshold}`;
  return `${network === undefined ? '' : `network ${network}: `}rule ${rule} ${verb}${figures}`;
}

/** How an event says it was suppressed, if it does: `suppressed` true, or a silence id. */
function suppression(event: StoredEvent): string | undefined {
  const silence = event.suppressedBy ?? text(field(event, 'silence')) ?? text(field(event, 'silenceId'));
  const flag = field(event, 'suppressed');
  if (silence !== undefined) return `silence ${silence}`;
  if (flag === true) return 'suppressed';
  if (typeof flag === 'string' && flag !== '') return flag;
  return undefined;
}

/** Rule alerts by network: the events that name a network, as marks for that network's chart. */
export function ruleMarks(events: readonly StoredEvent[]): Map<string, ChartMark[]> {
  const byNetwork = new Map<string, ChartMark[]>();
  for (const event of events) {
    const network = text(field(event, 'network'));
    const at = Date.parse(event.at);
    if (network === undefined || !Number.isFinite(at)) continue;
    const value = text(field(event, 'value'));
    const threshold = text(field(event, 'threshold'));
    const rule = text(field(event, 'rule')) ?? String(event.event);
    const verb =
      event.event === 'network.rule_resolved'
        ? 'resolved'
        : event.event === 'network.rule_triggered'
          ? 'triggered'
          : String(event.event);
    const figures =
      value === undefined ? '' : threshold === undefined ? `: ${value}` : `: ${value} vs ${threshold}`;
    const list = byNetwork.get(network) ?? [];
    list.push({ at, event: String(event.event), label: `${rule} ${verb}${figures}` });
    byNetwork.set(network, list);
  }
  return byNetwork;
}

/**
 * One network's chart from its snapshots (all at hand): see {@link NetworkChartReducer}, which the report
 * feeds page by page instead.
 */
export function networkChart(
  id: string,
  snapshots: readonly Snapshot[],
  configured: readonly string[] | undefined,
  marks: ChartMark[],
  options: SeriesReducerOptions = {},
  rules: readonly Rule[] = [],
): NetworkChart {
  const reducer = new NetworkChartReducer(id, configured, options);
  for (const snapshot of snapshots) reducer.add(snapshot);
  return reducer.chart(marks, (path) => unitOf(path), rules);
}

/** Most candidate figure fields followed per network while reading (each costs one column of buckets). */
export const MAX_TRACKED_FIGURES = 64;

/**
 * One network's chart, reduced as its snapshots are read (docs/report.md, large histories): each body is
 * parsed, its figures taken and dropped at once, so what is held is bounded by {@link MAX_TRACKED_FIGURES}
 * columns of display buckets ({@link SeriesReducer}), not by the history.
 *
 * The figures drawn are the configured figure fields, then the numeric fields the bodies have in common (ids
 * and times left out), at most {@link MAX_CHART_FIGURES} unless more are configured. "In common": suggested
 * (figureCandidates) in at least half of a sample of the bodies: the first 2 × {@link FIGURE_SAMPLE}, then
 * every 2nd, 4th, 8th... body, the step doubling after each {@link FIGURE_SAMPLE} more, so the choice costs
 * little on a long history. Every field ever
 * suggested is followed from the body it first appears in (up to {@link MAX_TRACKED_FIGURES}). A failed
 * snapshot, or one without a stored JSON body, adds no row.
 */
export class NetworkChartReducer {
  private readonly configured: readonly string[];
  /** Followed fields in the order first seen, configured first; each has a column in the series. */
  private readonly tracked: string[];
  private readonly suggestedCounts = new Map<string, number>();
  private sampled = 0;
  private stride = 1;
  private bodies = 0;
  private snapshots = 0;
  private failed = 0;
  /** The followed fields' values, one column per field in {@link tracked}'s order. */
  private readonly series: SeriesReducer;
  /** The earliest time of a snapshot read, epoch ms (Infinity before any). */
  firstMs = Number.POSITIVE_INFINITY;

  /** The most extreme value seen in each watched window ({@link PeakWatch}), by its key. */
  readonly peaks = new Map<string, { value: number; at: number }>();
  private readonly watches: readonly PeakWatch[];
  private readonly watchPaths: string[];

  constructor(
    readonly id: string,
    configured: readonly string[] | undefined,
    options: SeriesReducerOptions = {},
    /** Windows whose extremes are wanted (the incidents' peaks on this network). */
    watches: readonly PeakWatch[] = [],
  ) {
    this.watches = watches;
    this.watchPaths = [...new Set(watches.map((w) => w.path))];
    this.configured = configured ?? [];
    this.tracked = [...new Set(this.configured)];
    this.series = new SeriesReducer(this.tracked.length, options);
  }

  /** Adds one snapshot of the network (oldest first); its body is not kept. */
  add(snapshot: Snapshot): void {
    this.snapshots++;
    const at = Date.parse(snapshot.at);
    if (Number.isFinite(at) && at < this.firstMs) this.firstMs = at;
    if (!snapshot.ok) this.failed++;
    if (!snapshot.ok || snapshot.bodyText === undefined || !Number.isFinite(at)) return;
    let body: unknown;
    try {
      body = JSON.parse(snapshot.bodyText);
    } catch {
      // Not JSON: no figures this time.
      return;
    }
    if (this.bodies % this.stride === 0) {
      this.sampled++;
      for (const path of figureCandidates([body]).suggested) {
        this.suggestedCounts.set(path, (this.suggestedCounts.get(path) ?? 0) + 1);
        if (
          !this.tracked.includes(path) &&
          this.tracked.length < this.configured.length + MAX_TRACKED_FIGURES
        ) {
          this.tracked.push(path);
          this.series.addFigure();
        }
      }
      if (this.sampled >= 2 * FIGURE_SAMPLE && this.sampled % FIGURE_SAMPLE === 0) this.stride *= 2;
    }
    this.bodies++;
    const picked = new Map(pickFigures(body, this.tracked));
    if (this.watches.length > 0) {
      const watched = new Map(pickFigures(body, this.watchPaths));
      for (const watch of this.watches) {
        const value = watched.get(watch.path);
        if (value === undefined || at < watch.fromMs || at > watch.toMs) continue;
        const best = this.peaks.get(watch.key);
        if (best === undefined || (watch.direction === 'max' ? value > best.value : value < best.value))
          this.peaks.set(watch.key, { value, at });
      }
    }
    this.series.push(
      at,
      this.tracked.map((field) => picked.get(field) ?? null),
    );
  }

  /** The chart of what was added, its rule alerts marked, its figures split by unit with the rules' thresholds. */
  chart(
    marks: ChartMark[],
    units: (path: string) => FigureUnit = (path) => unitOf(path),
    rules: readonly Rule[] = [],
  ): NetworkChart {
    const common = [...this.suggestedCounts].filter(([, n]) => n * 2 >= this.sampled).map(([path]) => path);
    const fields = [...new Set([...this.configured, ...common])].slice(
      0,
      Math.max(MAX_CHART_FIGURES, this.configured.length),
    );
    const all = this.series.rows();
    const rows: ChartRows = { x: all.x, ys: fields.map((field) => all.ys[this.tracked.indexOf(field)]!) };
    return {
      id: this.id,
      fields,
      rows,
      panels: chartPanels(this.id, fields, rows.ys, units, rules),
      units: fields.map(units),
      snapshots: this.snapshots,
      failed: this.failed,
      downsampled: this.series.downsampled,
      marks,
    };
  }
}
