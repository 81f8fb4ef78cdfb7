/**
 * The pure part of `shieldwatch backtest`: readings of stored snapshots, cycles put back together from
 * snapshots, the replay through evaluateRules (the same decisions as the Lambda's cycle by cycle), and the
 * oldest-first merge of per-network streams.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CYCLE_SPAN_MS,
  CycleGrouper,
  mergeOldestFirst,
  type ReplayCycle,
  type ReplayObservation,
  RuleReplay,
  snapshotReadings,
} from '../../cli/backtest/replay.ts';
import { evaluateRules } from '../../lambda/core/rules/rule-eval.ts';
import type { RuleAlert, RuleReading, RuleState } from '../../lambda/core/rules/rule-types.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';

function rulesOf(text: string) {
  const parsed = parseRules(text);
  expect(parsed.problems).toEqual([]);
  return parsed.rules;
}

/** Cycle `i`'s time: one a minute, plus `ms`. */
function at(i: number, ms = 0): string {
  return new Date(Date.UTC(2026, 2, 1, 10, i) + ms).toISOString();
}

type Seen = number | boolean | 'x';

function observation(networkId: string, i: number, seen: Seen, cycleId = `c${i}`, ms = 0): ReplayObservation {
  const reading: RuleReading = seen === 'x' ? { kind: 'none' } : { kind: 'value', value: seen };
  return { networkId, at: at(i, ms), cycleId, readings: { pps: reading, flag: reading, surge: reading } };
}

function brief(alerts: readonly RuleAlert[]): string[] {
  return alerts.map(
    (a) =>
      `${a.rule}/${a.network} ${a.event === 'network.rule_triggered' ? 'triggered' : 'resolved'} ${a.value}`,
  );
}

describe('snapshotReadings', () => {
  const rules = rulesOf('pps: traffic.in.pps > 100; flag: attack.active == true');
  it.each([
    [
      'an ok snapshot with a JSON body',
      { ok: true, bodyText: '{"traffic":{"in":{"pps":150}},"attack":{"active":true}}' },
      { pps: { kind: 'value', value: 150 }, flag: { kind: 'value', value: true } },
    ],
    [
      'a path missing or of the wrong type',
      { ok: true, bodyText: '{"traffic":{"in":{"pps":"150"}}}' },
      { pps: { kind: 'none' }, flag: { kind: 'none' } },
    ],
    [
      'a failed snapshot, even with a body',
      { ok: false, bodyText: '{"traffic":{"in":{"pps":150}}}' },
      { pps: { kind: 'none' }, flag: { kind: 'none' } },
    ],
    [
      'an ok snapshot whose body was not stored',
      { ok: true },
      { pps: { kind: 'none' }, flag: { kind: 'none' } },
    ],
    [
      'a body that is not JSON',
      { ok: true, bodyText: '{"traffic":' },
      { pps: { kind: 'none' }, flag: { kind: 'none' } },
    ],
  ])('%s', (_name, snapshot, expected) => {
    expect(snapshotReadings(rules, snapshot)).toEqual(expected);
  });
});

describe('CycleGrouper', () => {
  it('groups by cycle id, interleaved concurrent cycles apart, each at its earliest snapshot', () => {
    const grouper = new CycleGrouper();
    const out: ReplayCycle[] = [];
    // Two cycles started 3 ms apart whose snapshots interleave, then a cycle a minute later.
    for (const o of [
      observation('a', 0, 1, 'x', 0),
      observation('b', 0, 2, 'x', 1),
      observation('a', 0, 3, 'y', 3),
      observation('b', 0, 4, 'y', 4),
      observation('c', 0, 5, 'x', 5),
    ]) {
      out.push(...grouper.push(o));
    }
    expect(out).toEqual([]);
    out.push(...grouper.push(observation('a', 1, 6, 'z', 10)));
    expect(out.map((c) => [c.cycleId, c.at, c.observations.map((o) => o.networkId).join('')])).toEqual([
      ['x', at(0, 0), 'abc'],
      ['y', at(0, 3), 'ab'],
    ]);
    expect(grouper.end().map((c) => c.cycleId)).toEqual(['z']);
    expect(grouper.end()).toEqual([]);
  });

  it('holds a cycle open until a snapshot a whole span later', () => {
    const grouper = new CycleGrouper();
    expect(grouper.push(observation('a', 0, 1, 'x'))).toEqual([]);
    expect(grouper.push(observation('a', 0, 1, 'y', CYCLE_SPAN_MS))).toEqual([]);
    expect(grouper.push(observation('a', 0, 1, 'w', CYCLE_SPAN_MS + 1)).map((c) => c.cycleId)).toEqual(['x']);
  });
});

describe('CycleGrouper: cycles by cycle id and time', () => {
  /** The cycles the grouper makes of `observations`, as `cycleId@minute:networks`. */
  function cyclesOf(observations: readonly ReplayObservation[]): string[] {
    const grouper = new CycleGrouper();
    const out = [...observations.flatMap((o) => grouper.push(o)), ...grouper.end()];
    return out.map(
      (c) => `${c.cycleId}@${c.at.slice(14, 23)}:${c.observations.map((o) => o.networkId).join('')}`,
    );
  }

  it.each([
    {
      name: 'one network, one cycle id reused a minute apart: each snapshot its own cycle',
      observations: [0, 1, 2, 3].map((i) => observation('a', i, i, 'same')),
      want: ['same@00:00.000:a', 'same@01:00.000:a', 'same@02:00.000:a', 'same@03:00.000:a'],
    },
    {
      name: 'no cycle id stored, two networks every 30 s: grouped by time alone',
      observations: [0, 1, 2].flatMap((i) => [
        observation('a', 0, i, '', i * 30_000),
        observation('b', 0, i, '', i * 30_000 + 2),
      ]),
      want: ['@00:00.000:ab', '@00:30.000:ab', '@01:00.000:ab'],
    },
    {
      name: 'the same id on two networks further apart than a cycle can take: two cycles',
      observations: [observation('a', 0, 1, 'x'), observation('b', 0, 2, 'x', CYCLE_SPAN_MS + 1)],
      want: ['x@00:00.000:a', 'x@01:00.001:b'],
    },
    {
      name: 'one cycle whose requests started seconds apart stays one cycle',
      observations: [observation('a', 0, 1, 'x'), observation('b', 0, 2, 'x', 20_000)],
      want: ['x@00:00.000:ab'],
    },
  ])('$name', ({ observations, want }) => {
    expect(cyclesOf(observations)).toEqual(want);
  });

  it('replays every cycle of a network whose snapshots share one cycle id: none is lost to a merge', () => {
    // Prepare: pps over 100 for 2 cycles triggers; the four cycles read 150, 150, 10, 10.
    const rules = rulesOf('pps: traffic.in.pps > 100 for 2');
    const replay = new RuleReplay(rules, ['a']);
    const grouper = new CycleGrouper();
    const alerts: RuleAlert[] = [];

    // Act
    for (const [i, pps] of [150, 150, 10, 10].entries()) {
      const o: ReplayObservation = {
        networkId: 'a',
        at: at(i),
        cycleId: '',
        readings: { pps: { kind: 'value', value: pps } },
      };
      for (const cycle of grouper.push(o)) alerts.push(...replay.apply(cycle));
    }
    for (const cycle of grouper.end()) alerts.push(...replay.apply(cycle));

    // Assess
    expect(replay.cycles).toBe(4);
    expect(brief(alerts)).toEqual(['pps/a triggered 150', 'pps/a resolved 10']);
  });
});

/** Replays cycles of `{ network: seen }` (one cycle a minute) and returns the alerts, briefly, per cycle. */
function replayCycles(text: string, networks: readonly string[], cycles: readonly Record<string, Seen>[]) {
  const replay = new RuleReplay(rulesOf(text), networks);
  const perCycle = cycles.map((cycle, i) =>
    brief(
      replay.apply({
        cycleId: `c${i}`,
        at: at(i),
        observations: Object.entries(cycle).map(([network, seen]) => observation(network, i, seen)),
      }),
    ),
  );
  return { replay, perCycle };
}

describe('RuleReplay', () => {
  it.each<{ name: string; text: string; cycles: Record<string, Seen>[]; expected: string[][] }>([
    {
      name: 'a threshold for 2: triggers on the second cycle in a row, resolves after two below',
      text: 'pps: x > 100 for 2',
      cycles: [{ a: 150 }, { a: 160 }, { a: 50 }, { a: 40 }],
      expected: [[], ['pps/a triggered 160'], [], ['pps/a resolved 40']],
    },
    {
      name: 'a failed snapshot or a network not observed is no evidence: the count neither grows nor resets',
      text: 'pps: x > 100 for 3',
      cycles: [{ a: 150 }, { a: 'x' }, {}, { a: 170 }, { a: 180 }],
      expected: [[], [], [], [], ['pps/a triggered 180']],
    },
    {
      name: 'a boolean rule with on watches only its network',
      text: 'flag: x == true on b',
      cycles: [
        { a: true, b: false },
        { a: true, b: true },
        { a: true, b: false },
      ],
      expected: [[], ['flag/b triggered true'], ['flag/b resolved false']],
    },
  ])('$name', ({ text, cycles, expected }) => {
    expect(replayCycles(text, ['a', 'b'], cycles).perCycle).toEqual(expected);
  });

  it('a baseline rule learns for 10 readable values, then fires on a surge', () => {
    const normal = Array.from({ length: 12 }, (_, i) => ({ a: 100 + (i % 3) }));
    const { perCycle, replay } = replayCycles('surge: x > 3x baseline', ['a'], [...normal, { a: 900 }]);
    expect(perCycle.flat()).toEqual(['surge/a triggered 900']);
    expect(replay.counts()).toEqual([
      {
        rule: 'surge',
        network: 'a',
        readings: 13,
        min: 100,
        max: 900,
        triggered: 1,
        resolved: 0,
        end: 'open',
      },
    ]);
  });

  it('counts per rule and network: values read, range, alerts, the state at the end', () => {
    const { replay } = replayCycles(
      'pps: x > 100; surge: x > 2x baseline',
      ['a', 'b'],
      [{ a: 150, b: 'x' }, { a: 50 }, { a: 160 }],
    );
    expect(replay.counts()).toEqual([
      { rule: 'pps', network: 'a', readings: 3, min: 50, max: 160, triggered: 2, resolved: 1, end: 'open' },
      { rule: 'pps', network: 'b', readings: 0, triggered: 0, resolved: 0, end: 'closed' },
      {
        rule: 'surge',
        network: 'a',
        readings: 3,
        min: 50,
        max: 160,
        triggered: 0,
        resolved: 0,
        end: 'learning',
      },
      { rule: 'surge', network: 'b', readings: 0, triggered: 0, resolved: 0, end: 'learning' },
    ]);
    expect(replay.cycles).toBe(3);
    expect([replay.firstAt, replay.lastCycleAt]).toEqual([at(0), at(2)]);
  });

  it('a network seen again in a cycle no newer than the last applied to it (a duplicate) is no evidence', () => {
    const replay = new RuleReplay(rulesOf('pps: x > 100 for 2'), ['a', 'b']);
    const cycle = (id: string, i: number, observations: ReplayObservation[]): ReplayCycle => ({
      cycleId: id,
      at: at(i),
      observations,
    });
    expect(replay.apply(cycle('c0', 0, [observation('a', 0, 150, 'c0')]))).toEqual([]);
    // A duplicate of cycle 0 (same time, another id) would be the second in a row if it counted.
    expect(
      replay.apply(cycle('d0', 0, [observation('a', 0, 150, 'd0'), observation('b', 0, 150, 'd0')])),
    ).toEqual([]);
    // b was not in cycle 0, so the duplicate's reading of b counted; a's did not.
    expect(brief(replay.apply(cycle('c1', 1, [observation('a', 1, 150), observation('b', 1, 150)])))).toEqual(
      ['pps/a triggered 150', 'pps/b triggered 150'],
    );
    expect(replay.cycles).toBe(3);
  });

  it('property: the same alerts as evaluateRules applied cycle by cycle to every network, as the Lambda does', () => {
    const seen = fc.oneof(fc.constant<Seen>('x'), fc.integer({ min: 0, max: 300 }));
    const cycleArb = fc.record({
      a: fc.option(seen, { nil: undefined }),
      b: fc.option(seen, { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(cycleArb, { maxLength: 40 }), fc.integer({ min: 1, max: 3 }), (cycles, n) => {
        const rules = rulesOf(`pps: x > 150 for ${n}; surge: x >= 2x baseline for ${n} on b`);
        const replay = new RuleReplay(rules, ['a', 'b']);
        let state: RuleState | undefined;
        for (const [i, cycle] of cycles.entries()) {
          const observations = Object.entries(cycle).flatMap(([network, s]) =>
            s === undefined ? [] : [observation(network, i, s)],
          );
          const direct = evaluateRules({ rules, networks: ['a', 'b'], state, at: at(i), observations });
          state = direct.state;
          expect(replay.apply({ cycleId: `c${i}`, at: at(i), observations })).toEqual(
            observations.length === 0 ? [] : direct.alerts,
          );
        }
      }),
    );
  });
});

describe('mergeOldestFirst', () => {
  async function* from<T>(items: readonly T[]): AsyncGenerator<T> {
    for (const item of items) yield item;
  }

  it('merges sorted streams oldest first, ties by cycle id, holding one item of each', async () => {
    const item = (t: number, cycleId: string, tag: string) => ({ at: at(0, t), cycleId, tag });
    const merged: string[] = [];
    for await (const x of mergeOldestFirst([
      from([item(0, 'a', 's0'), item(5, 'b', 's0'), item(9, 'c', 's0')]),
      from([]),
      from([item(0, 'a', 's2'), item(5, 'a', 's2')]),
      from([item(1, 'z', 's3')]),
    ])) {
      merged.push(`${x.tag}@${x.at.slice(20)}/${x.cycleId}`);
    }
    expect(merged).toEqual(['s0@000Z/a', 's2@000Z/a', 's3@001Z/z', 's2@005Z/a', 's0@005Z/b', 's0@009Z/c']);
  });

  it('property: the output is the sorted union of the inputs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 20 }), { maxLength: 20 }),
        async (lists) => {
          const streams = lists.map((list) =>
            from([...list].sort((x, y) => x - y).map((t) => ({ at: at(0, t), cycleId: 'c' }))),
          );
          const out: number[] = [];
          for await (const x of mergeOldestFirst(streams)) out.push(Date.parse(x.at) - Date.parse(at(0)));
          expect(out).toEqual(lists.flat().sort((x, y) => x - y));
        },
      ),
    );
  });
});
