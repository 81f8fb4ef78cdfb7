import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChartOptions, numericSeries, renderLineChart } from '../../cli/chart.ts';

const T0 = Date.UTC(2026, 10, 22, 10, 0);
const MINUTE = 60_000;
const ANSI = /\u001b\[[0-9;]*m/g;
/** Printable ASCII and the Box Drawing block, one line at a time. */
const ALLOWED = /^[\x20-\x7e\u2500-\u257f]*$/;
const SERIES_CHARS = /[╭╮╰╯│─]/;

function visible(line: string): string {
  return line.replace(ANSI, '');
}

function lines(chart: string): string[] {
  return chart.split('\n').map(visible);
}

/** `count` points one minute apart with values from `value`. */
function series(count: number, value: (i: number) => number): Array<{ t: number; v: number }> {
  return Array.from({ length: count }, (_, i) => ({ t: T0 + i * MINUTE, v: value(i) }));
}

/** The plot rows of a chart: the lines between the title (if any) and the x-axis line. */
function plotRows(chartLines: readonly string[]): string[] {
  const axis = chartLines.findIndex((line) => line.includes('└'));
  return chartLines.slice(0, axis).filter((line) => /[┤│]/.test(line));
}

/** Column of the plot's first cell (just right of the y-axis). */
function plotOrigin(chartLines: readonly string[]): number {
  return [...chartLines.find((line) => line.includes('└'))!].indexOf('└') + 1;
}

describe('renderLineChart', () => {
  it('draws labels, the series, the axis and the first and last times', () => {
    // Prepare
    const points = series(20, (i) => 100 + i * 10);

    // Act
    const out = lines(renderLineChart(points, { width: 60, height: 8, title: 'net-1 pps' }));

    // Assess
    expect(out[0]).toBe('net-1 pps');
    expect(plotRows(out)).toHaveLength(8);
    expect(out[1]).toMatch(/^\s*290 ┤/);
    expect(out[8]).toMatch(/^\s*100 ┤/);
    expect(out[9]).toMatch(/^\s+└─+$/);
    expect(out[10]).toMatch(/^\s+11-22 10:00\s+11-22 10:19$/);
    expect(out).toHaveLength(11);
    expect(plotRows(out).join('')).toMatch(SERIES_CHARS);
    // Rising left to right: the bottom row starts the line, the top row ends it.
    expect(out[8]!.slice(plotOrigin(out), plotOrigin(out) + 1)).toMatch(SERIES_CHARS);
    expect(out[1]!.trimEnd().at(-1)).toMatch(SERIES_CHARS);
  });

  it.each([30, 31, 45, 80, 120, 200])('keeps every line within width %i', (width) => {
    // Prepare
    const points = series(500, (i) => Math.sin(i / 20) * 1e6 - 3e5);

    // Act
    const out = lines(renderLineChart(points, { width, height: 6, title: 'x'.repeat(500), colour: true }));

    // Assess
    for (const line of out) expect([...line].length).toBeLessThanOrEqual(width);
    expect(out.some((line) => [...line].length === width)).toBe(true);
  });

  it('shows a spike at the column of its time, in the top row', () => {
    // Prepare: 100 points; the spike is point 73, so it lands 73% of the way along the plot.
    const points = series(101, (i) => (i === 73 ? 50_000 : 1_000 + (i % 3)));
    const width = 70;

    // Act
    const out = lines(renderLineChart(points, { width, height: 10 }));

    // Assess
    const origin = plotOrigin(out);
    const plotWidth = width - origin;
    const expected = origin + Math.min(plotWidth - 1, Math.floor((73 / 100) * plotWidth));
    const top = [...plotRows(out)[0]!];
    const drawn = top.flatMap((char, column) =>
      column >= origin && SERIES_CHARS.test(char) ? [column] : [],
    );
    expect(drawn).toContain(expected);
    expect(Math.min(...drawn)).toBe(expected);
    expect(plotRows(out)[0]).toMatch(/^\s*50k ┤/);
  });

  it('draws a constant series as one flat line labelled with its value', () => {
    // Act
    const out = lines(
      renderLineChart(
        series(40, () => 1500),
        { width: 40, height: 5 },
      ),
    );

    // Assess
    const rows = plotRows(out);
    const drawn = rows.filter((row) => SERIES_CHARS.test(row.slice(plotOrigin(out))));
    expect(drawn).toHaveLength(1);
    expect(drawn[0]).toMatch(/^\s*1\.5k ┤─+$/);
    expect(rows.filter((row) => row.includes('┤'))).toHaveLength(1);
  });

  it('leaves a long hole as a gap, marked on the x-axis, and bridges short ones', () => {
    // Prepare: one point a minute; none from minute 20 to 79 (a gap), none at minutes 90 and 91 (a short hole).
    const points = series(120, (i) => 10 + (i % 5)).filter(
      (_, i) => (i < 20 || i >= 80) && i !== 90 && i !== 91,
    );
    const width = 70;

    // Act
    const out = lines(renderLineChart(points, { width, height: 6 }));

    // Assess
    const origin = plotOrigin(out);
    const axis = [...out.find((line) => line.includes('└'))!].slice(origin);
    const gapColumns = axis.flatMap((char, column) => (char === '┄' ? [column] : []));
    const plotWidth = width - origin;
    const first = Math.floor((20 / 119) * plotWidth) + 1;
    const last = Math.floor((79 / 119) * plotWidth);
    expect(gapColumns[0]).toBeGreaterThanOrEqual(first - 1);
    expect(gapColumns[0]).toBeLessThanOrEqual(first);
    expect(gapColumns.at(-1)).toBe(last);
    expect(gapColumns).toHaveLength(gapColumns.at(-1)! - gapColumns[0]! + 1);
    for (const row of plotRows(out)) {
      expect(
        row
          .padEnd(width)
          .slice(origin + gapColumns[0]!, origin + gapColumns.at(-1)! + 1)
          .trim(),
      ).toBe('');
    }
    const hole = Math.floor((90.5 / 119) * plotWidth);
    expect(points.some((p) => Math.floor(((p.t - T0) / (119 * MINUTE)) * plotWidth) === hole)).toBe(false);
    expect(axis[hole]).toBe('─');
    expect(plotRows(out).some((row) => SERIES_CHARS.test(row.charAt(origin + hole)))).toBe(true);
  });

  it.each([
    { name: 'no points', points: [], expected: /^\(no data points\)$/m },
    { name: 'a single point', points: [{ t: T0, v: -3 }], expected: /^-3 ┤─$/m },
    {
      name: 'points at one instant',
      points: [
        { t: T0, v: 1 },
        { t: T0, v: 3 },
      ],
      expected: /^2 ┤─$/m,
    },
    { name: 'negative values', points: series(30, (i) => -5000 - i * 100), expected: /^-5\.0k ┤/m },
    { name: 'huge values', points: series(30, (i) => (i % 2 === 0 ? -1e308 : 1e308)), expected: /e308 ┤/m },
    { name: 'tiny values', points: series(30, (i) => i * 1e-9), expected: /e-8 ┤/m },
    {
      name: 'non-finite values and times are dropped',
      points: [
        { t: T0, v: Number.NaN },
        { t: Number.NaN, v: 1 },
        { t: T0, v: Number.POSITIVE_INFINITY },
        { t: 1e300, v: 1 },
        { t: T0, v: 7 },
      ],
      expected: /^7 ┤─$/m,
    },
  ])('handles $name', ({ points, expected }) => {
    // Act
    const out = renderLineChart(points, { width: 30, height: 4 });

    // Assess
    expect(out).toMatch(expected);
    for (const line of out.split('\n')) expect(line).toMatch(ALLOWED);
  });

  it('puts both times on separate lines when they do not fit on one', () => {
    // Act: labels as wide as "-1.0e308" leave a plot narrower than two times.
    const out = lines(
      renderLineChart(
        series(30, (i) => (i % 2 === 0 ? -1e308 : 1e308)),
        { width: 30, height: 4 },
      ),
    );

    // Assess
    expect(out.at(-2)).toMatch(/^\s+11-22 10:00$/);
    expect(out.at(-1)).toMatch(/^\s+11-22 10:29$/);
    expect([...out.at(-1)!].length).toBe(30);
  });

  it('uses colour only when asked, and the same characters either way', () => {
    // Prepare
    const points = series(50, (i) => i * i);

    // Act
    const plain = renderLineChart(points, { width: 50, height: 5, title: 'pps' });
    const coloured = renderLineChart(points, { width: 50, height: 5, title: 'pps', colour: true });

    // Assess
    expect(plain).not.toMatch(ANSI);
    expect(coloured).toMatch(ANSI);
    expect(visible(coloured)).toBe(plain);
  });

  it('raises a too small size to the minimum and makes the title printable', () => {
    // Act
    const out = lines(
      renderLineChart(
        series(10, (i) => i),
        { width: 5, height: 1, title: 'caf\u00e9\u001b[2J' },
      ),
    );

    // Assess
    expect(out[0]).toBe('caf??[2J');
    expect(plotRows(out)).toHaveLength(4);
    for (const line of out) expect([...line].length).toBeLessThanOrEqual(30);
  });

  it('never throws and never exceeds the width (property)', () => {
    const anyPoint = fc.record({
      t: fc.oneof(
        fc.integer({ min: T0 - 1000 * MINUTE, max: T0 + 1000 * MINUTE }),
        fc.constant(T0),
        fc.double(),
      ),
      v: fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, 1e308, -1e308, 5e-324)),
    });
    const anyOptions: fc.Arbitrary<ChartOptions> = fc.record(
      {
        width: fc.integer({ min: 30, max: 300 }),
        height: fc.integer({ min: 4, max: 40 }),
        title: fc.string({ unit: 'binary', maxLength: 400 }),
        colour: fc.boolean(),
      },
      { requiredKeys: ['width', 'height'] },
    );
    fc.assert(
      fc.property(fc.array(anyPoint, { maxLength: 400 }), anyOptions, (points, options) => {
        const out = renderLineChart(points, options);
        for (const line of lines(out)) {
          expect([...line].length).toBeLessThanOrEqual(options.width);
          expect(line).toMatch(ALLOWED);
        }
        if (options.colour !== true) expect(out).not.toMatch(ANSI);
      }),
      { numRuns: 300 },
    );
  });
});

describe('numericSeries', () => {
  const at = (m: number) => new Date(T0 + m * MINUTE).toISOString();

  it.each([
    { name: 'a top-level field', field: 'pps', data: { pps: 12 }, expected: 12 },
    {
      name: 'a nested field',
      field: 'traffic.in.pps',
      data: { traffic: { in: { pps: 3.5 } } },
      expected: 3.5,
    },
    {
      name: 'an array element',
      field: 'peers.1.pps',
      data: { peers: [{ pps: 1 }, { pps: 2 }] },
      expected: 2,
    },
    { name: 'the data itself', field: '', data: 42, expected: 42 },
    { name: 'a negative number', field: 'delta', data: { delta: -7 }, expected: -7 },
    { name: 'a numeric string (not a number)', field: 'pps', data: { pps: '12' }, expected: undefined },
    { name: 'a missing field', field: 'bps', data: { pps: 12 }, expected: undefined },
    { name: 'an inherited property', field: 'constructor.length', data: {}, expected: undefined },
    { name: 'a prototype key', field: '__proto__', data: JSON.parse('{"__proto__": 5}'), expected: 5 },
    { name: 'an array length', field: 'peers.length', data: { peers: [1, 2] }, expected: undefined },
    { name: 'an index past the end', field: 'peers.2', data: { peers: [1, 2] }, expected: undefined },
    { name: 'a non-canonical index', field: 'peers.01', data: { peers: [1, 2] }, expected: undefined },
    { name: 'a path through null', field: 'a.b', data: { a: null }, expected: undefined },
    { name: 'no data', field: 'pps', data: undefined, expected: undefined },
    { name: 'a null value', field: 'pps', data: { pps: null }, expected: undefined },
  ])('picks $name', ({ field, data, expected }) => {
    // Act
    const picked = numericSeries([{ at: at(0), data }], field);

    // Assess
    expect(picked).toEqual(expected === undefined ? [] : [{ t: T0, v: expected }]);
  });

  it('keeps the order of the entries and skips the ones without a usable time or number', () => {
    // Prepare
    const entries = [
      { at: at(2), data: { pps: 2 } },
      { at: 'yesterday', data: { pps: 9 } },
      { at: at(0), data: { pps: 0 } },
      { at: at(1) },
      { at: at(3), data: { pps: Number.POSITIVE_INFINITY } },
      { at: at(4), data: { pps: 4 } },
    ];

    // Act
    const picked = numericSeries(entries, 'pps');

    // Assess
    expect(picked).toEqual([
      { t: T0 + 2 * MINUTE, v: 2 },
      { t: T0, v: 0 },
      { t: T0 + 4 * MINUTE, v: 4 },
    ]);
  });
});
