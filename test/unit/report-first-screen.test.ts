/**
 * The report's first screen (issues 26.1, 31): the incidents from the one listing (CONTRACT §15), the present
 * ("now"), and the chart choices (units, packets apart from bits, rule thresholds, a y-range from zero).
 */
import { describe, expect, it } from 'vitest';
import type { IncidentView } from '../../lambda/core/incidents/incident-list.ts';
import type { StoryMember } from '../../lambda/core/incidents/incidents.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import type { StoredEvent } from '../../lambda/ports.ts';
import { chartPanels, yRange } from '../../lambda/report/charts.ts';
import { eventRows, prepareReport, presentOf } from '../../lambda/report/data.ts';
import {
  MAX_SHOWN_NETWORKS,
  peakKey,
  peakWatches,
  reportIncidents,
  rulesOf,
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

const view = (
  over: Partial<IncidentView> & Pick<IncidentView, 'id' | 'kind' | 'openedAt'>,
): IncidentView => ({
  state: 'open',
  about: over.rule ?? over.kind,
  networks: [],
  members: [],
  timeline: [],
  alerts: [],
  ...over,
});

const member = (network: string, joined: number, peak?: number, left?: number): StoryMember => ({
  network,
  joinedAt: at(joined),
  ...(peak === undefined ? {} : { peak, peakAt: at(joined + 1) }),
  ...(left === undefined ? {} : { leftAt: at(left) }),
});

describe('reportIncidents: the one listing as the report shows it (CONTRACT §15)', () => {
  const window = { sinceMs: T0, untilMs: T0 + 60 * 60_000 };

  it('keeps every open incident whatever its age and kind, and the resolved ones of the window; open first, then newest', () => {
    // Prepare: an attack open for 8 days, a blind spot open now, one resolved in the window, one before it.
    const views = [
      view({
        id: `flood@${at(-8 * 1440)}`,
        kind: 'rule',
        rule: 'flood',
        openedAt: at(-8 * 1440),
        members: [member('edge-1', -8 * 1440, 9e5)],
      }),
      view({
        id: `network.unreachable/0/${at(5)}`,
        kind: 'network',
        about: 'network unreachable',
        openedAt: at(5),
        detail: 'a1',
        members: [member('a1', 5)],
      }),
      view({
        id: `pps@${at(10)}`,
        kind: 'rule',
        rule: 'pps',
        state: 'resolved',
        openedAt: at(10),
        resolvedAt: at(20),
      }),
      view({
        id: `pps@${at(-300)}`,
        kind: 'rule',
        rule: 'pps',
        state: 'resolved',
        openedAt: at(-300),
        resolvedAt: at(-200),
      }),
      view({ id: `late@${at(90)}`, kind: 'rule', rule: 'late', openedAt: at(90) }),
    ];

    // Act
    const incidents = reportIncidents(views, window, rulesOf([], parseRules(RULE).rules));

    // Assess
    expect(incidents.map((i) => [i.id, i.state, i.level])).toEqual([
      [`network.unreachable/0/${at(5)}`, 'open', 'error'],
      [`flood@${at(-8 * 1440)}`, 'open', 'critical'],
      [`pps@${at(10)}`, 'resolved', 'critical'],
    ]);
    expect(incidents[1]).toMatchObject({ path: 'traffic.in_pps', op: '>', detail: RULE, networkCount: 1 });
    expect(incidents[1]!.networks).toEqual([
      { network: 'edge-1', peak: 9e5, peakAt: at(-8 * 1440 + 1), openedAt: at(-8 * 1440), resolvedAt: null },
    ]);
  });

  it('carries the acknowledgement (who, when, note) and the state of the listing', () => {
    // Prepare
    const acknowledged = { by: 'link', at: at(7), note: 'on it' };
    const views = [
      view({
        id: `api.unreachable/${at(3)}`,
        kind: 'api',
        state: 'acknowledged',
        openedAt: at(3),
        acknowledged,
      }),
    ];

    // Act
    const [incident] = reportIncidents(views, window);

    // Assess
    expect(incident).toMatchObject({ state: 'acknowledged', acknowledged, level: 'error' });
  });

  it('names the worst networks of a large incident and counts them all', () => {
    // Prepare: 50 members, peaks 1..50.
    const members = Array.from({ length: 50 }, (_, i) => member(`n${i + 1}`, 1, i + 1));

    // Act
    const [incident] = reportIncidents(
      [view({ id: `flood@${at(1)}`, kind: 'rule', rule: 'flood', openedAt: at(1), members })],
      window,
      rulesOf([], parseRules(RULE).rules),
    );

    // Assess
    expect(incident!.networkCount).toBe(50);
    expect(incident!.networks).toHaveLength(MAX_SHOWN_NETWORKS);
    expect(incident!.networks.map((n) => n.peak)).toEqual(Array.from({ length: 20 }, (_, i) => 31 + i));
  });

  it("keeps the listing's peaks; a member without one gets the snapshots' extreme while it was in", () => {
    // Prepare
    const incidents = reportIncidents(
      [
        view({
          id: `flood@${at(1)}`,
          kind: 'rule',
          rule: 'flood',
          openedAt: at(1),
          members: [member('edge-1', 1, 700_000), member('edge-2', 2)],
        }),
      ],
      window,
      rulesOf([], parseRules(RULE).rules),
    );
    const watches = peakWatches(incidents, window);

    // Act
    const peaked = withObservedPeaks(
      incidents,
      new Map([
        [peakKey(incidents[0]!.id, 'edge-1'), { value: 1_250_000, at: T0 + 4 * 60_000 }],
        [peakKey(incidents[0]!.id, 'edge-2'), { value: 800_000, at: T0 + 5 * 60_000 }],
      ]),
    );

    // Assess
    expect(watches).toEqual([
      expect.objectContaining({
        network: 'edge-2',
        path: 'traffic.in_pps',
        direction: 'max',
        fromMs: T0 + 2 * 60_000,
      }),
    ]);
    expect(peaked[0]!.networks.map((n) => [n.network, n.peak, n.peakAt])).toEqual([
      ['edge-1', 700_000, at(2)],
      ['edge-2', 800_000, at(5)],
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

  it('names the open incidents of the listing with their networks and peaks, and the silence that holds', () => {
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
      incidents: [
        view({
          id: `filter.status_changed/${at(3)}`,
          kind: 'status',
          about: 'status away: "mitigating"',
          openedAt: at(3),
        }),
        view({
          id: `flood@${at(4)}`,
          kind: 'rule',
          rule: 'flood',
          ruleText: RULE,
          openedAt: at(4),
          members: [member('edge-1', 4)],
        }),
      ],
      silences: [
        {
          id: 's-aaaaaaaa',
          startsAt: at(5),
          endsAt: at(70),
          pattern: '*',
          reason: 'filter upgrade',
          createdAt: at(5),
        },
        { id: 's-bbbbbbbb', startsAt: at(80), endsAt: at(90), pattern: 'network.*', createdAt: at(5) },
        { id: 's-cccccccc', startsAt: at(1), endsAt: at(2), pattern: '*', createdAt: at(1) },
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
    expect(data.present.silences).toEqual([
      {
        id: 's-aaaaaaaa',
        pattern: '*',
        reason: 'filter upgrade',
        startsAt: at(5),
        endsAt: at(70),
        active: true,
      },
      {
        id: 's-bbbbbbbb',
        pattern: 'network.*',
        reason: null,
        startsAt: at(80),
        endsAt: at(90),
        active: false,
      },
    ]);
  });

  it('says all clear since the last incident resolved, and null without any incident', () => {
    // Prepare
    const band = [{ from: T0, to: T0 + 600_000, status: 'active' }];
    const incidents = reportIncidents(
      [
        view({
          id: `flood@${at(1)}`,
          kind: 'rule',
          rule: 'flood',
          state: 'resolved',
          openedAt: at(1),
          resolvedAt: at(4),
        }),
      ],
      { sinceMs: T0, untilMs: T0 + 600_000 },
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

describe("the attack's story and how fast the team answers (issue 31.4, 31.5)", () => {
  it('shows per network the first value and the peak against the threshold, how the attack spread, and the response figures', async () => {
    // Prepare: one rule incident acknowledged after 5 minutes and resolved after 20, one status incident open
    const { renderReportHtml } = await import('../../lambda/report/html.ts');
    const { readReportAssets } = await import('../../lambda/report/build.ts');
    const data = prepareReport({
      generatedAt: at(60),
      table: 't',
      since: at(0),
      until: at(60),
      filter: [],
      events: [ruleEvent('network.rule_triggered', 4, 'edge-1', 4, 700_000)],
      rules: parseRules(RULE).rules,
      incidents: [
        view({
          id: `flood@${at(4)}`,
          kind: 'rule',
          rule: 'flood',
          ruleText: RULE,
          state: 'resolved',
          openedAt: at(4),
          resolvedAt: at(24),
          acknowledged: { by: 'ana', at: at(9) },
          spread: { first: { network: 'edge-1', at: at(4) }, last: { network: 'edge-7', at: at(11) } },
          members: [{ ...member('edge-1', 4, 1_500_000, 24), first: 700_000 }],
        }),
        view({ id: `filter.status_changed/${at(30)}`, kind: 'status', openedAt: at(30) }),
      ],
      networks: [],
    });

    // Act
    const html = renderReportHtml(data, readReportAssets());

    // Assess
    expect(data.response).toMatchObject({
      count: 2,
      open: 1,
      resolved: 1,
      timeToAcknowledge: { count: 1, medianMs: 5 * 60_000, worstMs: 5 * 60_000 },
      timeToResolve: { count: 1, medianMs: 20 * 60_000 },
    });
    expect(html).toContain('<section id="response">');
    expect(html).toMatch(/time to acknowledge<\/th><td class="num">1<\/td><td class="num">5m/);
    const text = html.replace(/<[^>]+>/g, '');
    expect(text).toMatch(/spread: first edge-1 at [^,]+, last to join edge-7 at/);
    expect(text).toMatch(/1\.5M pps at [^(]+ \(3\.0x the threshold\), first 700k pps/);
  });
});
