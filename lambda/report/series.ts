/**
 * A network's figures over time as chart rows, bounded for display (docs/report.md, how large histories
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
 * they are when there are at most `2 × buckets`, otherwise min and max per bucket over the rows' own span
 * (see the file comment); in both cases a `null` row between two consecutive points further apart than the
 * gap threshold. The same as feeding the rows to a {@link SeriesReducer} ending at the last time.
 */
export function displayRows(rows: ChartRows, options: DisplayOptions = {}): ChartRows {
  const n = rows.x.length;
  const reducer = new SeriesReducer(rows.ys.length, {
    ...options,
    endMs: rows.x.reduce((end, x) => Math.max(end, x), Number.NEGATIVE_INFINITY),
  });
  const values: Array<number | null> = rows.ys.map(() => null);
  for (let i = 0; i < n; i++) {
    rows.ys.forEach((y, s) => {
      values[s] = y[i] ?? null;
    });
    reducer.push(rows.x[i]!, values);
  }
  return reducer.rows();
}

/** Options of a {@link SeriesReducer}. */
export interface SeriesReducerOptions extends DisplayOptions {
  /**
   * Where the chart ends (epoch ms, e.g. the report's `--until`): once there are more than `2 × buckets`
   * points, the span from the first point to this is cut into the buckets. A later point counts in the last
   * bucket. @default the time of the point that made the rows too many
   */
  readonly endMs?: number;
}

/** One bucket's extremes of one figure: value, time and arrival of its smallest and its largest. */
interface Extremes {
  minV: number;
  minX: number;
  minSeq: number;
  maxV: number;
  maxX: number;
  maxSeq: number;
}

/** A bucket: its first and last time, how many points fell in it, and each figure's extremes (or none). */
interface Bucket {
  firstX: number;
  lastX: number;
  count: number;
  /** A lone point's values as they are (nulls kept), for a bucket of one point. */
  lone: Array<number | null>;
  extremes: Array<Extremes | undefined>;
}

/** Resolution of the interval histogram: 1000 steps per factor e (about 0.1 %), bounded however long the history. */
const INTERVAL_STEPS_PER_E = 1000;

/**
 * {@link displayRows} as a stream (docs/report.md, large histories): points are pushed as they are read,
 * and the reducer holds at most `2 × buckets` rows, then one bucket per display bucket, whatever the number
 * of points. Up to `2 × buckets` points are kept as they are; the next one fixes the buckets over the span
 * from the first point to `endMs` and folds the kept rows into them, and every later point is folded at once.
 * Each bucket keeps its exact smallest and largest value per figure (the earlier first), its first and last
 * time. The gap threshold's median interval comes from a histogram of the intervals between consecutive
 * points (to within 0.1 %), so it too is bounded. Points should come oldest first (the store's order); a point
 * older than the one before it still lands in its bucket but starts no gap.
 */
export class SeriesReducer {
  private readonly buckets: number;
  private readonly endMs: number | undefined;
  private readonly gapMs: number | undefined;
  /** Rows as they came, while there are at most `2 × buckets` of them; `undefined` once bucketed. */
  private raw: Array<{ x: number; values: Array<number | null> }> | undefined = [];
  private slots: Array<Bucket | undefined> = [];
  private first = 0;
  private span = 1;
  private seq = 0;
  private lastX = Number.NaN;
  private readonly intervals = new Map<number, number>();
  private intervalCount = 0;

  constructor(
    /** Figures per point (more can be added later, {@link addFigure}). */
    private figures: number,
    options: SeriesReducerOptions = {},
  ) {
    this.buckets = Math.max(1, Math.floor(options.buckets ?? DISPLAY_BUCKETS));
    this.endMs = options.endMs;
    this.gapMs = options.gapMs;
  }

  /** Points pushed so far. */
  get points(): number {
    return this.seq;
  }

  /** True once the points are more than `2 × buckets`: the rows are min and max per bucket. */
  get downsampled(): boolean {
    return this.raw === undefined;
  }

  /**
   * Adds a figure (a column) after the others, with no value at the points pushed so far; returns its index.
   * For a field first seen part way through a history.
   */
  addFigure(): number {
    for (const row of this.raw ?? []) row.values.push(null);
    for (const bucket of this.slots) {
      bucket?.lone.push(null);
      bucket?.extremes.push(undefined);
    }
    return this.figures++;
  }

  /** Adds one point: its time (epoch ms) and one value (or `null`) per figure; the array is not kept. */
  push(x: number, values: ReadonlyArray<number | null>): void {
    const step = x - this.lastX;
    if (step > 0) {
      const key = Math.round(Math.log(step) * INTERVAL_STEPS_PER_E);
      this.intervals.set(key, (this.intervals.get(key) ?? 0) + 1);
      this.intervalCount++;
    }
    if (!(x < this.lastX)) this.lastX = x;
    const seq = this.seq++;
    if (this.raw !== undefined) {
      this.raw.push({ x, values: Array.from({ length: this.figures }, (_, s) => values[s] ?? null) });
      if (this.raw.length <= 2 * this.buckets) return;
      const kept = this.raw;
      this.raw = undefined;
      this.first = Math.min(...kept.map((row) => row.x));
      const end = Math.max(this.endMs ?? x, ...kept.map((row) => row.x));
      this.span = Math.max(1, end - this.first);
      this.slots = Array.from({ length: this.buckets }, () => undefined);
      kept.forEach((row, i) => {
        this.fold(row.x, row.values, i);
      });
      return;
    }
    this.fold(x, values, seq);
  }

  private fold(x: number, values: ReadonlyArray<number | null>, seq: number): void {
    const index = Math.max(
      0,
      Math.min(this.buckets - 1, Math.floor(((x - this.first) / this.span) * this.buckets)),
    );
    let bucket = this.slots[index];
    if (bucket === undefined) {
      bucket = {
        firstX: x,
        lastX: x,
        count: 0,
        lone: Array.from({ length: this.figures }, (_, s) => values[s] ?? null),
        extremes: Array.from({ length: this.figures }, () => undefined),
      };
      this.slots[index] = bucket;
    }
    bucket.count++;
    bucket.firstX = Math.min(bucket.firstX, x);
    bucket.lastX = Math.max(bucket.lastX, x);
    for (let s = 0; s < this.figures; s++) {
      const v = values[s];
      if (v === null || v === undefined) continue;
      const e = bucket.extremes[s];
      if (e === undefined) {
        bucket.extremes[s] = { minV: v, minX: x, minSeq: seq, maxV: v, maxX: x, maxSeq: seq };
        continue;
      }
      // Strictly smaller or larger: the first of equal values is kept, as a scan in order would.
      if (v < e.minV) Object.assign(e, { minV: v, minX: x, minSeq: seq });
      if (v > e.maxV) Object.assign(e, { maxV: v, maxX: x, maxSeq: seq });
    }
  }

  /** 3 × the median interval between consecutive points; infinite with fewer than 2 intervals. */
  private defaultGap(): number {
    if (this.intervalCount < 2) return Number.POSITIVE_INFINITY;
    const keys = [...this.intervals.keys()].sort((a, b) => a - b);
    const at = (rank: number): number => {
      let seen = 0;
      for (const key of keys) {
        seen += this.intervals.get(key)!;
        if (seen > rank) return Math.exp(key / INTERVAL_STEPS_PER_E);
      }
      return Math.exp(keys[keys.length - 1]! / INTERVAL_STEPS_PER_E);
    };
    const mid = this.intervalCount >> 1;
    const median = this.intervalCount % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
    return 3 * median;
  }

  /** The rows to draw now (see {@link displayRows}); the reducer can go on taking points. */
  rows(): ChartRows {
    const gapMs = this.gapMs ?? this.defaultGap();
    const out: ChartRows = { x: [], ys: Array.from({ length: this.figures }, () => []) };
    let lastRaw = Number.NaN;
    /** Adds a break before a row whose first raw point is too far from the previous raw point. */
    const breakBefore = (firstRaw: number) => {
      if (firstRaw - lastRaw > gapMs) {
        out.x.push(lastRaw + (firstRaw - lastRaw) / 2);
        for (const y of out.ys) y.push(null);
      }
    };
    if (this.raw !== undefined) {
      // Stable: points of the same time stay in the order they came.
      for (const row of [...this.raw].sort((a, b) => a.x - b.x)) {
        breakBefore(row.x);
        out.x.push(row.x);
        row.values.forEach((v, s) => {
          out.ys[s]!.push(v);
        });
        lastRaw = row.x;
      }
      return out;
    }
    for (const bucket of this.slots) {
      if (bucket === undefined) continue;
      breakBefore(bucket.firstX);
      if (bucket.count === 1) {
        out.x.push(bucket.firstX);
        bucket.lone.forEach((v, s) => {
          out.ys[s]!.push(v);
        });
      } else {
        out.x.push(bucket.firstX, bucket.lastX);
        bucket.extremes.forEach((e, s) => {
          const y = out.ys[s]!;
          if (e === undefined) y.push(null, null);
          else if (e.minX < e.maxX || (e.minX === e.maxX && e.minSeq <= e.maxSeq)) y.push(e.minV, e.maxV);
          else y.push(e.maxV, e.minV);
        });
      }
      lastRaw = bucket.lastX;
    }
    return out;
  }
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
