import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiFailureKind, Snapshot } from '../../lambda/core/types.ts';
import { computeUptime, UNREADABLE_STATUS, type UptimeReport } from '../../lambda/core/uptime.ts';

const T0 = Date.UTC(2026, 2, 1, 10, 0);
const MINUTE = 60_000;

/** Epoch ms of minute `m` after T0. */
function min(m: number): number {
  return T0 + m * MINUTE;
}

function iso(m: number): string {
  return new Date(min(m)).toISOString();
}

/** A filter snapshot at minute `m` that read `status`. */
function seen(m: number, status: string): Snapshot {
  return { target: { kind: 'filter' }, at: iso(m), cycleId: `c${m}`, ok: true, status, httpStatus: 200 };
}

const HTTP_OF: Record<ApiFailureKind, number | undefined> = {
  auth: 401,
  rate_limited: 429,
  server: 503,
  client: 404,
  transport: undefined,
  contract: 200,
};

/** A filter snapshot at minute `m` that failed with `kind`. */
function failed(m: number, kind: ApiFailureKind): Snapshot {
  const httpStatus = HTTP_OF[kind];
  return {
    target: { kind: 'filter' },
    at: iso(m),
    cycleId: `c${m}`,
    ok: false,
    error: kind,
    errorKind: kind,
    ...(httpStatus === undefined ? {} : { httpStatus }),
  };
}

/** A filter snapshot at minute `m` whose request the operator stopped (the CLI's second Ctrl-C), as stored. */
function cutShort(m: number): Snapshot {
  return {
    target: { kind: 'filter' },
    at: iso(m),
    cycleId: `c${m}`,
    ok: false,
    error: 'cut short: the monitor was stopped (aborted after 812 ms)',
    errorKind: 'cut_short',
  };
}

/** One snapshot a minute from minute `from` to minute `to` inclusive. */
function steady(from: number, to: number, make: (m: number) => Snapshot): Snapshot[] {
  return Array.from({ length: to - from + 1 }, (_, i) => make(from + i));
}

function statusMs(report: UptimeReport): Record<string, number> {
  return Object.fromEntries(report.statuses.map((entry) => [entry.status, entry.ms]));
}

interface Case {
  readonly name: string;
  readonly snapshots: readonly Snapshot[];
  readonly untilMin: number;
  readonly sinceMin?: number;
  readonly gapMin?: number;
  readonly from: number;
  readonly monitoredMin: number;
  readonly statusesMin: Record<string, number>;
  readonly gaps: ReadonlyArray<readonly [from: number, to: number]>;
  readonly answeredMin: number;
  readonly cycles: number;
  readonly failedCycles: number;
  readonly byKind: Record<string, number>;
  /** @default 0 */
  readonly cutShort?: number;
}

const CASES: readonly Case[] = [
  {
    name: 'steady: one status all along',
    snapshots: steady(0, 9, (m) => seen(m, 'active')),
    untilMin: 10,
    from: 0,
    monitoredMin: 10,
    statusesMin: { active: 10 },
    gaps: [],
    answeredMin: 10,
    cycles: 10,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'changes: each status holds until the next snapshot',
    snapshots: [...steady(0, 3, (m) => seen(m, 'active')), ...steady(4, 9, (m) => seen(m, 'under_attack'))],
    untilMin: 10,
    from: 0,
    monitoredMin: 10,
    statusesMin: { under_attack: 6, active: 4 },
    gaps: [],
    answeredMin: 10,
    cycles: 10,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'unreadable time: failed snapshots count under (unreadable); an unusable 2xx still answered',
    snapshots: [
      ...steady(0, 5, (m) => seen(m, 'active')),
      ...steady(6, 7, (m) => failed(m, 'contract')),
      ...steady(8, 9, (m) => seen(m, 'active')),
    ],
    untilMin: 10,
    from: 0,
    monitoredMin: 10,
    statusesMin: { active: 8, [UNREADABLE_STATUS]: 2 },
    gaps: [],
    answeredMin: 10,
    cycles: 10,
    failedCycles: 2,
    byKind: { contract: 2 },
  },
  {
    name: 'gap in the middle: the monitor stopped; the interval is excluded entirely',
    snapshots: [...steady(0, 2, (m) => seen(m, 'active')), ...steady(30, 31, (m) => seen(m, 'active'))],
    untilMin: 32,
    from: 0,
    monitoredMin: 4,
    statusesMin: { active: 4 },
    gaps: [[2, 30]],
    answeredMin: 4,
    cycles: 5,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'trailing gap: nothing since the last snapshot for longer than the threshold',
    snapshots: steady(0, 4, (m) => seen(m, 'active')),
    untilMin: 60,
    from: 0,
    monitoredMin: 4,
    statusesMin: { active: 4 },
    gaps: [[4, 60]],
    answeredMin: 4,
    cycles: 5,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'short hole (within 3 min): still monitored',
    snapshots: [seen(0, 'active'), seen(1, 'active'), seen(4, 'active'), seen(5, 'active')],
    untilMin: 6,
    from: 0,
    monitoredMin: 6,
    statusesMin: { active: 6 },
    gaps: [],
    answeredMin: 6,
    cycles: 4,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'explicit gapMs: a 2-minute hole is a gap',
    snapshots: [seen(0, 'active'), seen(1, 'active'), seen(3, 'active')],
    untilMin: 4,
    gapMin: 1.5,
    from: 0,
    monitoredMin: 2,
    statusesMin: { active: 2 },
    gaps: [[1, 3]],
    answeredMin: 2,
    cycles: 3,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'window clipping: the snapshot before sinceMs holds into the window',
    snapshots: [...steady(0, 4, (m) => seen(m, 'active')), ...steady(5, 9, (m) => seen(m, 'under_attack'))],
    untilMin: 10,
    sinceMin: 2.5,
    from: 2.5,
    monitoredMin: 7.5,
    statusesMin: { under_attack: 5, active: 2.5 },
    gaps: [],
    answeredMin: 7.5,
    cycles: 7,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'window clipping: a gap across sinceMs is cut at sinceMs',
    snapshots: [seen(0, 'active'), seen(20, 'active'), seen(21, 'active')],
    untilMin: 22,
    sinceMin: 10,
    gapMin: 5,
    from: 10,
    monitoredMin: 2,
    statusesMin: { active: 2 },
    gaps: [[10, 20]],
    answeredMin: 2,
    cycles: 2,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'window before the history: from is the first snapshot',
    snapshots: steady(5, 9, (m) => seen(m, 'active')),
    untilMin: 10,
    sinceMin: 0,
    from: 5,
    monitoredMin: 5,
    statusesMin: { active: 5 },
    gaps: [],
    answeredMin: 5,
    cycles: 5,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'failure kinds: transport, 5xx and 429 are not answers; auth, client and contract are',
    snapshots: [
      seen(0, 'active'),
      failed(1, 'transport'),
      failed(2, 'server'),
      failed(3, 'rate_limited'),
      failed(4, 'auth'),
      failed(5, 'client'),
      failed(6, 'contract'),
      failed(7, 'transport'),
      seen(8, 'active'),
      seen(9, 'active'),
    ],
    untilMin: 10,
    from: 0,
    monitoredMin: 10,
    statusesMin: { [UNREADABLE_STATUS]: 7, active: 3 },
    gaps: [],
    answeredMin: 6,
    cycles: 10,
    failedCycles: 7,
    byKind: { transport: 2, server: 1, rate_limited: 1, auth: 1, client: 1, contract: 1 },
  },
  {
    name: 'cut short by the operator (last cycle): a gap, no evidence about the API',
    snapshots: [...steady(0, 4, (m) => seen(m, 'active')), cutShort(5)],
    untilMin: 6,
    from: 0,
    monitoredMin: 5,
    statusesMin: { active: 5 },
    gaps: [[5, 6]],
    answeredMin: 5,
    cycles: 5,
    failedCycles: 0,
    byKind: {},
    cutShort: 1,
  },
  {
    name: 'cut short in the middle, monitoring resumed at once: only its own interval is a gap',
    snapshots: [
      ...steady(0, 3, (m) => seen(m, 'active')),
      cutShort(4),
      ...steady(5, 9, (m) => seen(m, 'active')),
    ],
    untilMin: 10,
    from: 0,
    monitoredMin: 9,
    statusesMin: { active: 9 },
    gaps: [[4, 5]],
    answeredMin: 9,
    cycles: 9,
    failedCycles: 0,
    byKind: {},
    cutShort: 1,
  },
  {
    name: 'cut short beside a real transport failure: only the real one lowers availability',
    snapshots: [seen(0, 'active'), failed(1, 'transport'), cutShort(2), seen(3, 'active')],
    untilMin: 4,
    from: 0,
    monitoredMin: 3,
    statusesMin: { active: 2, [UNREADABLE_STATUS]: 1 },
    gaps: [[2, 3]],
    answeredMin: 2,
    cycles: 3,
    failedCycles: 1,
    byKind: { transport: 1 },
    cutShort: 1,
  },
  {
    name: 'empty history: zeros',
    snapshots: [],
    untilMin: 10,
    from: 10,
    monitoredMin: 0,
    statusesMin: {},
    gaps: [],
    answeredMin: 0,
    cycles: 0,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'single snapshot: holds until untilMs',
    snapshots: [seen(0, 'active')],
    untilMin: 0.5,
    from: 0,
    monitoredMin: 0.5,
    statusesMin: { active: 0.5 },
    gaps: [],
    answeredMin: 0.5,
    cycles: 1,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'single snapshot long ago: nothing monitored, one gap',
    snapshots: [seen(0, 'active')],
    untilMin: 60,
    from: 0,
    monitoredMin: 0,
    statusesMin: {},
    gaps: [[0, 60]],
    answeredMin: 0,
    cycles: 1,
    failedCycles: 0,
    byKind: {},
  },
  {
    name: 'out of order input and network snapshots: sorted, networks ignored',
    snapshots: [
      seen(2, 'active'),
      {
        target: { kind: 'network', networkId: 'n1' },
        at: iso(1),
        cycleId: 'c1',
        ok: false,
        errorKind: 'server',
      },
      seen(0, 'under_attack'),
      seen(1, 'under_attack'),
      { ...seen(1.5, 'active'), at: 'not a time' },
    ],
    untilMin: 3,
    from: 0,
    monitoredMin: 3,
    statusesMin: { under_attack: 2, active: 1 },
    gaps: [],
    answeredMin: 3,
    cycles: 3,
    failedCycles: 0,
    byKind: {},
  },
];

describe('computeUptime', () => {
  it.each(CASES)('$name', (c) => {
    // Prepare
    const options = {
      untilMs: min(c.untilMin),
      ...(c.sinceMin === undefined ? {} : { sinceMs: min(c.sinceMin) }),
      ...(c.gapMin === undefined ? {} : { gapMs: c.gapMin * MINUTE }),
    };

    // Act
    const report = computeUptime(c.snapshots, options);

    // Assess
    expect(report.from).toBe(iso(c.from));
    expect(report.to).toBe(iso(c.untilMin));
    expect(report.monitoredMs).toBe(c.monitoredMin * MINUTE);
    expect(statusMs(report)).toEqual(
      Object.fromEntries(Object.entries(c.statusesMin).map(([status, m]) => [status, m * MINUTE])),
    );
    expect(report.gaps).toEqual(
      c.gaps.map(([from, to]) => ({ from: iso(from), to: iso(to), ms: (to - from) * MINUTE })),
    );
    expect(report.availability).toEqual({
      share: c.monitoredMin === 0 ? 0 : c.answeredMin / c.monitoredMin,
      answeredMs: c.answeredMin * MINUTE,
      cycles: c.cycles,
      failedCycles: c.failedCycles,
      byKind: c.byKind,
      cutShort: c.cutShort ?? 0,
    });
  });

  it('lists statuses largest first with shares that sum to 1', () => {
    // Prepare
    const snapshots = [
      ...steady(0, 1, (m) => seen(m, 'b')),
      ...steady(2, 6, (m) => seen(m, 'a')),
      ...steady(7, 9, (m) => failed(m, 'transport')),
    ];

    // Act
    const report = computeUptime(snapshots, { untilMs: min(10) });

    // Assess
    expect(report.statuses).toEqual([
      { status: 'a', ms: 5 * MINUTE, share: 0.5 },
      { status: UNREADABLE_STATUS, ms: 3 * MINUTE, share: 0.3 },
      { status: 'b', ms: 2 * MINUTE, share: 0.2 },
    ]);
    expect(report.availability.share).toBeCloseTo(0.7, 12);
  });

  it('keeps statuses exact, including the empty string', () => {
    // Act
    const report = computeUptime([seen(0, ''), seen(1, 'Active ')], { untilMs: min(2) });

    // Assess
    expect(statusMs(report)).toEqual({ '': MINUTE, 'Active ': MINUTE });
  });

  it('derives the default gap from the median interval (5-minute cycles tolerate a 10-minute hole)', () => {
    // Prepare
    const snapshots = [0, 5, 10, 15, 25, 30].map((m) => seen(m, 'active'));

    // Act
    const report = computeUptime(snapshots, { untilMs: min(35) });

    // Assess
    expect(report.gaps).toEqual([]);
    expect(report.monitoredMs).toBe(35 * MINUTE);
  });

  it.each([
    { name: 'untilMs NaN', options: { untilMs: Number.NaN } },
    { name: 'sinceMs infinite', options: { untilMs: T0, sinceMs: Number.POSITIVE_INFINITY } },
    { name: 'gapMs zero', options: { untilMs: T0, gapMs: 0 } },
  ])('rejects unusable options: $name', ({ options }) => {
    // Act / Assess
    expect(() => computeUptime([seen(0, 'active')], options)).toThrow(RangeError);
  });

  it('accounts for every millisecond of the window, whatever the history (property)', () => {
    const anySnapshot: fc.Arbitrary<Snapshot> = fc
      .tuple(
        fc.integer({ min: 0, max: 600 }),
        fc.oneof(
          fc.constantFrom('active', 'under_attack', 'mitigating'),
          fc.constantFrom<ApiFailureKind>(
            'auth',
            'rate_limited',
            'server',
            'client',
            'transport',
            'contract',
          ),
        ),
        fc.boolean(),
        fc.boolean(),
      )
      .map(([m, what, isStatus, stopped]) =>
        stopped
          ? cutShort(m)
          : isStatus && !['auth', 'rate_limited', 'server', 'client', 'transport', 'contract'].includes(what)
            ? seen(m, what)
            : failed(m, what as ApiFailureKind),
      );
    fc.assert(
      fc.property(
        fc.array(anySnapshot, { maxLength: 60 }),
        fc.integer({ min: 0, max: 700 }),
        fc.option(fc.integer({ min: -10, max: 700 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
        (snapshots, untilMin, sinceMin, gapMin) => {
          const report = computeUptime(snapshots, {
            untilMs: min(untilMin),
            ...(sinceMin === undefined ? {} : { sinceMs: min(sinceMin) }),
            ...(gapMin === undefined ? {} : { gapMs: gapMin * MINUTE }),
          });
          const windowMs = Date.parse(report.to) - Date.parse(report.from);
          const gapsMs = report.gaps.reduce((sum, gap) => sum + gap.ms, 0);
          expect(windowMs).toBeGreaterThanOrEqual(0);
          expect(report.monitoredMs + gapsMs).toBe(windowMs);
          expect(report.statuses.reduce((sum, s) => sum + s.ms, 0)).toBe(report.monitoredMs);
          if (report.monitoredMs > 0) {
            expect(Math.abs(report.statuses.reduce((sum, s) => sum + s.share, 0) - 1)).toBeLessThan(1e-9);
          }
          expect(report.availability.answeredMs).toBeLessThanOrEqual(report.monitoredMs);
          expect(report.availability.share).toBeGreaterThanOrEqual(0);
          expect(report.availability.share).toBeLessThanOrEqual(1);
          const byKindTotal = Object.values(report.availability.byKind).reduce((sum, n) => sum + n, 0);
          expect(byKindTotal).toBe(report.availability.failedCycles);
          expect(report.availability.failedCycles).toBeLessThanOrEqual(report.availability.cycles);
        },
      ),
    );
  });
});
