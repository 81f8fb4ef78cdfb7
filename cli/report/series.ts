/**
 * A network's figures over time as chart rows, bounded for display (README, The report: how large histories
 * stay fast). Pure: no clock, no I/O, never throws.
 *
 * Downsampling is min/max per time bucket: the window is cut into equal buckets and each bucket that holds
 * points becomes at most two rows, at the times of its first and its last point, carrying for each figure its
 * smallest and its largest value in the bucket, in the order they occurred. So every spike and every dip
 * survives exactly (a bucket is narrower than a pixel column of a typical chart), the row count is bounded by
 * twice the bucket count, and a gap in the monitoring stays a gap (a `null` row breaks the line).
 */

/** Rows of a chart: times (epoch ms, ascending) and, per figure, a value or `null` (none, or a break). */
export interface ChartRows {
  readonly x: number[];
  readonly ys: Array<Array<number | null>>;
}

/** Buckets a chart is cut into when it has more points than twice this: at most 1200 rows drawn. */
export const DISPLAY_BUCKETS = 600;

/** Options of {@link displayRows}. */
export interface DisplayOptions {
  /** Buckets when downsampling; more than `2 × buckets` points are downsampled. @default {@link DISPLAY_BUCKETS} */
  readonly buckets?: number;
  /**
   * Two consecutive points further apart than this are not joined: a `null` row goes between them.
   * @default 3 × the median interval between points (none when there are fewer than 3 points)
   */
  readonly gapMs?: number;
}

/**
 * The rows to draw for `rows` (times ascending, one value array per figure of the same length): the rows as
 * they are when there are at most `2 × buckets`, otherwise min and max per bucket (see the file comment); in
 * both cases a `null` row between two consecutive points further apart than the gap threshold.
 */
export function displayRows(rows: ChartRows, options: DisplayOptions = {}): ChartRows {
  const n = rows.x.length;
  const buckets = Math.max(1, Math.floor(options.buckets ?? DISPLAY_BUCKETS));
  const gapMs = options.gapMs ?? defaultGapMs(rows.x);
  const out: ChartRows = { x: [], ys: rows.ys.map(() => []) };
  if (n === 0) return out;
  let lastRaw = Number.NaN;
  /** Adds a break before a row whose first raw point is too far from the previous raw point. */
  const breakBefore = (firstRaw: number) => {
    if (firstRaw - lastRaw > gapMs) {
      out.x.push(lastRaw + (firstRaw - lastRaw) / 2);
      for (const y of out.ys) y.push(null);
    }
  };
  if (n <= 2 * buckets) {
    for (let i = 0; i < n; i++) {
      breakBefore(rows.x[i]!);
      out.x.push(rows.x[i]!);
      rows.ys.forEach((y, s) => {
        out.ys[s]!.push(y[i] ?? null);
      });
      lastRaw = rows.x[i]!;
    }
    return out;
  }
  const first = rows.x[0]!;
  const span = Math.max(1, rows.x[n - 1]! - first);
  let start = 0;
  while (start < n) {
    const bucket = Math.min(buckets - 1, Math.floor(((rows.x[start]! - first) / span) * buckets));
    let end = start;
    while (
      end + 1 < n &&
      Math.min(buckets - 1, Math.floor(((rows.x[end + 1]! - first) / span) * buckets)) === bucket
    ) {
      end++;
    }
    breakBefore(rows.x[start]!);
    if (end === start) {
      out.x.push(rows.x[start]!);
      rows.ys.forEach((y, s) => {
        out.ys[s]!.push(y[start] ?? null);
      });
    } else {
      out.x.push(rows.x[start]!, rows.x[end]!);
      rows.ys.forEach((y, s) => {
        const [a, b] = extremesInOrder(y, start, end);
        out.ys[s]!.push(a, b);
      });
    }
    lastRaw = rows.x[end]!;
    start = end + 1;
  }
  return out;
}

/** The smallest and largest value of `y[start..end]`, the earlier one first; nulls skipped. */
function extremesInOrder(
  y: ReadonlyArray<number | null>,
  start: number,
  end: number,
): [number | null, number | null] {
  let minAt = -1;
  let maxAt = -1;
  for (let i = start; i <= end; i++) {
    const v = y[i];
    if (v === null || v === undefined) continue;
    if (minAt < 0 || v < y[minAt]!) minAt = i;
    if (maxAt < 0 || v > y[maxAt]!) maxAt = i;
  }
  if (minAt < 0) return [null, null];
  const [early, late] = minAt <= maxAt ? [minAt, maxAt] : [maxAt, minAt];
  return [y[early]!, y[late]!];
}

/** 3 × the median positive interval between times; infinite (no breaks) with fewer than 3 points. */
export function defaultGapMs(x: readonly number[]): number {
  const steps: number[] = [];
  for (let i = 1; i < x.length; i++) {
    const step = x[i]! - x[i - 1]!;
    if (step > 0) steps.push(step);
  }
  if (steps.length < 2) return Number.POSITIVE_INFINITY;
  steps.sort((a, b) => a - b);
  const mid = steps.length >> 1;
  const median = steps.length % 2 === 1 ? steps[mid]! : (steps[mid - 1]! + steps[mid]!) / 2;
  return 3 * median;
}

/** Figures whose largest value is below the chart's largest divided by this go on a second, right axis. */
export const SECOND_AXIS_RATIO = 50;

/**
 * Which axis each figure is drawn against: figures of the same order as the largest on the left, much smaller
 * ones (packets beside bits, say) on the right, so that neither is flattened to a line along the bottom.
 */
export function axesOf(ys: ReadonlyArray<ReadonlyArray<number | null>>): Array<'left' | 'right'> {
  const peaks = ys.map((y) =>
    y.reduce<number>((peak, v) => (v === null ? peak : Math.max(peak, Math.abs(v))), 0),
  );
  const top = Math.max(0, ...peaks);
  return peaks.map((peak) => (top > 0 && peak > 0 && peak * SECOND_AXIS_RATIO < top ? 'right' : 'left'));
}
