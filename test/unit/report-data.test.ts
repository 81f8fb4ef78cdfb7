import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../lambda/core/types.ts';
import { computeUptime, UNREADABLE_STATUS } from '../../lambda/core/uptime.ts';
import type { StoredEvent } from '../../lambda/ports.ts';
import {
  eventRows,
  formatShare,
  MAX_CHART_FIGURES,
  networkChart,
  prepareReport,
  ruleMarks,
  statusIntervals,
  uptimeRows,
} from '../../lambda/report/data.ts';
import {
  axesOf,
  type ChartRows,
  DISPLAY_BUCKETS,
  displayRows,
  SeriesReducer,
} from '../../lambda/report/series.ts';
import { longHistory } from '../fixtures/report-history.ts';

const T0 = Date.UTC(2026, 2, 1, 10, 0);
const MINUTE = 60_000;
const at = (m: number) => T0 + m * MINUTE;
const iso = (m: number) => new Date(at(m)).toISOString();

function seen(m: number, status: string): Snapshot {
  return { target: { kind: 'filter' }, at: iso(m), cycleId: `c${m}`, ok: true, status, httpStatus: 200 };
}
function failed(m: number): Snapshot {
  return {
    target: { kind: 'filter' },
    at: iso(m),
    cycleId: `c${m}`,
    ok: false,
    error: 'HTTP 503',
    errorKind: 'server',
    httpStatus: 503,
  };
}
function net(m: number, body: unknown, id = 'edge-1'): Snapshot {
  return {
    target: { kind: 'network', networkId: id },
    at: iso(m),
    cycleId: `c${m}`,
    ok: true,
    bodyText: JSON.stringify(body),
  };
}
/** A stored event with the fields today's StoredEvent has and any later ones (rule alerts, silences). */
function event(m: number, name: string, fields: Record<string, unknown> = {}): StoredEvent {
  return { at: iso(m), event: name, seq: m, ...fields } as unknown as StoredEvent;
}

describe('displayRows: the rows drawn', () => {
  it.each([
    { name: 'empty', x: [], y: [], gapMs: undefined, wantX: [], wantY: [] },
    {
      name: 'a few rows as they are',
      x: [0, 1, 2],
      y: [5, null, 7],
      gapMs: 10,
      wantX: [0, 1, 2],
      wantY: [5, null, 7],
    },
    {
      name: 'a break (null row) between points further apart than the gap',
      x: [0, 60, 120, 600, 660],
      y: [1, 2, 3, 4, 5],
      gapMs: 180,
      wantX: [0, 60, 120, 360, 600, 660],
      wantY: [1, 2, 3, null, 4, 5],
    },
    {
      name: 'the default gap: 3 x the median interval',
      x: [0, 10, 20, 30, 100, 110],
      y: [1, 1, 1, 1, 1, 1],
      gapMs: undefined,
      wantX: [0, 10, 20, 30, 65, 100, 110],
      wantY: [1, 1, 1, 1, null, 1, 1],
    },
  ])('$name', ({ x, y, gapMs, wantX, wantY }) => {
    // Act
    const out = displayRows({ x, ys: [y] }, gapMs === undefined ? {} : { gapMs });

    // Assess
    expect(out.x).toEqual(wantX);
    expect(out.ys[0]).toEqual(wantY);
  });

  it('turns each bucket into its first and last time carrying its min and max in the order they came', () => {
    // Prepare: 4 buckets of 3 points; in bucket 1 the max comes before the min.
    const rows: ChartRows = {
      x: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      ys: [
        [1, 9, 5, 8, 7, 0, 3, 3, 3, null, 4, null],
        [null, null, null, 1, 1, 1, 2, 2, 2, 3, 3, 3],
      ],
    };

    // Act
    const out = displayRows(rows, { buckets: 4 });
    // 4 buckets over 0..11: [0,2.75) [2.75,5.5) [5.5,8.25) [8.25,11]

    // Assess
    expect(out.x).toEqual([0, 2, 3, 5, 6, 8, 9, 11]);
    expect(out.ys[0]).toEqual([1, 9, 8, 0, 3, 3, 4, 4]);
    expect(out.ys[1]).toEqual([null, null, 1, 1, 2, 2, 3, 3]);
  });

  it('keeps a one-minute spike among a week of minutes, in at most 2 x buckets rows', () => {
    // Prepare
    const n = 7 * 1440;
    const x = Array.from({ length: n }, (_, i) => i * MINUTE);
    const y = x.map((_, i) => (i === 4321 ? 1_000_000 : i === 777 ? -5 : 100 + (i % 7)));

    // Act
    const out = displayRows({ x, ys: [y] });

    // Assess
    expect(out.x.length).toBeLessThanOrEqual(2 * DISPLAY_BUCKETS);
    expect(Math.max(...(out.ys[0]!.filter((v) => v !== null) as number[]))).toBe(1_000_000);
    expect(Math.min(...(out.ys[0]!.filter((v) => v !== null) as number[]))).toBe(-5);
    const spikeRow = out.ys[0]!.indexOf(1_000_000);
    expect(Math.abs(out.x[spikeRow]! - 4321 * MINUTE)).toBeLessThanOrEqual((n * MINUTE) / DISPLAY_BUCKETS);
  });

  it('property: every bucket keeps its min and max, rows stay bounded and in time order, times are real', () => {
    const series = fc
      .array(
        fc.record({
          step: fc.integer({ min: 0, max: 5000 }),
          a: fc.option(fc.integer({ min: -1e6, max: 1e6 }), { nil: null }),
          b: fc.option(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { nil: null }),
        }),
        { minLength: 1, maxLength: 400 },
      )
      .map((points) => {
        let t = 1_700_000_000_000;
        const x = points.map((p) => (t += p.step));
        return { x, ys: [points.map((p) => p.a), points.map((p) => p.b)] };
      });
    fc.assert(
      fc.property(series, fc.integer({ min: 1, max: 60 }), (rows, buckets) => {
        const out = displayRows(rows, { buckets, gapMs: Number.POSITIVE_INFINITY });
        const n = rows.x.length;
        expect(out.x.length).toBeLessThanOrEqual(Math.max(n <= 2 * buckets ? n : 0, 2 * buckets));
        for (let i = 1; i < out.x.length; i++) expect(out.x[i]!).toBeGreaterThanOrEqual(out.x[i - 1]!);
        for (const x of out.x) expect(rows.x).toContain(x);
        // Every value drawn is a real value, and each bucket's extremes are drawn.
        const first = rows.x[0]!;
        const span = Math.max(1, rows.x[n - 1]! - first);
        const bucketOf = (x: number) =>
          n <= 2 * buckets ? x : Math.min(buckets - 1, Math.floor(((x - first) / span) * buckets));
        rows.ys.forEach((y, s) => {
          const byBucket = new Map<number, number[]>();
          rows.x.forEach((x, i) => {
            if (y[i] !== null) byBucket.set(bucketOf(x), [...(byBucket.get(bucketOf(x)) ?? []), y[i]!]);
          });
          const drawn = new Map<number, number[]>();
          out.x.forEach((x, i) => {
            const v = out.ys[s]![i];
            if (v !== null && v !== undefined) drawn.set(bucketOf(x), [...(drawn.get(bucketOf(x)) ?? []), v]);
          });
          for (const [bucket, values] of byBucket) {
            const shown = drawn.get(bucket) ?? [];
            expect(shown).toContain(Math.min(...values));
            expect(shown).toContain(Math.max(...values));
            for (const v of shown) expect(values).toContain(v);
          }
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe('SeriesReducer: the rows drawn, reduced as the points are read', () => {
  const series = fc
    .array(
      fc.record({
        step: fc.integer({ min: 0, max: 5000 }),
        a: fc.option(fc.integer({ min: -1e6, max: 1e6 }), { nil: null }),
        b: fc.option(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { nil: null }),
      }),
      { minLength: 1, maxLength: 400 },
    )
    .map((points) => {
      let t = 1_700_000_000_000;
      const x = points.map((p) => (t += p.step));
      return { x, ys: [points.map((p) => p.a), points.map((p) => p.b)] };
    });

  it('property: over a window fixed up front, every bucket keeps its exact min and max, and the rows stay bounded', () => {
    fc.assert(
      fc.property(
        series,
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (rows, buckets, tail) => {
          // Prepare: the window ends after the last point (the report's --until).
          const n = rows.x.length;
          const endMs = rows.x[n - 1]! + tail;
          const reducer = new SeriesReducer(2, { buckets, gapMs: Number.POSITIVE_INFINITY, endMs });

          // Act: points pushed one by one, as pages are read; the rows asked for at the end.
          rows.x.forEach((x, i) => {
            reducer.push(x, [rows.ys[0]![i]!, rows.ys[1]![i]!]);
          });
          const out = reducer.rows();

          // Assess
          expect(reducer.points).toBe(n);
          expect(reducer.downsampled).toBe(n > 2 * buckets);
          expect(out.x.length).toBeLessThanOrEqual(n <= 2 * buckets ? n : 2 * buckets);
          for (let i = 1; i < out.x.length; i++) expect(out.x[i]!).toBeGreaterThanOrEqual(out.x[i - 1]!);
          for (const x of out.x) expect(rows.x).toContain(x);
          const first = rows.x[0]!;
          const span = Math.max(1, endMs - first);
          const bucketOf = (x: number) =>
            n <= 2 * buckets ? x : Math.min(buckets - 1, Math.floor(((x - first) / span) * buckets));
          rows.ys.forEach((y, s) => {
            const byBucket = new Map<number, number[]>();
            rows.x.forEach((x, i) => {
              if (y[i] !== null) byBucket.set(bucketOf(x), [...(byBucket.get(bucketOf(x)) ?? []), y[i]!]);
            });
            const drawn = new Map<number, number[]>();
            out.x.forEach((x, i) => {
              const v = out.ys[s]![i];
              if (v !== null && v !== undefined)
                drawn.set(bucketOf(x), [...(drawn.get(bucketOf(x)) ?? []), v]);
            });
            for (const [bucket, values] of byBucket) {
              const shown = drawn.get(bucket) ?? [];
              expect(shown).toContain(Math.min(...values));
              expect(shown).toContain(Math.max(...values));
              for (const v of shown) expect(values).toContain(v);
            }
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('property: ending at the last point, it draws exactly what displayRows draws of all the points', () => {
    fc.assert(
      fc.property(series, fc.integer({ min: 1, max: 60 }), (rows, buckets) => {
        const reducer = new SeriesReducer(2, { buckets, endMs: rows.x[rows.x.length - 1]! });
        rows.x.forEach((x, i) => {
          reducer.push(x, [rows.ys[0]![i]!, rows.ys[1]![i]!]);
        });
        expect(reducer.rows()).toEqual(displayRows(rows, { buckets }));
      }),
      { numRuns: 100 },
    );
  });

  it('gives a figure added part way through no value before it, in raw rows and in buckets alike', () => {
    // Prepare
    const raw = new SeriesReducer(1, { buckets: 4, gapMs: Number.POSITIVE_INFINITY });
    const bucketed = new SeriesReducer(1, { buckets: 2, gapMs: Number.POSITIVE_INFINITY, endMs: 7 });

    // Act
    for (const reducer of [raw, bucketed]) {
      for (let x = 0; x < 5; x++) reducer.push(x, [x]);
      reducer.addFigure();
      for (let x = 5; x < 8; x++) reducer.push(x, [x, 10 * x]);
    }

    // Assess
    expect(raw.rows()).toEqual({
      x: [0, 1, 2, 3, 4, 5, 6, 7],
      ys: [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [null, null, null, null, null, 50, 60, 70],
      ],
    });
    // Two buckets over 0..7: [0, 3.5) and [3.5, 7].
    expect(bucketed.rows()).toEqual({
      x: [0, 3, 4, 7],
      ys: [
        [0, 3, 4, 7],
        [null, null, 50, 70],
      ],
    });
  });

  it('holds no more than the display rows however many points it is given', () => {
    // Prepare: a year of one-minute points in 600 buckets.
    const reducer = new SeriesReducer(1, { endMs: 365 * 1440 * MINUTE });

    // Act
    for (let m = 0; m < 365 * 1440; m++) reducer.push(m * MINUTE, [m === 123_456 ? 1e9 : m % 10]);
    const out = reducer.rows();

    // Assess
    expect(out.x.length).toBeLessThanOrEqual(2 * DISPLAY_BUCKETS);
    expect(Math.max(...(out.ys[0]!.filter((v) => v !== null) as number[]))).toBe(1e9);
  });
});

describe('statusIntervals: the status band', () => {
  it.each([
    {
      name: 'same statuses merged, each holding until the next snapshot, the last until the end',
      filter: [seen(0, 'active'), seen(1, 'active'), seen(2, 'mitigating'), seen(3, 'active')],
      from: 0,
      until: 5,
      want: [
        [0, 2, 'active'],
        [2, 3, 'mitigating'],
        [3, 5, 'active'],
      ],
    },
    {
      name: 'a failed snapshot is (unreadable)',
      filter: [seen(0, 'active'), failed(1), seen(2, 'active')],
      from: 0,
      until: 3,
      want: [
        [0, 1, 'active'],
        [1, 2, UNREADABLE_STATUS],
        [2, 3, 'active'],
      ],
    },
    {
      name: 'before the first snapshot and in a gap: not monitored',
      filter: [
        seen(10, 'active'),
        seen(11, 'active'),
        seen(12, 'active'),
        seen(60, 'active'),
        seen(61, 'active'),
      ],
      from: 5,
      until: 62,
      want: [
        [5, 10, null],
        [10, 12, 'active'],
        [12, 60, null],
        [60, 62, 'active'],
      ],
    },
    {
      name: 'an empty status kept apart from no status',
      filter: [seen(0, ''), seen(1, 'active')],
      from: 0,
      until: 2,
      want: [
        [0, 1, ''],
        [1, 2, 'active'],
      ],
    },
    { name: 'no snapshot: all not monitored', filter: [], from: 0, until: 10, want: [[0, 10, null]] },
  ])('$name', ({ filter, from, until, want }) => {
    // Prepare
    const uptime =
      filter.length === 0 ? null : computeUptime(filter, { sinceMs: at(from), untilMs: at(until) });

    // Act
    const band = statusIntervals(filter, uptime, at(from), at(until));

    // Assess
    expect(band).toEqual(
      want.map(([f, t, status]) => ({ from: at(f as number), to: at(t as number), status })),
    );
  });

  it('covers the window without overlap and agrees with the uptime shares, on a week of history', () => {
    // Prepare
    const history = longHistory({ networks: 0 });
    const uptime = computeUptime(history.filter, { sinceMs: history.sinceMs, untilMs: history.untilMs });

    // Act
    const band = statusIntervals(history.filter, uptime, history.sinceMs, history.untilMs);

    // Assess
    expect(band[0]!.from).toBe(history.sinceMs);
    expect(band[band.length - 1]!.to).toBe(history.untilMs);
    for (let i = 1; i < band.length; i++) expect(band[i]!.from).toBe(band[i - 1]!.to);
    const held = new Map<string | null, number>();
    for (const b of band) held.set(b.status, (held.get(b.status) ?? 0) + b.to - b.from);
    for (const s of uptime.statuses) expect(held.get(s.status)).toBe(s.ms);
    expect(held.get(null)).toBe(uptime.gaps.reduce((ms, g) => ms + g.ms, 0));
  });
});

describe('uptime in the report', () => {
  it('is exactly what shieldwatch uptime computes for the window', () => {
    // Prepare
    const filter = [seen(0, 'active'), failed(3), seen(4, 'mitigating'), seen(9, 'active')];

    // Act
    const data = prepareReport({
      generatedAt: iso(20),
      table: 't',
      since: iso(-60),
      until: iso(20),
      filter,
      events: [],
      networks: [],
    });

    // Assess
    expect(data.uptime).toEqual(computeUptime(filter, { sinceMs: at(-60), untilMs: at(20) }));
    expect(data.fromMs).toBe(at(0));
    expect(uptimeRows(data.uptime!)).toEqual([
      // The last 11 minutes (9 to 20) are longer than 3 median intervals: a gap, not monitored.
      { status: 'mitigating', share: '55.56%', time: '5m' },
      { status: 'active', share: '33.33%', time: '3m' },
      { status: UNREADABLE_STATUS, share: '11.11%', time: '1m' },
    ]);
  });

  it.each([
    [0, '0.0%'],
    [1, '100.0%'],
    [0.5, '50.00%'],
    [0.1234, '12.34%'],
    [0.9996, '100.0%'],
  ])('formatShare(%s) is %s, as shieldwatch uptime prints it', (share, text) => {
    expect(formatShare(share)).toBe(text);
  });

  it('is null without filter snapshots, and the window then starts at the first data', () => {
    // Act
    const data = prepareReport({
      generatedAt: iso(20),
      table: 't',
      since: iso(-60),
      until: iso(20),
      filter: [],
      events: [],
      networks: [{ id: 'edge-1', snapshots: [net(5, { pps: 1 })] }],
    });

    // Assess
    expect(data.uptime).toBeNull();
    expect(data.fromMs).toBe(at(5));
    expect(data.band).toEqual([{ from: at(5), to: at(20), status: null }]);
  });
});

describe('eventRows: the events table', () => {
  it.each([
    {
      name: 'a status change',
      event: event(1, 'filter.status_changed', { from: 'active', to: 'mitigating' }),
      want: { family: 'change', summary: '"active" -> "mitigating"' },
    },
    {
      name: 'an incident with its detail',
      event: event(2, 'api.unreachable', { detail: 'connect ECONNREFUSED' }),
      want: { family: 'incident', summary: 'connect ECONNREFUSED' },
    },
    {
      name: 'a rule alert (issue 10 fields), read defensively',
      event: event(3, 'network.rule_triggered', {
        rule: 'pps',
        network: 'edge-1',
        value: 90000,
        threshold: 50000,
        incident: 'i-1',
      }),
      want: {
        family: 'rule',
        network: 'edge-1',
        summary: 'network edge-1: rule pps triggered: 90000 against 50000; incident i-1',
      },
    },
    {
      name: 'a rule alert without its fields yet',
      event: event(3, 'network.rule_resolved'),
      want: { family: 'rule', summary: 'rule (rule) resolved' },
    },
    {
      name: 'an unknown kind, listed with its fields',
      event: event(4, 'monitor.something_new', { colour: 'blue', count: 3, nested: { a: 1 } }),
      want: { family: 'other', summary: 'colour blue; count 3' },
    },
    {
      name: 'a suppressed alert names its silence',
      event: event(5, 'api.unreachable', { detail: 'timeout', suppressed: true, silence: 'S1' }),
      want: { family: 'incident', summary: 'timeout', suppressed: 'silence S1' },
    },
    {
      name: 'a suppressed alert without a silence id',
      event: event(5, 'filter.status_changed', { from: '', to: 'x', suppressed: true }),
      want: { family: 'change', summary: '"(empty)" -> "x"', suppressed: 'suppressed' },
    },
  ])('$name', ({ event: stored, want }) => {
    // Act
    const [row] = eventRows([stored]);

    // Assess
    // The severity colour (level) is tested in report-first-screen.test.ts.
    expect({ ...row, level: undefined }).toEqual({ at: stored.at, event: stored.event, ...want });
  });

  it('keeps the newest rows when there are too many, and says how many there were', () => {
    // Prepare
    const events = Array.from({ length: 2100 }, (_, i) => event(i, 'api.unreachable', { detail: `n${i}` }));

    // Act
    const data = prepareReport({
      generatedAt: iso(3000),
      table: 't',
      since: iso(0),
      until: iso(3000),
      filter: [],
      events,
      networks: [],
    });

    // Assess
    expect(data.eventCount).toBe(2100);
    expect(data.events).toHaveLength(2000);
    expect(data.events[0]!.summary).toBe('n100');
    expect(data.events[1999]!.summary).toBe('n2099');
  });
});

describe('ruleMarks and the network charts', () => {
  it('marks rule alerts on the chart of the network they name, and nothing for events without one', () => {
    // Prepare
    const events = [
      event(1, 'filter.status_changed', { from: 'a', to: 'b' }),
      event(2, 'network.rule_triggered', { rule: 'pps', network: 'edge-2', value: 9, threshold: 5 }),
      event(4, 'network.rule_resolved', { rule: 'pps', network: 'edge-2', value: 1, threshold: 5 }),
      event(5, 'network.rule_triggered', { rule: 'bps', network: 'edge-1', value: true }),
    ];

    // Act
    const marks = ruleMarks(events);

    // Assess
    expect([...marks.keys()].sort()).toEqual(['edge-1', 'edge-2']);
    expect(marks.get('edge-2')).toEqual([
      { at: at(2), event: 'network.rule_triggered', label: 'pps triggered: 9 vs 5' },
      { at: at(4), event: 'network.rule_resolved', label: 'pps resolved: 1 vs 5' },
    ]);
    expect(marks.get('edge-1')).toEqual([
      { at: at(5), event: 'network.rule_triggered', label: 'bps triggered: true' },
    ]);
  });

  it('draws the numeric figures of the bodies, ids and times left out, failed snapshots counted', () => {
    // Prepare
    const body = (pps: number) => ({
      id: 7,
      timestamp: 1717200000,
      traffic: { pps, bps: pps * 8 },
      name: 'x',
    });
    const snapshots: Snapshot[] = [
      net(0, body(10)),
      { ...net(1, {}), ok: false, bodyText: undefined, error: 'HTTP 500' },
      net(2, body(30)),
      { ...net(3, {}), bodyText: 'not json' },
    ];

    // Act
    const chart = networkChart('edge-1', snapshots, undefined, []);

    // Assess
    expect(chart.fields).toEqual(['traffic.pps', 'traffic.bps']);
    expect(chart.rows).toEqual({
      x: [at(0), at(2)],
      ys: [
        [10, 30],
        [80, 240],
      ],
    });
    expect(chart.snapshots).toBe(4);
    expect(chart.failed).toBe(1);
    expect(chart.downsampled).toBe(false);
  });

  it('keeps a figure whose values look like epoch seconds only now and then (bits per second in an attack)', () => {
    // Prepare
    const snapshots = [1e8, 2e8, 3e9, 1e8].map((bps, m) =>
      net(m, { at: 1717200000 + m * 60, traffic: { bps, pps: 10 + m } }),
    );

    // Act
    const chart = networkChart('edge-1', snapshots, undefined, []);

    // Assess
    expect(chart.fields).toEqual(['traffic.bps', 'traffic.pps']);
    expect(chart.rows.ys[0]).toEqual([1e8, 2e8, 3e9, 1e8]);
  });

  it('draws the configured figure fields first, then the others, up to the cap', () => {
    // Prepare
    const body = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, i]));

    // Act
    const chart = networkChart('n', [net(0, body)], ['f9', 'missing'], []);

    // Assess
    expect(chart.fields).toEqual(['f9', 'missing', 'f0', 'f1', 'f2', 'f3'].slice(0, MAX_CHART_FIGURES));
    expect(chart.rows.ys[1]).toEqual([null]);
  });

  it('downsamples a week of one-minute snapshots per network and keeps each spike and its rule marks', () => {
    // Prepare
    const history = longHistory({ networks: 3 });

    // Act
    const data = prepareReport({
      generatedAt: new Date(history.untilMs).toISOString(),
      table: 't',
      since: new Date(history.sinceMs).toISOString(),
      until: new Date(history.untilMs).toISOString(),
      filter: history.filter,
      events: history.events,
      networks: history.networks,
    });

    // Assess
    for (const chart of data.networks) {
      expect(chart.downsampled).toBe(true);
      expect(chart.rows.x.length).toBeLessThanOrEqual(2 * DISPLAY_BUCKETS + 2);
      const pps = chart.rows.ys[chart.fields.indexOf('traffic.in_pps')]!;
      expect(Math.max(...(pps.filter((v) => v !== null) as number[]))).toBe(
        history.spikes.get(chart.id)!.value,
      );
      expect(chart.marks.map((m) => m.event)).toEqual(['network.rule_triggered', 'network.rule_resolved']);
      // The 2-hour gap is a break in the line.
      expect(pps.some((v, i) => v === null && chart.rows.ys.every((y) => y[i] === null))).toBe(true);
    }
    expect(data.changes).toHaveLength(2);
  });

  it.each([
    { ys: [[1, 2, 3]], want: ['left'] },
    {
      ys: [
        [1000, 2000],
        [1, 2],
      ],
      want: ['left', 'right'],
    },
    {
      ys: [
        [1000, 2000],
        [100, 50],
      ],
      want: ['left', 'left'],
    },
    {
      ys: [
        [null, null],
        [5, 6],
      ],
      want: ['left', 'left'],
    },
    { ys: [[-9e6], [10]], want: ['left', 'right'] },
  ])('axesOf($ys) puts much smaller figures on the right: $want', ({ ys, want }) => {
    expect(axesOf(ys)).toEqual(want);
  });
});
