import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeRuleScope,
  decodeValues,
  encodeRuleScope,
  encodeValues,
  planRuleScopes,
  ruleStateBytes,
  STATE_BUDGET_BYTES,
} from '../../lambda/adapters/rule-items.ts';
import { evaluateRules } from '../../lambda/core/rules/rule-eval.ts';
import { limitRuleAlerts } from '../../lambda/core/rules/rule-limit.ts';
import type { RuleCell, RuleState } from '../../lambda/core/rules/rule-types.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';

const rules = (text: string) => parseRules(text).rules;

describe('rule item value lists', () => {
  it.each([
    ['nothing', []],
    ['whole numbers', [0, 1, -1, 90_000, 2 ** 53]],
    ['the extremes of a double', [Number.MAX_VALUE, Number.MIN_VALUE, -1.2345678901234567e-308, 1e200]],
    ['booleans among numbers', [true, 3.5, false, -0.25]],
  ])('round-trip: %s', (_name, values: (number | boolean)[]) => {
    const text = encodeValues(values);
    expect(decodeValues(text)).toEqual(values);
    expect(text.length).toBe(values.reduce((n: number, v) => n + (typeof v === 'boolean' ? 1 : 11), 0));
  });

  it.each([
    ['not a string', 42, []],
    ['cut short', `${encodeValues([1, 2])}abc`, [1, 2]],
    ['not base64', '!~???????????', [true, false]],
  ])('a damaged list keeps what was read before the damage: %s', (_name, text: unknown, expected) => {
    expect(decodeValues(text)).toEqual(expected);
  });

  it('any finite double or boolean round-trips (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean())),
        (values) => {
          expect(decodeValues(encodeValues(values))).toEqual(values.map((v) => (Object.is(v, -0) ? -0 : v)));
        },
      ),
    );
  });
});

describe('rule item state text', () => {
  const three = rules('flood: a.pps > 50k for 3; attack: a.on == true; surge: a.pps > 3x baseline for 2');

  it('round-trips the evaluator state of a run, open incidents and baselines', () => {
    // Prepare: cycles that fill baselines and open incidents.
    const networks = ['net-1', 'net "3"'];
    let state: RuleState | undefined;
    for (let i = 0; i < 14; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
      const pps = i < 11 ? 1000 + i : 90_000;
      state = evaluateRules({
        rules: three,
        networks,
        state,
        at,
        observations: networks.map((networkId) => ({
          networkId,
          at,
          readings: {
            flood: { kind: 'value', value: pps },
            attack: { kind: 'value', value: i >= 12 },
            surge: { kind: 'value', value: pps },
          },
        })),
      }).state;
    }

    // Act
    const text = encodeRuleScope({ rules: state!, nextSeq: 7 });
    const back = decodeRuleScope(text);

    // Assess
    expect(back).toEqual({ rules: state, nextSeq: 7 });
    expect(back.rules.cells['attack']!['net-1']).toMatchObject({ open: true });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(ruleStateBytes(three, networks));
  });

  it('keeps a network named __proto__ as a cell of its own', () => {
    const cell = {
      open: true,
      run: 1,
      values: [5],
      triggeredAt: '2026-01-01T00:00:00.000Z',
      incident: 'x/y/z',
    };
    const state = { rules: { cells: { flood: Object.fromEntries([['__proto__', cell]]) } }, nextSeq: 2 };
    const back = decodeRuleScope(encodeRuleScope(state));
    expect(Object.keys(back.rules.cells['flood']!)).toEqual(['__proto__']);
    expect(back).toEqual(state);
  });

  it.each([
    ['not a string', 7],
    ['not JSON', '{"s":'],
    ['JSON of another shape', '[1,2,3]'],
  ])('a damaged text is an empty state: %s', (_name, text) => {
    expect(decodeRuleScope(text)).toEqual({ rules: { cells: {} }, nextSeq: 1 });
  });
});

describe('rule items of a shard', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `network-${String(i).padStart(4, '0')}`);

  it.each([
    ['no rules', '', 100, []],
    // Each cell's worst case counts its incident's timers (rule-incidents.ts) and its peak: 303 such networks
    // fit one item.
    ['threshold rules, 300 networks: one item', 'a: x > 1; b: y > 2; c: z == true', 300, [300]],
    ['threshold rules, 400 networks: two', 'a: x > 1; b: y > 2; c: z == true', 400, [303, 97]],
    [
      'with a baseline, 150 networks: one item',
      'a: x > 1 for 3; b: y == true for 3; c: x > 3x baseline for 3',
      150,
      [150],
    ],
    [
      'with a baseline, 500 networks: four',
      'a: x > 1 for 3; b: y == true for 3; c: x > 3x baseline for 3',
      500,
      [151, 151, 151, 47],
    ],
  ])('%s', (_name, text, count, sizes: number[]) => {
    const rs = rules(text);
    const plans = planRuleScopes(2, rs, ids(count));
    expect(plans.map((p) => p.networks.length)).toEqual(sizes);
    expect(plans.map((p) => p.key)).toEqual(
      sizes.length === 1 ? ['rules#2'] : sizes.map((_, i) => `rules#2#${i}`),
    );
    expect(plans.flatMap((p) => p.networks)).toEqual(sizes.length === 0 ? [] : ids(count));
    for (const plan of plans)
      expect(ruleStateBytes(rs, plan.networks)).toBeLessThanOrEqual(STATE_BUDGET_BYTES);
  });

  it('networks no rule watches get no item', () => {
    const plans = planRuleScopes(0, rules('a: x > 1 on net-2'), ['net-1', 'net-2', 'net-3']);
    expect(plans).toEqual([{ key: 'rules#0', networks: ['net-2'] }]);
  });
});

describe('limitRuleAlerts', () => {
  const [flood] = rules('flood: pps > 10');
  const networks = ['n1', 'n2', 'n3'];
  const at = '2026-01-01T00:01:00.000Z';
  const before: RuleState = {
    lastAt: '2026-01-01T00:00:00.000Z',
    cells: { flood: { n1: { open: false, run: 0, values: [] }, n2: { open: false, run: 0, values: [] } } },
  };
  const cycle = (state: RuleState, when: string, value: number) =>
    evaluateRules({
      rules: [flood!],
      networks,
      state,
      at: when,
      observations: networks.map((networkId) => ({
        networkId,
        at: when,
        readings: { flood: { kind: 'value' as const, value } },
      })),
    });
  const result = cycle(before, at, 99);

  it.each([
    [3, ['n1', 'n2', 'n3'], []],
    [2, ['n1', 'n2'], ['n3']],
    [1, ['n1'], ['n2', 'n3']],
  ])('at most %i: the alerts kept, the other cells hold their transition (issue 19.2)', (max, kept, held) => {
    const limited = limitRuleAlerts([flood!], result, max);
    expect(limited.alerts.map((a) => a.network)).toEqual(kept);
    const cells = limited.state.cells['flood']!;
    // Every cell has changed (the transitions happened); those whose alert did not fit hold it.
    expect(Object.values(cells).map((c) => c.open)).toEqual([true, true, true]);
    expect(Object.entries(cells).flatMap(([n, c]) => (c.held === undefined ? [] : [n]))).toEqual(held);
    expect(limited.state.lastAt).toBe(at);
  });

  it('held transitions go out first in later cycles, with their own time, also when the condition ended', () => {
    // Prepare: the trigger of n2 and n3 held back; then the condition ends on every network.
    const first = limitRuleAlerts([flood!], result, 1);
    const later = ['2026-01-01T00:02:00.000Z', '2026-01-01T00:03:00.000Z', '2026-01-01T00:04:00.000Z'];

    // Act: three more cycles with the cap at 1, every reading low.
    const sent: string[] = [];
    let state = first.state;
    for (const when of later) {
      const next = limitRuleAlerts([flood!], cycle(state, when, 1), 1);
      sent.push(
        ...next.alerts.map((a) => `${a.event.slice(13)} ${a.network} ${a.at.slice(14, 16)} ${a.incident}`),
      );
      state = next.state;
    }
    const last = limitRuleAlerts([flood!], cycle(state, '2026-01-01T00:05:00.000Z', 1), 10);
    sent.push(
      ...last.alerts.map((a) => `${a.event.slice(13)} ${a.network} ${a.at.slice(14, 16)} ${a.incident}`),
    );

    // Assess: n2 and n3 trigger at 01 (when they did) under one incident each, and each resolves once, in the
    // first cycle its cell takes evidence again (a cell holding a transition takes none).
    expect(sent).toEqual([
      'triggered n2 01 flood/n2/2026-01-01T00:01:00.000Z',
      'triggered n3 01 flood/n3/2026-01-01T00:01:00.000Z',
      'resolved n1 02 flood/n1/2026-01-01T00:01:00.000Z',
      'resolved n2 03 flood/n2/2026-01-01T00:01:00.000Z',
      'resolved n3 04 flood/n3/2026-01-01T00:01:00.000Z',
    ]);
  });

  it('a held transition survives the stored state text', () => {
    const first = limitRuleAlerts([flood!], result, 1);
    const text = encodeRuleScope({ rules: first.state, nextSeq: 2 });
    expect(decodeRuleScope(text).rules).toEqual(first.state);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(ruleStateBytes([flood!], networks));
  });
});

describe('rule item state text: the peak of an open incident', () => {
  const [flood] = rules('flood: pps > 10');
  const since = '2026-01-01T00:00:00.000Z';
  const later = '2026-01-01T00:10:00.000Z';
  const open = (extra: Partial<RuleCell> = {}): RuleCell => ({
    open: true,
    run: 0,
    values: [],
    triggeredAt: since,
    incident: `flood/n1/${since}`,
    ...extra,
  });
  const scopeOf = (cell: RuleCell) => ({
    rules: { lastAt: later, cells: { flood: { n1: cell } } },
    nextSeq: 3,
  });
  const rowOf = (text: string): unknown[] => JSON.parse(text).n['n1'][0];

  it.each([
    ['at its trigger', open({ peak: { value: 800_000, at: since } })],
    ['later, any finite double', open({ peak: { value: -1.2345678901234567e-308, at: later } })],
    [
      'long after (the offset at its longest)',
      open({ peak: { value: 1e300, at: '2100-01-01T00:00:00.000Z' } }),
    ],
    ['a boolean', open({ peak: { value: true, at: since } })],
    [
      'with timers and who acknowledged, no note',
      open({
        peak: { value: 850_000, at: later },
        timers: { openedAt: since, stage: 2, acknowledged: { by: 'alice', at: later } },
      }),
    ],
    [
      'with timers and no acknowledgement',
      open({
        peak: { value: 850_000, at: later },
        timers: { openedAt: since, stage: 2, lastRemindAt: later },
      }),
    ],
    [
      'on a closed cell whose resolve the cap holds back',
      {
        open: false,
        run: 0,
        values: [],
        triggeredAt: since,
        incident: `flood/n1/${since}`,
        peak: { value: 850_000, at: later },
        held: { event: 'network.rule_resolved', at: later, values: [1] },
      } satisfies RuleCell,
    ],
  ])('round-trips: %s, within the worst case', (_name, cell) => {
    // Act
    const text = encodeRuleScope(scopeOf(cell));

    // Assess
    expect(decodeRuleScope(text)).toEqual(scopeOf(cell));
    // Beside who acknowledged (`,"alice"`), which the item's CELL_ACK_BUDGET_BYTES bounds.
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(ruleStateBytes([flood!], ['n1']) + 8);
  });

  it('an item of the previous release, without it, reads as before: no peak', () => {
    // Prepare: an open cell with timers and who acknowledged, as the previous release wrote it.
    const text = JSON.stringify({
      s: 3,
      at: later,
      r: ['flood'],
      n: { n1: [[1, 0, '', 0, since, 0, `2..${(10 * 60_000).toString(36)}`, 'alice']] },
    });

    // Act
    const cell = decodeRuleScope(text).rules.cells['flood']!['n1']!;

    // Assess
    expect(cell).toEqual(
      open({ timers: { openedAt: since, stage: 2, acknowledged: { by: 'alice', at: later } } }),
    );
    expect(cell.peak).toBeUndefined();
  });

  it('the previous release reads this one alike: the peak is in a slot after every slot it reads', () => {
    // Prepare
    const timers = { openedAt: since, stage: 2, acknowledged: { by: 'alice', at: later } };
    const peak = { value: 850_000, at: later };

    // Act
    const withPeak = rowOf(encodeRuleScope(scopeOf(open({ timers, peak }))));
    const without = rowOf(encodeRuleScope(scopeOf(open({ timers }))));
    const bare = rowOf(encodeRuleScope(scopeOf(open({ peak }))));

    // Assess: slots 0-8 are the cell without its peak (0 where absent, as the previous release reads an absent
    // slot), the peak in slot 9: its value as a value list, then when as an offset from the trigger.
    expect(withPeak.slice(0, 9)).toEqual([...without, 0]);
    expect(withPeak[9]).toBe(`${encodeValues([850_000])}.${(10 * 60_000).toString(36)}`);
    expect(bare).toEqual([1, 0, '', 0, since, 0, 0, 0, 0, withPeak[9]]);
  });

  it('a damaged peak is left out; the cell keeps the rest', () => {
    const text = JSON.stringify({
      s: 3,
      at: later,
      r: ['flood'],
      n: { n1: [[1, 0, '', 0, since, 0, 0, 0, 0, '???.zz']] },
    });
    expect(decodeRuleScope(text).rules.cells['flood']!['n1']).toEqual(open());
  });

  it("a resolve the cap holds back keeps the incident's peak, and its alert carries it", () => {
    // Prepare: open since the first cycle with peak 50 at the second; the third resolves it under a cap of 0.
    const at = (i: number) => `2026-01-01T00:0${i}:00.000Z`;
    const cycle = (state: RuleState | undefined, i: number, value: number) =>
      evaluateRules({
        rules: [flood!],
        networks: ['n1'],
        state,
        at: at(i),
        observations: [{ networkId: 'n1', at: at(i), readings: { flood: { kind: 'value', value } } }],
      });
    const opened = cycle(cycle(undefined, 0, 20).state, 1, 50).state;

    // Act
    const held = limitRuleAlerts([flood!], cycle(opened, 2, 1), 0);
    const stored = decodeRuleScope(encodeRuleScope({ rules: held.state, nextSeq: 2 })).rules;
    const sent = limitRuleAlerts([flood!], cycle(stored, 3, 1), 10);

    // Assess
    expect(held.state.cells['flood']!['n1']).toMatchObject({ open: false, peak: { value: 50, at: at(1) } });
    expect(stored).toEqual(held.state);
    expect(sent.alerts).toMatchObject([
      { event: 'network.rule_resolved', at: at(2), peak: 50, peakAt: at(1) },
    ]);
    expect(sent.state.cells['flood']!['n1']).toEqual({ open: false, run: 0, values: [] });
  });
});

describe('limitRuleAlerts: names that Object.prototype also has (issue 19.11)', () => {
  it.each([
    ['toString', 'name'],
    ['constructor', 'length'],
    ['valueOf', '__proto__'],
  ])(
    'a rule %s on a network %s held back by the cap stays a cell, and the state text round-trips',
    (rule, network) => {
      // Prepare: no stored row for the rule, so a read through the prototype finds Object.prototype[rule].
      const [r] = rules(`${rule}: pps > 10`);
      const networks = ['first', network];
      const at = '2026-01-01T00:01:00.000Z';
      const result = evaluateRules({
        rules: [r!],
        networks,
        state: { lastAt: '2026-01-01T00:00:00.000Z', cells: {} },
        at,
        observations: networks.map((networkId) => ({
          networkId,
          at,
          readings: { [rule]: { kind: 'value' as const, value: 99 } },
        })),
      });

      // Act
      const limited = limitRuleAlerts([r!], result, 1);

      // Assess
      const row = limited.state.cells[rule]!;
      expect(Object.hasOwn(row, network)).toBe(true);
      expect(typeof row[network]).toBe('object');
      expect(row[network]!.held?.event).toBe('network.rule_triggered');
      expect(decodeRuleScope(encodeRuleScope({ rules: limited.state, nextSeq: 2 })).rules).toEqual(
        limited.state,
      );
    },
  );
});
