/**
 * The digest's figures from hand-made listing views, filter snapshots and silences over one day (issue 35.1,
 * CONTRACT §19): counts per kind and rule, worst networks, response times, time-weighted statuses, availability,
 * the silences of the period; then the text and the HTML rendering of the same digest.
 */
import { describe, expect, it } from 'vitest';
import { buildDigest, type DigestInput } from '../../lambda/core/digest/digest.ts';
import { renderDigestHtml } from '../../lambda/core/digest/digest-html.ts';
import { renderDigestText } from '../../lambda/core/digest/digest-text.ts';
import type { IncidentView } from '../../lambda/core/incidents/incident-list-view.ts';
import type { Silence } from '../../lambda/core/silences/silence-window.ts';
import type { Snapshot } from '../../lambda/core/types.ts';

const SINCE = '2026-03-01T00:00:00.000Z';
const UNTIL = '2026-03-02T00:00:00.000Z';
const MIN = 60_000;
const HOUR = 60 * MIN;

function view(
  v: Partial<IncidentView> & Pick<IncidentView, 'id' | 'kind' | 'state' | 'openedAt'>,
): IncidentView {
  return { about: v.id, networks: [], members: [], timeline: [], alerts: [], ...v };
}

const VIEWS: IncidentView[] = [
  // A: opened and resolved in the period, acknowledged after 5 minutes, lasted 30 minutes.
  view({
    id: 'flood@A',
    kind: 'rule',
    rule: 'flood',
    state: 'resolved',
    openedAt: '2026-03-01T10:00:00.000Z',
    resolvedAt: '2026-03-01T10:30:00.000Z',
    acknowledged: { by: 'ann', at: '2026-03-01T10:05:00.000Z' },
    networks: [
      { network: 'edge-1', peak: 900_000, peakAt: '2026-03-01T10:10:00.000Z' },
      { network: 'edge-2', peak: 1_200_000, peakAt: '2026-03-01T10:12:00.000Z' },
    ],
  }),
  // B: acknowledged (timeline only) after 15 minutes, lasted 60 minutes; edge-1's worse peak.
  view({
    id: 'flood@B',
    kind: 'rule',
    rule: 'flood',
    state: 'resolved',
    openedAt: '2026-03-01T14:00:00.000Z',
    resolvedAt: '2026-03-01T15:00:00.000Z',
    timeline: [{ at: '2026-03-01T14:15:00.000Z', what: 'acknowledged', count: 0, by: 'bob' }],
    networks: [
      { network: 'edge-1', peak: 2_000_000, peakAt: '2026-03-01T14:20:00.000Z' },
      { network: 'edge-3', peak: 500_000, peakAt: '2026-03-01T14:21:00.000Z' },
    ],
  }),
  // C: opened before the period, resolved in it after 6 hours; never acknowledged.
  view({
    id: 'status@C',
    kind: 'status',
    state: 'resolved',
    openedAt: '2026-02-28T20:00:00.000Z',
    resolvedAt: '2026-03-01T02:00:00.000Z',
  }),
  // D: opened in the period, still open, never acknowledged.
  view({ id: 'api@D', kind: 'api', state: 'open', openedAt: '2026-03-01T20:00:00.000Z' }),
  // E: wholly before the period: in no figure, its huge peak nowhere.
  view({
    id: 'syn@E',
    kind: 'rule',
    rule: 'syn',
    state: 'resolved',
    openedAt: '2026-02-20T00:00:00.000Z',
    resolvedAt: '2026-02-21T00:00:00.000Z',
    acknowledged: { by: 'ann', at: '2026-02-20T00:01:00.000Z' },
    networks: [{ network: 'edge-7', peak: 9e9, peakAt: '2026-02-20T00:02:00.000Z' }],
  }),
  // F: open across the period, acknowledged after 30 minutes before it; one peak before the period, one in it.
  view({
    id: 'syn@F',
    kind: 'rule',
    rule: 'syn',
    state: 'acknowledged',
    openedAt: '2026-02-28T12:00:00.000Z',
    acknowledged: { by: 'cy', at: '2026-02-28T12:30:00.000Z' },
    networks: [
      { network: 'edge-9', peak: 7000, peakAt: '2026-02-28T13:00:00.000Z' },
      { network: 'edge-8', peak: 3000, peakAt: '2026-03-01T01:00:00.000Z' },
    ],
  }),
];

const filter = (at: string, fields: Partial<Snapshot>): Snapshot => ({
  target: { kind: 'filter' },
  at,
  cycleId: at,
  ok: true,
  ...fields,
});

// Every 6 hours: off 12 h (00-06, 18-24), mitigating 6 h, unreadable 6 h (a 503 at 12:00, no answer). A network's
// snapshot is not the filter's: ignored.
const SNAPSHOTS: Snapshot[] = [
  filter('2026-03-01T00:00:00.000Z', { status: 'off', httpStatus: 200 }),
  filter('2026-03-01T06:00:00.000Z', { status: 'mitigating', httpStatus: 200 }),
  filter('2026-03-01T12:00:00.000Z', { ok: false, errorKind: 'server', httpStatus: 503, error: '503' }),
  filter('2026-03-01T18:00:00.000Z', { status: 'off', httpStatus: 200 }),
  {
    target: { kind: 'network', networkId: 'edge-1' },
    at: '2026-03-01T07:00:00.000Z',
    cycleId: 'n',
    ok: false,
  },
];

const SILENCES: Silence[] = [
  {
    id: 's-upgrade1',
    startsAt: '2026-03-01T03:00:00.000Z',
    endsAt: '2026-03-01T04:00:00.000Z',
    pattern: '*',
    reason: 'upgrade',
    createdAt: '2026-03-01T02:59:00.000Z',
  },
  {
    id: 's-oldone11',
    startsAt: '2026-02-26T03:00:00.000Z',
    endsAt: '2026-02-27T04:00:00.000Z',
    pattern: '*',
    createdAt: '2026-02-26T02:59:00.000Z',
  },
  // A nightly window: the occurrence across the period's start counts, the next one (after it) does not.
  {
    id: 's-nightly1',
    startsAt: '2026-02-28T23:00:00.000Z',
    endsAt: '2026-03-01T01:00:00.000Z',
    pattern: 'network.*',
    reason: 'nightly',
    createdAt: '2026-02-01T00:00:00.000Z',
    window: { repeat: 'daily', tz: 'UTC', notify: false, source: 'context' },
  },
  {
    id: 's-nightly1',
    startsAt: '2026-03-02T23:00:00.000Z',
    endsAt: '2026-03-03T01:00:00.000Z',
    pattern: 'network.*',
    reason: 'nightly',
    createdAt: '2026-02-01T00:00:00.000Z',
    window: { repeat: 'daily', tz: 'UTC', notify: false, source: 'context' },
  },
];

const INPUT: DigestInput = {
  incidents: VIEWS,
  snapshots: SNAPSHOTS,
  silences: SILENCES,
  since: SINCE,
  until: UNTIL,
};

describe('buildDigest', () => {
  // Prepare / Act
  const digest = buildDigest(INPUT);

  it('counts the incidents opened and resolved in the period, per kind and per rule', () => {
    // Assess: opened A, B, D; resolved A, B, C; open at the end D, F.
    expect(digest.incidents.opened).toBe(3);
    expect(digest.incidents.resolved).toBe(3);
    expect(digest.incidents.openAtEnd).toBe(2);
    expect(digest.incidents.byKind).toEqual([
      { kind: 'rule', opened: 2, resolved: 2 },
      { kind: 'api', opened: 1, resolved: 0 },
      { kind: 'status', opened: 0, resolved: 1 },
    ]);
    expect(digest.incidents.byRule).toEqual([{ rule: 'flood', kind: 'rule', opened: 2, resolved: 2 }]);
  });

  it('a period that ended before now (a late digest): an incident resolved since counts as open at its end', () => {
    // Prepare: opened in the period, resolved an hour after it; one resolved without a recorded end is not open.
    const later = view({
      id: 'flood@L',
      kind: 'rule',
      rule: 'flood',
      state: 'resolved',
      openedAt: '2026-03-01T23:00:00.000Z',
      resolvedAt: '2026-03-02T01:00:00.000Z',
    });
    const noEnd = view({ id: 'api@N', kind: 'api', state: 'resolved', openedAt: '2026-03-01T22:00:00.000Z' });

    // Act
    const late = buildDigest({ ...INPUT, incidents: [later, noEnd] });

    // Assess
    expect(late.incidents).toMatchObject({ opened: 2, resolved: 0, openAtEnd: 1 });
  });

  it("names each rule's worst networks by their highest peak in the period, no older peak", () => {
    expect(digest.worstNetworks).toEqual([
      {
        rule: 'flood',
        networks: [
          { network: 'edge-1', peak: 2_000_000, peakAt: '2026-03-01T14:20:00.000Z', incident: 'flood@B' },
          { network: 'edge-2', peak: 1_200_000, peakAt: '2026-03-01T10:12:00.000Z', incident: 'flood@A' },
          { network: 'edge-3', peak: 500_000, peakAt: '2026-03-01T14:21:00.000Z', incident: 'flood@B' },
        ],
      },
      {
        rule: 'syn',
        networks: [{ network: 'edge-8', peak: 3000, peakAt: '2026-03-01T01:00:00.000Z', incident: 'syn@F' }],
      },
    ]);
  });

  it("times acknowledgement and resolution over the period's incidents: median and worst", () => {
    // To acknowledge: A 5m, B 15m, F 30m (E is not of the period). To resolve: A 30m, B 60m, C 6h.
    expect(digest.response.timeToAcknowledge).toEqual({ count: 3, medianMs: 15 * MIN, worstMs: 30 * MIN });
    expect(digest.response.timeToResolve).toEqual({ count: 3, medianMs: 60 * MIN, worstMs: 6 * HOUR });
    expect(digest.response.notAcknowledged).toBe(2);
  });

  it('shares the filter statuses by time and counts the cycles the API answered', () => {
    expect(digest.filter.monitoredMs).toBe(24 * HOUR);
    expect(digest.filter.notMonitoredMs).toBe(0);
    expect(digest.filter.statuses).toEqual([
      { status: 'off', ms: 12 * HOUR, share: 0.5 },
      { status: '(unreadable)', ms: 6 * HOUR, share: 0.25 },
      { status: 'mitigating', ms: 6 * HOUR, share: 0.25 },
    ]);
    expect(digest.availability).toEqual({
      cycles: 4,
      answeredCycles: 3,
      share: 0.75,
      timeShare: 0.75,
      failedByKind: { server: 1 },
    });
  });

  it('lets the snapshot before the period hold into it, without counting its cycle', () => {
    // "mitigating" from 23:00 the day before holds 00:00-06:00 of the period; then "off" every 6 hours.
    const digestOf = buildDigest({
      ...INPUT,
      snapshots: [
        filter('2026-02-28T23:00:00.000Z', { status: 'mitigating' }),
        filter('2026-03-01T06:00:00.000Z', { status: 'off' }),
        filter('2026-03-01T12:00:00.000Z', { status: 'off' }),
        filter('2026-03-01T18:00:00.000Z', { status: 'off' }),
      ],
    });
    expect(digestOf.filter.monitoredMs).toBe(24 * HOUR);
    expect(digestOf.filter.statuses).toEqual([
      { status: 'off', ms: 18 * HOUR, share: 0.75 },
      { status: 'mitigating', ms: 6 * HOUR, share: 0.25 },
    ]);
    expect(digestOf.availability.cycles).toBe(3);
  });

  it('counts a rejected key as an answer and a time-out as none', () => {
    const digestOf = buildDigest({
      ...INPUT,
      snapshots: [
        filter('2026-03-01T00:00:00.000Z', { ok: false, errorKind: 'auth', httpStatus: 401 }),
        filter('2026-03-01T00:01:00.000Z', { ok: false, errorKind: 'transport' }),
        filter('2026-03-01T00:02:00.000Z', { status: 'off' }),
        filter('2026-03-01T00:03:00.000Z', { status: 'off' }),
      ],
    });
    expect(digestOf.availability.cycles).toBe(4);
    expect(digestOf.availability.answeredCycles).toBe(3);
    expect(digestOf.availability.share).toBe(0.75);
  });

  it('lists the silences and window occurrences that overlap the period, by start', () => {
    expect(digest.silences).toEqual([
      {
        id: 's-nightly1',
        kind: 'maintenance',
        startsAt: '2026-02-28T23:00:00.000Z',
        endsAt: '2026-03-01T01:00:00.000Z',
        pattern: 'network.*',
        reason: 'nightly',
        repeat: 'daily',
        source: 'context',
      },
      {
        id: 's-upgrade1',
        kind: 'silence',
        startsAt: '2026-03-01T03:00:00.000Z',
        endsAt: '2026-03-01T04:00:00.000Z',
        pattern: '*',
        reason: 'upgrade',
      },
    ]);
  });

  it('gives empty figures for an empty period and refuses a period that ends before it starts', () => {
    const empty = buildDigest({ incidents: [], snapshots: [], silences: [], since: SINCE, until: UNTIL });
    expect(empty.incidents).toEqual({ opened: 0, resolved: 0, openAtEnd: 0, byKind: [], byRule: [] });
    expect(empty.response.timeToAcknowledge).toEqual({ count: 0, medianMs: null, worstMs: null });
    expect(empty.availability.share).toBeNull();
    expect(() => buildDigest({ ...INPUT, since: UNTIL, until: SINCE })).toThrow(RangeError);
  });
});

describe('renderDigestText', () => {
  it('says the figures in lines', () => {
    const text = renderDigestText(buildDigest(INPUT));
    expect(text).toContain('incidents: 3 opened, 3 resolved, 2 open at the end');
    expect(text).toContain('  flood (rule): 2 opened, 2 resolved');
    expect(text).toContain('  flood: edge-1 2000000 at 2026-03-01T14:20:00.000Z, edge-2 1200000');
    expect(text).toContain('time to acknowledge: median 15m, worst 30m (3 incidents); 2 not acknowledged');
    expect(text).toContain('time to resolve:     median 1h, worst 6h (3 incidents)');
    expect(text).toContain('  "off": 50.00% (12h)');
    expect(text).toContain('API availability: 75.00% of cycles answered (3 of 4), 75.00% of monitored time');
    expect(text).toContain('  maintenance s-nightly1 2026-02-28T23:00:00.000Z .. 2026-03-01T01:00:00.000Z');
  });

  it('shows a hidden character of a stored text as its code point', () => {
    const text = renderDigestText(
      buildDigest({ ...INPUT, incidents: [{ ...VIEWS[0]!, rule: 'fl\u202eood' }] }),
    );
    expect(text).toContain('fl<U+202E>ood (rule)');
    expect(text).not.toContain('\u202e');
  });
});

describe('renderDigestHtml', () => {
  it('is one self-contained page with every stored text escaped', () => {
    const html = renderDigestHtml(
      buildDigest({
        ...INPUT,
        incidents: [{ ...VIEWS[0]!, rule: '<script>alert(1)</script>' }],
        silences: [{ ...SILENCES[0]!, reason: '"><img src=x onerror=alert(1)>' }],
      }),
    );
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('&#34;&#62;&#60;img src=x onerror=alert(1)&#62;');
    expect(html).not.toMatch(/<script|<img|<link|\bsrc=["']|url\(|https?:/i);
    expect(html).toContain('<td>&#34;mitigating&#34;</td><td>25.00%</td><td>6h</td>');
    expect(html).toContain('75.00% of cycles answered (3 of 4)');
  });
});
