/**
 * A terminal line chart of a numeric field over time, in the manner of asciichart: y-axis labels on the left,
 * the series drawn with box-drawing characters, the first and last times under the x-axis. Pure; never throws.
 *
 * Not asciichart itself (1.5.25, checked for issue 9), because it cannot do what this chart is for: it plots
 * one column per value, not points placed by time in a fixed width; a NaN (our gap) makes it throw
 * ("Invalid array length"), so a hole in the data cannot be shown, let alone marked on the x-axis; a constant
 * series is one row whatever the height asked for; a range wider than the largest double collapses to a
 * flat line at 0; and it labels every row with a fixed-decimal number, where ours labels a few rows with one
 * shared k/M/G suffix and draws no time axis.
 */
import { lookUp, pathSegments } from '../lambda/core/rules/dot-path.ts';

export interface ChartOptions {
  /** Total columns of every line, y-axis labels included; raised to 30 when smaller, capped at 1000. */
  readonly width: number;
  /** Rows of the plot (title and x-axis not counted); raised to 4 when smaller, capped at 200. */
  readonly height: number;
  /** A line above the chart; made printable ASCII and cut to the width. */
  readonly title?: string;
  /**
   * Colours the series and dims the axes with ANSI codes; widths count visible columns only.
   * @default false
   */
  readonly colour?: boolean;
}

export interface ChartPoint {
  /** Epoch ms. */
  readonly t: number;
  readonly v: number;
}

export const MIN_CHART_WIDTH = 30;
export const MAX_CHART_WIDTH = 1000;
export const MIN_CHART_HEIGHT = 4;
export const MAX_CHART_HEIGHT = 200;

/** Largest time a JavaScript Date can hold, in ms either side of the epoch. */
const MAX_DATE_MS = 8.64e15;
/** A hole in time longer than this many typical intervals is drawn as a gap rather than bridged. */
const GAP_INTERVALS = 3;
/** Gap columns are marked on the x-axis with this instead of the plain axis line. */
const GAP_AXIS = '┄';
const SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'] as const;

/**
 * Renders `points` (any order; points with a non-finite time or value are dropped) as a line chart.
 *
 * Time runs left to right over the plot columns; each column shows the average of the points that fall in it.
 * A column with no point is bridged (linear interpolation) when its neighbours' points are at most three
 * typical intervals apart, and left empty as a gap otherwise, marked `┄` on the x-axis. The y-axis spans the
 * drawn line, from the smallest to the largest column average (so a short spike among many points still fills
 * the height); a constant line is drawn through the middle, labelled with its value. Every line is at most
 * `width` visible columns.
 */
export function renderLineChart(points: ReadonlyArray<ChartPoint>, options: ChartOptions): string {
  const width = clampInt(options.width, MIN_CHART_WIDTH, MAX_CHART_WIDTH, 80);
  const height = clampInt(options.height, MIN_CHART_HEIGHT, MAX_CHART_HEIGHT, 10);
  const colour = options.colour === true;
  const paint = (code: number, text: string) =>
    colour && text !== '' ? `\u001b[${code}m${text}\u001b[0m` : text;

  const lines: string[] = [];
  if (options.title !== undefined) lines.push(clipText(asciiOnly(String(options.title)), width));

  const clean = (Array.isArray(points) ? points : [])
    .filter(
      (p) =>
        p !== null &&
        typeof p === 'object' &&
        typeof p.t === 'number' &&
        typeof p.v === 'number' &&
        Number.isFinite(p.v) &&
        Number.isFinite(p.t) &&
        Math.abs(p.t) <= MAX_DATE_MS,
    )
    .map((p) => ({ t: p.t, v: p.v }))
    .sort((a, b) => a.t - b.t);
  if (clean.length === 0) {
    lines.push('(no data points)');
    return lines.join('\n');
  }

  // The plot's width depends on the labels' width, and the labels on the column averages: widen until stable.
  let labelWidth = 1;
  let columns: Column[] = [];
  let scale: Scale = { labels: new Map(), rowOf: () => 0 };
  for (let attempt = 0; attempt < 10; attempt++) {
    columns = bucket(clean, width - labelWidth - 2);
    scale = yScale(columns, height);
    const needed = Math.max(...[...scale.labels.values()].map((label) => label.length));
    if (needed <= labelWidth) break;
    labelWidth = needed;
  }
  const plotWidth = columns.length;
  const { labels, rowOf } = scale;
  const rows = draw(columns, rowOf, height);

  for (let row = 0; row < height; row++) {
    const label = (labels.get(row) ?? '').padStart(labelWidth);
    const axis = labels.has(row) ? '┤' : '│';
    lines.push(`${paint(2, `${label} ${axis}`)}${paintCells(rows[row]!, colour)}`.trimEnd());
  }
  const axisLine = columns.map((column) => (column.kind === 'gap' ? GAP_AXIS : '─')).join('');
  lines.push(paint(2, `${' '.repeat(labelWidth + 1)}└${axisLine}`));
  lines.push(...timeAxis(clean[0]!.t, clean[clean.length - 1]!.t, labelWidth + 2, plotWidth));
  return lines.join('\n');
}

/**
 * Picks the number at dot path `field` (own properties only; array elements by index, as in `peers.0.pps`)
 * from each entry's `data`, keeping the entries with a finite number there and a parseable `at`, in order.
 * An empty `field` picks `data` itself.
 */
export function numericSeries(
  entries: ReadonlyArray<{ readonly at: string; readonly data?: unknown }>,
  field: string,
): Array<{ t: number; v: number }> {
  const segments = pathSegments(field);
  const series: Array<{ t: number; v: number }> = [];
  for (const entry of entries) {
    const t = Date.parse(entry.at);
    if (!Number.isFinite(t)) continue;
    const picked = lookUp(entry.data, segments);
    if (picked.found && typeof picked.value === 'number' && Number.isFinite(picked.value)) {
      series.push({ t, v: picked.value });
    }
  }
  return series;
}

/** One plot column: a measured average, a bridged (interpolated) value, a gap, or nothing (after a single instant). */
type Column =
  | { readonly kind: 'value' | 'bridge'; readonly v: number }
  | { readonly kind: 'gap' }
  | { readonly kind: 'none' };

/** Averages the points per column, then bridges short holes and leaves long ones as gaps. */
function bucket(points: ReadonlyArray<ChartPoint>, plotWidth: number): Column[] {
  const t0 = points[0]!.t;
  const span = points[points.length - 1]!.t - t0;
  const columnOf = (t: number) =>
    span === 0 ? 0 : Math.min(plotWidth - 1, Math.floor(((t - t0) / span) * plotWidth));
  const counts = new Array<number>(plotWidth).fill(0);
  for (const p of points) counts[columnOf(p.t)]! += 1;
  // Summing v / count rather than v keeps huge values from overflowing.
  const means = new Array<number>(plotWidth).fill(0);
  const firstT = new Array<number>(plotWidth).fill(Number.NaN);
  const lastT = new Array<number>(plotWidth).fill(Number.NaN);
  for (const p of points) {
    const c = columnOf(p.t);
    means[c]! += p.v / counts[c]!;
    if (Number.isNaN(firstT[c]!)) firstT[c] = p.t;
    lastT[c] = p.t;
  }

  const columns: Column[] = counts.map((count, c) =>
    count > 0 ? { kind: 'value', v: means[c]! } : { kind: span === 0 ? 'none' : 'gap' },
  );
  const threshold = GAP_INTERVALS * medianInterval(points);
  let previous = -1;
  for (let c = 0; c < plotWidth; c++) {
    if (counts[c] === 0) continue;
    if (previous >= 0 && c - previous > 1 && firstT[c]! - lastT[previous]! <= threshold) {
      for (let k = previous + 1; k < c; k++) {
        const f = (k - previous) / (c - previous);
        columns[k] = { kind: 'bridge', v: means[previous]! * (1 - f) + means[c]! * f };
      }
    }
    previous = c;
  }
  return columns;
}

/** Median of the positive intervals between consecutive points; Infinity when there are none. */
function medianInterval(points: ReadonlyArray<ChartPoint>): number {
  const intervals: number[] = [];
  for (let i = 1; i < points.length; i++) {
    const d = points[i]!.t - points[i - 1]!.t;
    if (d > 0) intervals.push(d);
  }
  if (intervals.length === 0) return Number.POSITIVE_INFINITY;
  intervals.sort((a, b) => a - b);
  return intervals[intervals.length >> 1]!;
}

interface Scale {
  /** Y-axis label of each labelled plot row (0 at the top). */
  readonly labels: ReadonlyMap<number, string>;
  /** Plot row (0 at the top) of a value. */
  readonly rowOf: (v: number) => number;
}

/** The y-axis of the drawn columns: labels at the top, bottom and a few rows between, and the value-to-row map. */
function yScale(columns: readonly Column[], height: number): Scale {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const column of columns) {
    if (column.kind !== 'value') continue;
    if (column.v < lo) lo = column.v;
    if (column.v > hi) hi = column.v;
  }
  if (lo === hi || !(lo < hi)) {
    const middle = Math.floor((height - 1) / 2);
    const value = Number.isFinite(lo) ? lo : 0;
    const format = compactFormatter(Math.abs(value), Math.abs(value) / 1000);
    return { labels: new Map([[middle, trimZeros(format(value))]]), rowOf: () => middle };
  }
  // hi - lo overflows for ranges wider than the largest double; halves do not (and tiny ranges do not underflow).
  const fraction = Number.isFinite(hi - lo)
    ? (v: number) => (v - lo) / (hi - lo)
    : (v: number) => (v / 2 - lo / 2) / (hi / 2 - lo / 2);
  const step = ((hi / 2 - lo / 2) / (height - 1)) * 2 * labelRowsStride(height);
  const format = compactFormatter(Math.max(Math.abs(lo), Math.abs(hi)), step);
  return {
    labels: new Map(pickLabelRows(height).map((row) => [row, format(rowValue(row, lo, hi, height))])),
    rowOf: (v) => {
      const level = Math.round(fraction(v) * (height - 1));
      return Number.isFinite(level) ? height - 1 - Math.min(height - 1, Math.max(0, level)) : height - 1;
    },
  };
}

/** Plot cells, `height` rows of one character per column; ' ' where nothing is drawn. */
function draw(columns: readonly Column[], rowOf: (v: number) => number, height: number): string[][] {
  const rows = Array.from({ length: height }, () => new Array<string>(columns.length).fill(' '));
  let prev: number | undefined;
  columns.forEach((column, x) => {
    if (column.kind === 'gap' || column.kind === 'none') {
      prev = undefined;
      return;
    }
    const row = rowOf(column.v);
    if (prev === undefined || prev === row) {
      rows[row]![x] = '─';
    } else {
      const up = row < prev;
      rows[prev]![x] = up ? '╯' : '╮';
      rows[row]![x] = up ? '╭' : '╰';
      for (let r = Math.min(row, prev) + 1; r < Math.max(row, prev); r++) rows[r]![x] = '│';
    }
    prev = row;
  });
  return rows;
}

function paintCells(cells: readonly string[], colour: boolean): string {
  const text = cells.join('');
  if (!colour) return text;
  // Colour each run of drawn characters, so blanks stay plain and trimEnd still works.
  return text.replace(/[^ ]+/g, (run) => `\u001b[36m${run}\u001b[0m`);
}

/** Rows that carry a y-axis label: the top, the bottom and about every quarter between. */
function pickLabelRows(height: number): number[] {
  const stride = labelRowsStride(height);
  const rows: number[] = [];
  for (let row = 0; row < height - 1; row += stride) {
    if (row === 0 || height - 1 - row >= stride / 2) rows.push(row);
  }
  rows.push(height - 1);
  return rows;
}

function labelRowsStride(height: number): number {
  return Math.max(1, Math.ceil((height - 1) / 4));
}

/** Value at the middle of plot row `row` (0 at the top), computed so that huge ranges do not overflow. */
function rowValue(row: number, lo: number, hi: number, height: number): number {
  const f = row / (height - 1);
  return hi * (1 - f) + lo * f;
}

/**
 * A formatter of axis labels sharing one suffix (k, M, G, ...) chosen by the largest magnitude, with enough
 * decimals (at most 3) to tell labels `step` apart. Beyond the suffixes, or for tiny ranges, it uses exponents.
 */
function compactFormatter(maxAbs: number, step: number): (v: number) => string {
  const tier = maxAbs < 1000 ? 0 : Math.floor(Math.log10(maxAbs) / 3);
  if (tier >= SUFFIXES.length || (maxAbs > 0 && maxAbs < 0.001)) {
    return (v) => (v === 0 ? '0' : v.toExponential(1).replace('e+', 'e'));
  }
  const scale = 1000 ** tier;
  const scaledStep = step / scale;
  const decimals = scaledStep > 0 ? Math.min(3, Math.max(0, Math.ceil(-Math.log10(scaledStep)))) : 0;
  const suffix = SUFFIXES[tier]!;
  return (v) => {
    const text = (v / scale).toFixed(decimals);
    if (Number(text) === 0) return '0';
    return text + suffix;
  };
}

/** The x-axis labels: the first and last time, on one line when they fit, else on two. */
function timeAxis(first: number, last: number, indent: number, plotWidth: number): string[] {
  const left = utcLabel(first);
  const right = utcLabel(last);
  if (right === left) return [' '.repeat(indent) + left];
  if (left.length + 1 + right.length <= plotWidth) {
    return [' '.repeat(indent) + left + right.padStart(plotWidth - left.length)];
  }
  return [' '.repeat(indent) + left, ' '.repeat(indent) + right.padStart(plotWidth)];
}

/** `MM-DD HH:mm`, UTC. */
function utcLabel(ms: number): string {
  const date = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}`;
}

/** `1.500k` -> `1.5k`, `5.000` -> `5`. */
function trimZeros(label: string): string {
  return label.replace(/\.(\d*?)0+(?=\D*$)/, (_, kept: string) => (kept === '' ? '' : `.${kept}`));
}

function clampInt(value: number, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function asciiOnly(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}
