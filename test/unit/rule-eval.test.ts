import { describe, expect, it } from 'vitest';
import {
  BASELINE_MIN_VALUES,
  BASELINE_WINDOW,
  evaluateRules,
  median,
  ruleNetworks,
} from '../../lambda/core/rules/rule-eval.ts';
import type {
  RuleAlert,
  RuleNetworkObservation,
  RuleReading,
  RuleState,
} from '../../lambda/core/rules/rule-types.ts';
import { parseRules, readRules } from '../../lambda/core/rules/rules.ts';

/** Observation time of cycle `i`: one cycle a minute. */
function at(i: number): string {
  return new Date(Date.UTC(2026, 2, 1, 10, i)).toISOString();
}

function rulesOf(text: string) {
  const parsed = parseRules(text);
  expect(parsed.problems).toEqual([]);
  return parsed.rules;
}

/** One network's readings in a cycle: a value for every rule, `x` for none (a failed or unreadable reading). */
type Seen = number | boolean | 'x';

/** A cycle: each observed network's reading (the same for every rule); a network left out was not observed. */
type Cycle = Readonly<Record<string, Seen>>;

function observations(ruleNames: readonly string[], cycle: Cycle, i: number): RuleNetworkObservation[] {
  return Object.entries(cycle).map(([networkId, seen]) => ({
    networkId,
    at: at(i),
    readings: Object.fromEntries(
      ruleNames.map((name): [string, RuleReading] => [
        name,
        seen === 'x' ? { kind: 'none' } : { kind: 'value', value: seen },
      ]),
    ),
  }));
}

/** `rule/network event` for each alert. */
function brief(alerts: readonly RuleAlert[]): string[] {
  return alerts.map(
    (a) => `${a.rule}/${a.network} ${a.event === 'network.rule_triggered' ? 'triggered' : 'resolved'}`,
  );
}

/** Replays cycles one by one and returns the alerts after each, briefly, and the last result. */
function replay(text: string, networks: readonly string[], cycles: readonly Cycle[]) {
  const rules = rulesOf(text);
  let state: RuleState | undefined;
  const perCycle: string[][] = [];
  const all: RuleAlert[] = [];
  for (const [i, cycle] of cycles.entries()) {
    const result = evaluateRules({
      rules,
      networks,
      state,
      at: at(i),
      observations: observations(
        rules.map((r) => r.name),
        cycle,
        i,
      ),
    });
    expect(result.stale).toBe(false);
    state = result.state;
    perCycle.push(brief(result.alerts));
    all.push(...result.alerts);
  }
  return { perCycle, all, state: state! };
}

const T = (cell = 'r/n1') => [`${cell} triggered`];
const R = (cell = 'r/n1') => [`${cell} resolved`];
const _ = [] as string[];

describe('evaluateRules: sequences replayed cycle by cycle', () => {
  it.each<{ name: string; rule: string; networks?: string[]; cycles: Cycle[]; alerts: string[][] }>([
    {
      name: 'for 1: triggers at once and resolves at once',
      rule: 'r: pps > 100',
      cycles: [{ n1: 50 }, { n1: 150 }, { n1: 200 }, { n1: 90 }, { n1: 80 }],
      alerts: [_, T(), _, R(), _],
    },
    {
      name: 'the threshold itself does not hold > (but does >=)',
      rule: 'r: pps > 100',
      cycles: [{ n1: 100 }, { n1: 100.5 }],
      alerts: [_, T()],
    },
    {
      name: 'for 3: two holding cycles and a failing one reset the count',
      rule: 'r: pps > 100 for 3',
      cycles: [{ n1: 150 }, { n1: 150 }, { n1: 50 }, { n1: 150 }, { n1: 150 }, { n1: 150 }],
      alerts: [_, _, _, _, _, T()],
    },
    {
      name: 'for 2: resolves after two failing cycles in a row, a holding one in between resets',
      rule: 'r: pps > 100 for 2',
      cycles: [{ n1: 150 }, { n1: 150 }, { n1: 50 }, { n1: 150 }, { n1: 50 }, { n1: 50 }],
      alerts: [_, T(), _, _, _, R()],
    },
    {
      name: 'a none reading is no evidence: the count neither grows nor resets',
      rule: 'r: pps > 100 for 3',
      cycles: [{ n1: 150 }, { n1: 'x' }, { n1: 150 }, { n1: 'x' }, { n1: 'x' }, { n1: 150 }],
      alerts: [_, _, _, _, _, T()],
    },
    {
      name: 'a network not observed this cycle is no evidence either',
      rule: 'r: pps > 100 for 2',
      cycles: [{ n1: 150 }, {}, { n1: 150 }, { n1: 50 }, {}, { n1: 50 }],
      alerts: [_, _, T(), _, _, R()],
    },
    {
      name: 'every request failing keeps an open incident open',
      rule: 'r: pps > 100',
      cycles: [{ n1: 150 }, { n1: 'x' }, { n1: 'x' }, { n1: 'x' }, { n1: 50 }],
      alerts: [T(), _, _, _, R()],
    },
    {
      name: 'booleans: == true',
      rule: 'r: attack == true for 2',
      cycles: [{ n1: false }, { n1: true }, { n1: true }, { n1: true }, { n1: false }, { n1: false }],
      alerts: [_, _, T(), _, _, R()],
    },
    {
      name: 'a reading of the wrong type is no evidence',
      rule: 'r: attack == true for 2',
      cycles: [{ n1: true }, { n1: 1 }, { n1: true }],
      alerts: [_, _, T()],
    },
    {
      name: 'each network on its own',
      rule: 'r: pps > 100',
      networks: ['n1', 'n2'],
      cycles: [
        { n1: 150, n2: 50 },
        { n1: 150, n2: 150 },
        { n1: 50, n2: 150 },
      ],
      alerts: [T('r/n1'), T('r/n2'), R('r/n1')],
    },
    {
      name: '"on" restricts the rule to its networks',
      rule: 'r: pps > 100 on n2',
      networks: ['n1', 'n2'],
      cycles: [
        { n1: 150, n2: 50 },
        { n1: 150, n2: 150 },
      ],
      alerts: [_, T('r/n2')],
    },
    {
      name: '"on" networks not in this scope are not watched here',
      rule: 'r: pps > 100 on n9',
      networks: ['n1'],
      cycles: [{ n1: 150, n9: 150 }],
      alerts: [_],
    },
  ])('$name', ({ rule, networks, cycles, alerts }) => {
    expect(replay(rule, networks ?? ['n1'], cycles).perCycle).toEqual(alerts);
  });

  it('several rules at once, alerts in rule order', () => {
    const { perCycle } = replay(
      'a: pps > 100; b: pps < 10; c: pps > 1k on n2',
      ['n1', 'n2'],
      [
        { n1: 5, n2: 2000 },
        { n1: 50, n2: 50 },
      ],
    );
    expect(perCycle).toEqual([
      ['a/n2 triggered', 'b/n1 triggered', 'c/n2 triggered'],
      ['a/n2 resolved', 'b/n1 resolved', 'c/n2 resolved'],
    ]);
  });
});

describe('evaluateRules: what an alert carries', () => {
  it('a trigger and its resolve share the incident; values are the run, triggeredAt is the trigger time', () => {
    const { all } = replay(
      'r: pps > 100 for 2',
      ['n1'],
      [{ n1: 150 }, { n1: 'x' }, { n1: 170 }, { n1: 20 }, { n1: 30 }],
    );
    expect(all).toEqual([
      {
        event: 'network.rule_triggered',
        at: at(2),
        rule: 'r',
        network: 'n1',
        value: 170,
        threshold: 100,
        ruleText: 'r: pps > 100 for 2',
        values: [150, 170],
        incident: `r/n1/${at(2)}`,
        triggeredAt: at(2),
      },
      {
        event: 'network.rule_resolved',
        at: at(4),
        rule: 'r',
        network: 'n1',
        value: 30,
        threshold: 100,
        ruleText: 'r: pps > 100 for 2',
        values: [20, 30],
        incident: `r/n1/${at(2)}`,
        triggeredAt: at(2),
        peak: 170,
        peakAt: at(2),
      },
    ]);
  });

  it('a later incident of the same cell has a new incident id', () => {
    const { all } = replay('r: pps > 100', ['n1'], [{ n1: 150 }, { n1: 50 }, { n1: 150 }]);
    expect(all.map((a) => a.incident)).toEqual([`r/n1/${at(0)}`, `r/n1/${at(0)}`, `r/n1/${at(2)}`]);
  });
});

describe('evaluateRules: the peak of an open incident', () => {
  /** The cell's peak after each cycle, `-` when it keeps none, and the resolves' peaks. */
  function peaks(text: string, cycles: readonly Cycle[]) {
    const rules = rulesOf(text);
    let state: RuleState | undefined;
    const kept: string[] = [];
    const resolved: Array<Pick<RuleAlert, 'peak' | 'peakAt'>> = [];
    for (const [i, cycle] of cycles.entries()) {
      const result = evaluateRules({
        rules,
        networks: ['n1'],
        state,
        at: at(i),
        observations: observations(['r'], cycle, i),
      });
      state = result.state;
      const peak = state.cells['r']?.['n1']?.peak;
      kept.push(peak === undefined ? '-' : `${String(peak.value)}@${peak.at === at(i) ? 'now' : peak.at}`);
      for (const a of result.alerts)
        if (a.event === 'network.rule_resolved') resolved.push({ peak: a.peak, peakAt: a.peakAt });
    }
    return { kept, resolved };
  }

  it.each<[string, string, Cycle[], string[], Array<Pick<RuleAlert, 'peak' | 'peakAt'>>]>([
    [
      '`>`: the trigger, then each reading above it; lower ones and no evidence leave it',
      'r: pps > 100',
      [{ n1: 50 }, { n1: 800 }, { n1: 850 }, { n1: 820 }, { n1: 'x' }, { n1: 900 }, { n1: 30 }],
      ['-', '800@now', '850@now', `850@${at(2)}`, `850@${at(2)}`, '900@now', '-'],
      [{ peak: 900, peakAt: at(5) }],
    ],
    [
      '`<`: the lowest, as an incident across networks judges it (incidents.ts worse)',
      'r: pps < 100',
      [{ n1: 90 }, { n1: 40 }, { n1: 60 }, { n1: 150 }],
      ['90@now', '40@now', `40@${at(1)}`, '-'],
      [{ peak: 40, peakAt: at(1) }],
    ],
    [
      '`>` for 2: a reading towards the resolve that is not one yet leaves it; the resolving one is not a peak',
      'r: pps > 100 for 2',
      [{ n1: 150 }, { n1: 170 }, { n1: 20 }, { n1: 180 }, { n1: 20 }, { n1: 10 }],
      ['-', '170@now', `170@${at(1)}`, '180@now', `180@${at(3)}`, '-'],
      [{ peak: 180, peakAt: at(3) }],
    ],
    [
      "a boolean: the trigger's value stays the peak",
      'r: flag == true',
      [{ n1: true }, { n1: true }, { n1: false }],
      [`true@now`, `true@${at(0)}`, '-'],
      [{ peak: true, peakAt: at(0) }],
    ],
  ])('%s', (_name, text, cycles, kept, resolved) => {
    // Act
    const result = peaks(text, cycles);

    // Assess
    expect(result.kept).toEqual(kept);
    expect(result.resolved).toEqual(resolved);
  });

  it('a cell written before the peak was kept takes its next reading as its peak', () => {
    // Prepare: an open cell as the previous release kept it, without a peak.
    const [rule] = rulesOf('r: pps > 100');
    const state: RuleState = {
      lastAt: at(0),
      cells: { r: { n1: { open: true, run: 0, values: [], triggeredAt: at(0), incident: `r/n1/${at(0)}` } } },
    };

    // Act
    const next = evaluateRules({
      rules: [rule!],
      networks: ['n1'],
      state,
      at: at(1),
      observations: observations(['r'], { n1: 500 }, 1),
    });

    // Assess
    expect(next.state.cells['r']!['n1']!.peak).toEqual({ value: 500, at: at(1) });
  });
});

describe('evaluateRules: baseline rules', () => {
  const learning = Array.from({ length: BASELINE_MIN_VALUES }, (_, i): Cycle => ({ n1: 100 + (i % 3) }));

  it(`learn for ${BASELINE_MIN_VALUES} readable values: even a huge value cannot fire before`, () => {
    const cycles: Cycle[] = [{ n1: 1e9 }, { n1: 'x' }, ...learning.slice(1), { n1: 1e9 }];
    const { perCycle, all } = replay('r: pps > 3x baseline', ['n1'], cycles);
    expect(perCycle.slice(0, -1).flat()).toEqual([]);
    expect(perCycle.at(-1)).toEqual(T());
    // The window before the trigger: 1e9 and nine values around 100; its median is still about 100.
    expect(all[0]).toMatchObject({ baseline: 101, threshold: 303, value: 1e9 });
  });

  it('compares with factor x the median of the window before the reading', () => {
    const { perCycle, all } = replay('r: pps > 2x baseline', ['n1'], [...learning, { n1: 202 }, { n1: 203 }]);
    expect(perCycle.slice(-2)).toEqual([_, T()]);
    // The 202 joined the window before 203 was compared: the median of eleven values.
    expect(all[0]).toMatchObject({ baseline: 101, threshold: 202, value: 203 });
  });

  it('freezes the window while open, so a long attack does not become its own baseline', () => {
    const attack = Array.from({ length: 2 * BASELINE_WINDOW }, (): Cycle => ({ n1: 1000 }));
    const { perCycle, all, state } = replay(
      'r: pps > 3x baseline',
      ['n1'],
      [...learning, ...attack, { n1: 100 }],
    );
    expect(perCycle.flat()).toEqual([...T(), ...R()]);
    expect(all[1]).toMatchObject({ baseline: 101, threshold: 303, value: 100 });
    // The window kept only the learning values and the value that triggered.
    expect(state.cells.r!.n1!.window).toEqual([...learning.map((c) => c.n1), 1000]);
  });

  it(`keeps the last ${BASELINE_WINDOW} values while closed`, () => {
    const calm = Array.from({ length: 40 }, (_, i): Cycle => ({ n1: i }));
    const { state } = replay('r: pps > 100x baseline', ['n1'], calm);
    expect(state.cells.r!.n1!.window).toEqual(Array.from({ length: BASELINE_WINDOW }, (_, i) => i + 10));
  });

  it('a < baseline rule fires on a drop', () => {
    const { perCycle } = replay(
      'r: pps < 0.5x baseline for 2',
      ['n1'],
      [...learning, { n1: 10 }, { n1: 10 }],
    );
    expect(perCycle.slice(-2)).toEqual([_, T()]);
  });
});

describe('evaluateRules: stale cycles and configuration changes', () => {
  const rules = rulesOf('r: pps > 100');
  const obs = (i: number, pps: number) => observations(['r'], { n1: pps }, i);

  it.each([
    ['the same cycle again', 1],
    ['an older cycle', 0],
  ])('%s is stale: nothing changes and nothing is sent', (_name, again) => {
    const first = evaluateRules({
      rules,
      networks: ['n1'],
      state: undefined,
      at: at(0),
      observations: obs(0, 50),
    });
    const second = evaluateRules({
      rules,
      networks: ['n1'],
      state: first.state,
      at: at(1),
      observations: obs(1, 150),
    });
    expect(brief(second.alerts)).toEqual(T());
    const replayed = evaluateRules({
      rules,
      networks: ['n1'],
      state: second.state,
      at: at(again),
      observations: obs(again, 150),
    });
    expect(replayed).toEqual({ state: second.state, alerts: [], stale: true });
  });

  it('drops the cells of rules and networks no longer configured; an open incident of a removed rule sends nothing', () => {
    const two = rulesOf('r: pps > 100; gone: pps > 100');
    const first = evaluateRules({
      rules: two,
      networks: ['n1', 'n2'],
      state: undefined,
      at: at(0),
      observations: observations(['r', 'gone'], { n1: 150, n2: 150 }, 0),
    });
    expect(first.alerts).toHaveLength(4);
    const next = evaluateRules({
      rules,
      networks: ['n1'],
      state: first.state,
      at: at(1),
      observations: observations(['r', 'gone'], { n1: 50, n2: 50 }, 1),
    });
    expect(brief(next.alerts)).toEqual(R());
    expect(Object.keys(next.state.cells)).toEqual(['r']);
    expect(Object.keys(next.state.cells.r!)).toEqual(['n1']);
  });

  it('a rule edited from a number to a baseline starts learning', () => {
    const first = evaluateRules({
      rules,
      networks: ['n1'],
      state: undefined,
      at: at(0),
      observations: obs(0, 50),
    });
    const edited = rulesOf('r: pps > 3x baseline');
    const next = evaluateRules({
      rules: edited,
      networks: ['n1'],
      state: first.state,
      at: at(1),
      observations: obs(1, 5000),
    });
    expect(next.alerts).toEqual([]);
    expect(next.state.cells.r!.n1!.window).toEqual([5000]);
  });

  it('keeps closed cells compact: numbers and booleans only', () => {
    const { state } = replay('r: pps > 100 for 3; b: pps > 3x baseline', ['n1'], [{ n1: 150 }, { n1: 150 }]);
    expect(state).toEqual({
      lastAt: at(1),
      cells: {
        r: { n1: { open: false, run: 2, values: [150, 150] } },
        b: { n1: { open: false, run: 0, values: [], window: [150, 150] } },
      },
    });
  });
});

describe('ruleNetworks and median', () => {
  it.each([
    [undefined, ['a', 'b']],
    [['b', 'z'], ['b']],
    [['z'], []],
  ])('on %j watches %j', (on, expected) => {
    const rule = { ...rulesOf('r: x > 1')[0]!, ...(on === undefined ? {} : { networks: on }) };
    expect(ruleNetworks(rule, ['a', 'b'])).toEqual(expected);
  });

  it.each([
    [[5], 5],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[-1, 10, 10], 10],
  ])('median of %j is %d', (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it.each([
    [[Number.MAX_VALUE, Number.MAX_VALUE], Number.MAX_VALUE],
    [[-Number.MAX_VALUE, -Number.MAX_VALUE], -Number.MAX_VALUE],
    [[-Number.MAX_VALUE, Number.MAX_VALUE], 0],
    [[Number.MAX_VALUE * 0.75, Number.MAX_VALUE], Number.MAX_VALUE * 0.875],
    [[Number.MIN_VALUE, Number.MIN_VALUE], Number.MIN_VALUE],
  ])('median of %j is %d, without overflow (issue 19.10)', (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it('a baseline of values near the largest double is finite: a lower reading of a < rule does not trigger', () => {
    // Prepare: twelve readings of the largest doubles; an even count, so the median is the middle two's mean.
    const text = 'low: pps < 0.5x baseline';
    const highs = Array.from({ length: 12 }, (_, i) => ({ n1: Number.MAX_VALUE * (1 - i * 1e-16) }));

    // Act: a reading at 0.6 of the baseline (not below half of it).
    const { perCycle } = replay(text, ['n1'], [...highs, { n1: Number.MAX_VALUE * 0.6 }]);

    // Assess: before, the median was Infinity and 0.5 x Infinity > any reading triggered.
    expect(perCycle.flat()).toEqual([]);
  });
});

describe('evaluateRules: names that Object.prototype also has', () => {
  // Network ids and rule names come from configuration; the state goes through JSON in the store.
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'a network and a rule named %s are cells like any other, through a stored state',
    (name) => {
      // Prepare: a stored state from before the network was configured, then every cycle stored as JSON.
      const rules = rulesOf(`${name}: pps > 100 for 2`);
      const values = [150, 150, 150, 50, 50];
      let state: RuleState | undefined = JSON.parse(
        JSON.stringify(
          evaluateRules({ rules, networks: ['n1'], state: undefined, at: at(0), observations: [] }).state,
        ),
      );
      const alerts: string[] = [];

      // Act
      for (const [i, value] of values.entries()) {
        const result = evaluateRules({
          rules,
          networks: ['n1', name],
          state,
          at: at(i + 1),
          observations: observations([name], { n1: value, [name]: value }, i + 1).map((o) => ({
            ...o,
            readings: readRules(rules, { pps: value }),
          })),
        });
        state = JSON.parse(JSON.stringify(result.state));
        alerts.push(...brief(result.alerts).map((a) => `${i + 1} ${a}`));
      }

      // Assess: each cell triggers once after two cycles and resolves once after two.
      expect(alerts).toEqual([
        `2 ${name}/n1 triggered`,
        `2 ${name}/${name} triggered`,
        `5 ${name}/n1 resolved`,
        `5 ${name}/${name} resolved`,
      ]);
    },
  );
});
