/**
 * The report's first screen (issue 26.1): the incidents of the window derived from its events, the present
 * ("now"), and the chart choices (units, packets apart from bits, rule thresholds, a y-range from zero).
 */
import { describe, expect, it } from 'vitest';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import type { StoredEvent } from '../../lambda/ports.ts';
import { chartPanels, yRange } from '../../lambda/report/charts.ts';
import { eventRows, prepareReport, presentOf } from '../../lambda/report/data.ts';
import {
  deriveIncidents,
  incidentRow,
  peakKey,
  peakWatches,
  withObservedPeaks,
} from '../../lambda/report/incidents.ts';
import { parseFigureUnits, unitOf } from '../../lambda/report/units.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();
const RULE = 'flood: traffic.in_pps > 500k for 2';
let seq = 0;

function ruleEvent(
  event: 'network.rule_triggered' | 'network.rule_resolved',
  minute: number,
  network: string,
  since: number,
  value: number,
  values: number[] = [],
): StoredEvent {
  return {
    seq: ++seq,
    event,
    at: at(minute),
    rule: 'flood',
    network,
    ruleText: RULE,
    value,
    threshold: 500_000,
    values,
    incident: `flood/${network}/${at(since)}`,
    triggeredAt: at(since),
  };
}

const change = (minute: number, from: string, to: string, since: number): StoredEvent => ({
  seq: ++seq,
  event: 'filter.status_changed',
  at: at(minute),
  from,
  to,
  severity: to === 'active' ? 'resolved' : 'high',
  incident: `filter.status_changed/${at(since)}`,
});

describe('deriveIncidents: the window incidents from its events', () => {
  it('groups one rule over several networks whose intervals overlap into one incident, peaks per network', () => {
    // Prepare: edge-1 from minute 1 to 9, edge-2 joins at 3 and resolves at 12 (overlap), edge-3 alone at 20.
    const events = [
      ruleEvent('network.rule_triggered', 1, 'edge-1', 1, 900_000, [700_000]),
      ruleEvent('network.rule_triggered', 3, 'edge-2', 3, 600_000, [800_000]),
      ruleEvent('network.rule_resolved', 9, 'edge-1', 1, 10_000),
      ruleEvent('network.rule_resolved', 12, 'edge-2', 3, 20_000),
      ruleEvent('network.rule_triggered', 20, 'edge-3', 20, 700_000),
    ];

    // Act
    const incidents = deriveIncidents(events, at(0));

    // Assess: the open one first, then newest first; the contract's row shape.
    expect(incidents.map(incidentRow)).toEqual([
      {
        id: `flood/edge-3/${at(20)}`,
        kind: 'rule',
        rule: 'flood',
        state: 'open',
        openedAt: at(20),
        resolvedAt: null,
        networks: [{ network: 'edge-3', peak: 700_000, peakAt: at(20) }],
        acknowledged: false,
      },
      {
        id: `flood/edge-1/${at(1)}`,
        kind: 'rule',
        rule: 'flood',
        state: 'resolved',
        openedAt: at(1),
        resolvedAt: at(12),
        networks: [
          { network: 'edge-1', peak: 900_000, peakAt: at(1) },
          { network: 'edge-2', peak: 800_000, peakAt: at(3) },
        ],
        acknowledged: false,
      },
    ]);
    expect(incidents[1]).toMatchObject({ level: 'critical', path: 'traffic.in_pps', op: '>' });
  });

  it('pairs a status change away with the change back by incident id, and an API outage with its recovery', () => {
    // Prepare
    const events: StoredEvent[] = [
      change(2, 'active', 'mitigating', 2),
      change(4, 'mitigating', 'blackholed', 2),
      change(6, 'blackholed', 'active', 2),
      {
        seq: ++seq,
        event: 'api.unreachable',
        at: at(8),
        detail: 'timeout',
        incident: `api.unreachable/${at(7)}`,
      },
      {
        seq: ++seq,
        event: 'api.recovered',
        at: at(10),
        previousSince: at(7),
        incident: `api.unreachable/${at(7)}`,
      },
    ];

    // Act
    const incidents = deriveIncidents(events, at(0));

    // Assess
    expect(incidents.map((i) => [i.kind, i.id, i.openedAt, i.resolvedAt, i.level, i.detail])).toEqual([
      ['api', `api.unreachable/${at(7)}`, at(8), at(10), 'error', 'timeout'],
      ['status', `filter.status_changed/${at(2)}`, at(2), at(6), 'critical', 'status "blackholed"'],
    ]);
  });

  it('without stored severity or ids, uses the expected status and the open incident of the kind', () => {
    // Prepare: events as stored before ids were kept.
    const events: StoredEvent[] = [
      { seq: ++seq, event: 'filter.status_changed', at: at(1), from: 'active', to: 'mitigating' },
      { seq: ++seq, event: 'api.unreachable', at: at(2) },
      { seq: ++seq, event: 'filter.status_changed', at: at(3), from: 'mitigating', to: 'active' },
      { seq: ++seq, event: 'api.recovered', at: at(5), previousSince: at(1) },
    ];

    // Act
    const incidents = deriveIncidents(events, at(0), { expected: 'active' });

    // Assess
    expect(incidents.map((i) => [i.kind, i.state, i.openedAt, i.resolvedAt])).toEqual([
      ['api', 'resolved', at(2), at(5)],
      ['status', 'resolved', at(1), at(3)],
    ]);
  });

  it('a resolve whose trigger is before the window ends an incident open since the window began', () => {
    // Act
    const incidents = deriveIncidents([ruleEvent('network.rule_resolved', 5, 'edge-1', -30, 1)], at(0));

    // Assess
    expect(incidents.map((i) => [i.id, i.openedAt, i.resolvedAt, i.state])).toEqual([
      [`flood/edge-1/${at(-30)}`, at(0), at(5), 'resolved'],
    ]);
  });

  it("takes a network's peak from its snapshots when they went further than the alert's values", () => {
    // Prepare
    const incidents = deriveIncidents(
      [ruleEvent('network.rule_triggered', 1, 'edge-1', 1, 600_000, [550_000])],
      at(0),
    );
    const [watch] = peakWatches(incidents, T0 + 10 * 60_000);

    // Act
    const peaked = withObservedPeaks(
      incidents,
      new Map([[peakKey(incidents[0]!.id, 'edge-1'), { value: 1_250_000, at: T0 + 4 * 60_000 }]]),
    );

    // Assess
    expect(watch).toMatchObject({ network: 'edge-1', path: 'traffic.in_pps', direction: 'max' });
    expect(watch!.fromMs).toBe(T0 + 60_000);
    expect(watch!.toMs).toBe(T0 + 10 * 60_000);
    expect(peaked[0]!.networks).toEqual([
      expect.objectContaining({ network: 'edge-1', peak: 1_250_000, peakAt: at(4) }),
    ]);
  });
});

describe('the present: the page opens on what is happening', () => {
  const snapshot = (minute: number, status: string): Snapshot => ({
    target: { kind: 'filter' },
    at: at(minute),
    cycleId: `c${minute}`,
    ok: true,
    status,
  });
  const network = (minute: number, pps: number): Snapshot => ({
    target: { kind: 'network', networkId: 'edge-1' },
    at: at(minute),
    cycleId: `c${minute}`,
    ok: true,
    bodyText: JSON.stringify({ traffic: { in_pps: pps, in_bps: pps * 8000 } }),
  });

  it('names the open incident with its networks and the peak read from the snapshots', () => {
    // Prepare
    const data = prepareReport({
      generatedAt: at(10),
      table: 't',
      since: at(0),
      until: at(10),
      filter: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((m) => snapshot(m, m < 3 ? 'active' : 'mitigating')),
      events: [
        change(3, 'active', 'mitigating', 3),
        ruleEvent('network.rule_triggered', 4, 'edge-1', 4, 700_000),
      ],
      networks: [
        {
          id: 'edge-1',
          snapshots: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((m) =>
            network(m, m >= 3 ? 600_000 + m * 100_000 : 1000),
          ),
        },
      ],
      expected: 'active',
    });

    // Assess
    expect(data.present).toMatchObject({ status: 'mitigating', statusSince: T0 + 3 * 60_000, away: true });
    expect(data.present.allClearSince).toBeNull();
    expect(data.present.open.map((i) => [i.kind, i.rule])).toEqual([
      ['rule', 'flood'],
      ['status', null],
    ]);
    const rule = data.present.open[0]!;
    expect(rule.unit).toBe('pps');
    expect(rule.networks).toEqual([
      expect.objectContaining({ network: 'edge-1', peak: 1_500_000, peakAt: at(9) }),
    ]);
  });

  it('says all clear since the last incident resolved, and null without any incident', () => {
    // Prepare
    const band = [{ from: T0, to: T0 + 600_000, status: 'active' }];
    const incidents = deriveIncidents(
      [ruleEvent('network.rule_triggered', 1, 'a', 1, 9e5), ruleEvent('network.rule_resolved', 4, 'a', 1, 1)],
      at(0),
    );

    // Act / Assess
    expect(presentOf(band, incidents, 'active')).toMatchObject({
      status: 'active',
      away: false,
      open: [],
      allClearSince: T0 + 4 * 60_000,
    });
    expect(presentOf(band, [], 'active').allClearSince).toBeNull();
  });
});

describe('severity colours', () => {
  it('gives each event row the level its alert has: critical, error, warning, or resolved when it closes', () => {
    // Act
    const levels = eventRows([
      change(1, 'active', 'mitigating', 1),
      change(2, 'mitigating', 'active', 1),
      { seq: ++seq, event: 'filter.status_changed', at: at(3), from: 'a', to: 'b' },
      { seq: ++seq, event: 'api.unreachable', at: at(4) },
      { seq: ++seq, event: 'api.recovered', at: at(5) },
      ruleEvent('network.rule_triggered', 6, 'e', 6, 9e5),
      ruleEvent('network.rule_resolved', 7, 'e', 6, 1),
    ]).map((row) => row.level);

    // Assess
    expect(levels).toEqual(['critical', 'resolved', 'warning', 'error', 'resolved', 'critical', 'resolved']);
  });
});

describe('chart choices', () => {
  it.each([
    ['traffic.in.pps', 'pps'],
    ['traffic.in_pps', 'pps'],
    ['packets.in', 'pps'],
    ['inPps', 'pps'],
    ['traffic.in.bps', 'bps'],
    ['bits_out', 'bps'],
    ['stats.inbps', 'bps'],
    ['volume.bytes', 'B/s'],
    ['dropped', ''],
    ['load.cpu', ''],
  ])('unitOf(%s) is %j', (path, unit) => {
    expect(unitOf(path)).toBe(unit);
  });

  it('takes a unit from SHIELDWATCH_FIGURE_UNITS over the name, and reports every bad item', () => {
    // Act
    const good = parseFigureUnits(' traffic.in=pps , traffic.vol=B/s, traffic.in.bps=pps ');
    const bad = parseFigureUnits('x, y=a-unit-much-too-long, z=1, z=2');

    // Assess
    expect(good.ok && unitOf('traffic.vol', good.units)).toBe('B/s');
    expect(good.ok && unitOf('traffic.in.bps', good.units)).toBe('pps');
    expect(good.ok && unitOf('traffic.out.bps', good.units)).toBe('bps');
    expect(bad.ok ? [] : bad.problems).toHaveLength(3);
  });

  it('draws packet and bit rates apart, each rule threshold only on the networks and figure it watches', () => {
    // Prepare
    const fields = ['traffic.in.pps', 'traffic.in.bps', 'traffic.out.pps', 'cpu', 'never'];
    const ys = [
      [100, 900_000],
      [8e8, 7e9],
      [90, 80],
      [0.5, 0.6],
      [null, null],
    ];
    const { rules } = parseRules(
      'flood: traffic.in.pps > 500k; big: traffic.in.bps > 5G on edge-2; spiky: traffic.in.pps > 3x baseline',
    );

    // Act
    const edge1 = chartPanels('edge-1', fields, ys, (p) => unitOf(p), rules);
    const edge2 = chartPanels('edge-2', fields, ys, (p) => unitOf(p), rules);

    // Assess
    expect(edge1.map((p) => [p.unit, p.series, p.thresholds.map((t) => t.value), p.last])).toEqual([
      ['pps', [0, 2], [500_000], [900_000, 80]],
      ['bps', [1], [], [7e9]],
      ['', [3], [], [0.6]],
    ]);
    expect(edge1[0]!.notes).toEqual([expect.stringContaining('rule spiky')]);
    expect(edge2[1]!.thresholds.map((t) => t.label)).toEqual(['big: traffic.in.bps > 5000000000']);
  });

  it('starts the value axis at zero, so a figure moving 12% keeps about 12% of the height', () => {
    // Act
    const [lo, hi] = yRange([100, 104, 112, 108]);

    // Assess
    expect(lo).toBe(0);
    expect((112 - 100) / (hi - lo)).toBeLessThan(0.15);
    expect(hi).toBeGreaterThan(112);
    expect(yRange([50], [500_000])[1]).toBeGreaterThan(500_000);
    expect(yRange([-5, 10])[0]).toBeLessThan(-5);
    expect(yRange([])).toEqual([0, 1]);
  });
});
