import { describe, expect, it } from 'vitest';
import { decodeRuleScope, encodeRuleScope } from '../../lambda/adapters/rule-items.ts';
import {
  handOver,
  holdingOf,
  type RuleItemState,
  startingState,
} from '../../lambda/core/rules/rule-moves.ts';
import type { RuleCell, RuleState } from '../../lambda/core/rules/rule-types.ts';

const open: RuleCell = {
  open: true,
  run: 0,
  values: [],
  triggeredAt: '2025-01-01T00:00:00.000Z',
  incident: 'hot/net-5/x',
};
const AT = '2025-01-01T00:05:00.000Z';

describe('a network held by one rule item at a time (rule-moves.ts)', () => {
  it('the codec keeps generations and moved records, with and without their cells', () => {
    // Prepare
    const rules: RuleState = {
      lastAt: AT,
      cells: { hot: { 'net-2': open } },
      gens: { 'net-2': 3 },
      // Object.fromEntries: a network named `__proto__` is an own record like any other.
      moved: Object.fromEntries([
        ['net-5', { to: 'rules#0', gen: 2, asOf: AT, cells: { hot: open } }],
        ['__proto__', { to: 'rules#0#0', gen: 1, asOf: AT }],
      ]),
    };

    // Act
    const back = decodeRuleScope(encodeRuleScope({ rules, nextSeq: 4 }));

    // Assess
    expect(back.rules.gens).toEqual({ 'net-2': 3 });
    expect(back.rules.moved?.['net-5']).toEqual({ to: 'rules#0', gen: 2, asOf: AT, cells: { hot: open } });
    expect(Object.hasOwn(back.rules.moved ?? {}, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(back.rules.moved, '__proto__')?.value).toEqual({
      to: 'rules#0#0',
      gen: 1,
      asOf: AT,
    });
  });

  it.each<[string, RuleItemState[], string]>([
    ['none', [], 'none'],
    [
      'live in rules#0#1',
      [{ key: 'rules#0#1', state: { cells: { hot: { 'net-5': open } } } }],
      'live rules#0#1',
    ],
    [
      'handed to rules#0, not taken',
      [
        {
          key: 'rules#0#1',
          state: { cells: {}, moved: { 'net-5': { to: 'rules#0', gen: 1, asOf: AT, cells: { hot: open } } } },
        },
      ],
      'pending rules#0',
    ],
    [
      'taken by rules#0 (a stale record beside it)',
      [
        { key: 'rules#0', state: { cells: { hot: { 'net-5': open } }, gens: { 'net-5': 1 } } },
        {
          key: 'rules#0#1',
          state: { cells: {}, moved: { 'net-5': { to: 'rules#0', gen: 1, asOf: AT, cells: { hot: open } } } },
        },
      ],
      'live rules#0',
    ],
  ])('holdingOf: %s', (_, items, expected) => {
    const holding = holdingOf('net-5', items);
    expect(holding.kind === 'none' ? 'none' : `${holding.kind} ${holding.key}`).toBe(expected);
  });

  it('a holder owing an alert of the network keeps it; the asking item waits and judges nothing of it', () => {
    // Prepare
    const holder: RuleState = { lastAt: AT, cells: { hot: { 'net-5': open } } };
    const items = [{ key: 'rules#0#1', state: holder }];
    const holdings = new Map([['net-5', holdingOf('net-5', items)]]);

    // Act
    const owing = handOver('rules#0#1', holder, 'rules#0', ['net-5'], holdings, () => true);
    const free = handOver('rules#0#1', holder, 'rules#0', ['net-5'], holdings, () => false);
    const waiting = startingState('rules#0', ['net-5'], undefined, items, '2025-01-01T00:06:00.000Z');
    const taking = startingState(
      'rules#0',
      ['net-5'],
      undefined,
      [{ key: 'rules#0#1', state: free!.state }],
      '2025-01-01T00:06:00.000Z',
    );

    // Assess
    expect(owing).toBeUndefined();
    expect(free?.state.cells).toEqual({});
    expect(free?.state.moved?.['net-5']).toMatchObject({ to: 'rules#0', gen: 1 });
    expect(waiting.networks).toEqual([]);
    expect(waiting.waiting).toEqual(['net-5']);
    expect(taking.networks).toEqual(['net-5']);
    expect(taking.gens.get('net-5')).toBe(1);
    // A second cycle that read the item after it took them does not take them again.
    const mine: RuleState = {
      lastAt: '2025-01-01T00:06:00.000Z',
      cells: { hot: { 'net-5': open } },
      gens: { 'net-5': 1 },
    };
    const again = startingState(
      'rules#0',
      ['net-5'],
      mine,
      [{ key: 'rules#0#1', state: free!.state }],
      '2025-01-01T00:07:00.000Z',
    );
    expect(again.networks).toEqual(['net-5']);
    expect(again.state?.cells['hot']?.['net-5']).toEqual(open);
  });
});
