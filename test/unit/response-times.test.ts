/**
 * How fast the team answers (issue 31.4, lambda/core/incidents/response-times.ts): each incident's time to
 * acknowledge and to resolve from the listing's views, and the figures over a set of them: counts per kind and
 * rule, median, 90th percentile and worst by nearest rank, open incidents apart. Hand-made views, so every
 * figure is known exactly.
 */
import { describe, expect, it } from 'vitest';
import type { IncidentView } from '../../lambda/core/incidents/incident-list.ts';
import {
  acknowledgementOf,
  incidentTimes,
  nearestRank,
  responseStats,
  spreadOf,
} from '../../lambda/core/incidents/response-times.ts';

const MIN = 60_000;
const BASE = Date.parse('2026-05-01T10:00:00.000Z');
const at = (minutes: number) => new Date(BASE + minutes * MIN).toISOString();
const NOW = BASE + 1_000 * MIN;

/** A rule incident opened at minute `opened`, with the fields given. */
function view(id: string, opened: number, fields: Partial<IncidentView> = {}): IncidentView {
  return {
    id,
    kind: 'rule',
    rule: 'flood',
    state: 'resolved',
    openedAt: at(opened),
    networks: [],
    about: 'flood',
    members: [],
    timeline: [],
    alerts: [],
    ...fields,
  };
}

describe('nearestRank', () => {
  it.each([
    { values: [], p: 50, expected: undefined },
    { values: [7], p: 50, expected: 7 },
    { values: [7], p: 90, expected: 7 },
    // Even count: the median is the lower middle value (rank ceil(0.5 * 4) = 2).
    { values: [4, 1, 3, 2], p: 50, expected: 2 },
    { values: [1, 2, 3, 4, 5], p: 50, expected: 3 },
    // 10 values: p90 has rank 9; 11 values: rank ceil(9.9) = 10.
    { values: [10, 9, 8, 7, 6, 5, 4, 3, 2, 1], p: 90, expected: 9 },
    { values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], p: 90, expected: 10 },
    { values: [5, 1, 9], p: 100, expected: 9 },
  ])('the $p-th of $values is $expected', ({ values, p, expected }) => {
    expect(nearestRank(values, p)).toBe(expected);
  });

  it('leaves its input as it was', () => {
    const values = [3, 1, 2];
    nearestRank(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('acknowledgementOf', () => {
  it.each([
    {
      name: 'never acknowledged',
      v: view('a', 0, { timeline: [{ at: at(0), what: 'opened', count: 1 }] }),
      expected: undefined,
    },
    {
      name: 'standing: who, when and the note of the item; the first time from the timeline',
      v: view('a', 0, {
        state: 'acknowledged',
        acknowledged: { by: 'bob', at: at(9), note: 'again' },
        timeline: [
          { at: at(2), what: 'acknowledged', count: 0, by: 'alice', note: 'looking' },
          { at: at(5), what: 'unacknowledged', count: 0, by: 'alice' },
          { at: at(9), what: 'acknowledged', count: 0, by: 'bob', note: 'again' },
        ],
      }),
      expected: { by: 'bob', at: at(9), note: 'again', firstAt: at(2) },
    },
    {
      name: 'withdrawn: the latest one, and when it was withdrawn',
      v: view('a', 0, {
        state: 'open',
        timeline: [
          { at: at(3), what: 'acknowledged', count: 0, by: 'alice', note: 'looking' },
          { at: at(6), what: 'unacknowledged', count: 0, by: 'alice' },
        ],
      }),
      expected: { by: 'alice', at: at(3), note: 'looking', firstAt: at(3), withdrawnAt: at(6) },
    },
    {
      name: 'an event-only timeline (a status or API incident): the note is its detail, who unknown',
      v: view('a', 0, {
        kind: 'api',
        timeline: [{ at: at(4), what: 'acknowledged', count: 0, detail: 'provider ticket 7' }],
        alerts: [{ at: at(4), event: 'incident.acknowledged' }],
      }),
      expected: { at: at(4), note: 'provider ticket 7', firstAt: at(4) },
    },
    {
      name: 'only its alert is known: when',
      v: view('a', 0, { alerts: [{ at: at(7), event: 'incident.acknowledged' }] }),
      expected: { at: at(7), firstAt: at(7) },
    },
  ])('$name', ({ v, expected }) => {
    expect(acknowledgementOf(v)).toEqual(expected);
  });
});

describe('incidentTimes', () => {
  it('an acknowledged and resolved incident: both times; an open one: how long so far', () => {
    const done = view('done', 10, {
      resolvedAt: at(70),
      acknowledged: { by: 'alice', at: at(14) },
    });
    const open = view('open', 990, { state: 'open' });

    expect(incidentTimes(done, NOW)).toMatchObject({
      timeToAcknowledgeMs: 4 * MIN,
      timeToResolveMs: 60 * MIN,
      acknowledgedAt: at(14),
    });
    expect(incidentTimes(done, NOW).openForMs).toBeUndefined();
    expect(incidentTimes(open, NOW)).toMatchObject({ openForMs: 10 * MIN, state: 'open' });
    expect(incidentTimes(open, NOW).timeToResolveMs).toBeUndefined();
  });

  it('an acknowledgement stamped before the opening (a clock ahead) counts as 0, never negative', () => {
    const v = view('x', 10, { resolvedAt: at(20), acknowledged: { by: 'a', at: at(9) } });
    expect(incidentTimes(v, NOW).timeToAcknowledgeMs).toBe(0);
  });

  it('resolved without a recorded end: no time to resolve', () => {
    expect(incidentTimes(view('x', 10), NOW).timeToResolveMs).toBeUndefined();
  });
});

describe('responseStats', () => {
  // Ten resolved rule incidents lasting 1..10 minutes, four of them acknowledged after 1..4 minutes; two open
  // ones (one acknowledged after 8 minutes), one API incident resolved without a recorded end.
  const resolved = Array.from({ length: 10 }, (_, i) =>
    view(`flood@${i}`, i * 20, {
      rule: i < 7 ? 'flood' : 'syn',
      resolvedAt: at(i * 20 + (10 - i)),
      ...(i < 4 ? { acknowledged: { by: 'alice', at: at(i * 20 + i + 1) } } : {}),
    }),
  );
  const open = [
    view('open-1', 900, { state: 'open' }),
    view('open-2', 700, { state: 'acknowledged', acknowledged: { by: 'bob', at: at(708) } }),
  ];
  const noEnd = view('api.unreachable/x', 500, { kind: 'api', rule: undefined });
  const stats = responseStats([...resolved, ...open, noEnd], NOW);

  it('counts per kind and per rule, the most first', () => {
    expect(stats).toMatchObject({ count: 13, open: 2, resolved: 11, resolvedWithoutEnd: 1 });
    expect(stats.byKind).toEqual([
      { kind: 'rule', count: 12, open: 2, resolved: 10 },
      { kind: 'api', count: 1, open: 0, resolved: 1 },
    ]);
    expect(stats.byRule).toEqual([
      { rule: 'flood', kind: 'rule', count: 9, open: 2, resolved: 7 },
      { rule: 'syn', kind: 'rule', count: 3, open: 0, resolved: 3 },
    ]);
  });

  it('the time to resolve (the duration) over the resolved ones with an end: median 5m, p90 9m, worst 10m', () => {
    expect(stats.timeToResolve).toEqual({
      count: 10,
      medianMs: 5 * MIN,
      p90Ms: 9 * MIN,
      worstMs: 10 * MIN,
    });
  });

  it('the time to acknowledge over every acknowledged one, open or resolved: 1, 2, 3, 4 and 8 minutes', () => {
    expect(stats.timeToAcknowledge).toEqual({
      count: 5,
      medianMs: 3 * MIN,
      p90Ms: 8 * MIN,
      worstMs: 8 * MIN,
    });
    expect(stats.notAcknowledged).toEqual({ resolved: 7, open: 1 });
  });

  it('the open ones apart: 100 and 300 minutes so far, in no other figure', () => {
    expect(stats.openSoFar).toEqual({ count: 2, medianMs: 100 * MIN, p90Ms: 300 * MIN, worstMs: 300 * MIN });
    expect(stats.percentiles).toBe('nearest-rank');
  });

  it('each incident listed with its times, in the order given', () => {
    expect(stats.incidents.map((t) => t.id)).toEqual([
      ...resolved.map((v) => v.id),
      'open-1',
      'open-2',
      'api.unreachable/x',
    ]);
    expect(stats.incidents[3]).toMatchObject({ timeToAcknowledgeMs: 4 * MIN, timeToResolveMs: 7 * MIN });
  });

  it('no incident: counts of zero and no figure', () => {
    expect(responseStats([], NOW)).toMatchObject({
      count: 0,
      byKind: [],
      byRule: [],
      timeToAcknowledge: spreadOf([]),
      timeToResolve: { count: 0, medianMs: null, p90Ms: null, worstMs: null },
    });
  });
});
