import { describe, expect, it } from 'vitest';
import {
  CLOCK_SKEW_TOLERANCE_MS,
  clockSkewProblem,
  cycleOrder,
  MAX_CYCLE_MS,
} from '../../lambda/core/clock.ts';
import { evaluateRules } from '../../lambda/core/rules/rule-eval.ts';
import type { RuleState } from '../../lambda/core/rules/rule-types.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import { SETTINGS } from '../../lambda/settings.ts';

/** Observation time of cycle `i`: one cycle a minute. */
function at(i: number, aheadMs = 0): string {
  return new Date(Date.UTC(2026, 2, 1, 10, i) + aheadMs).toISOString();
}
const HOUR = 3_600_000;

describe('clockSkewProblem (issue 19.3)', () => {
  it.each([0, 1500, -1500, CLOCK_SKEW_TOLERANCE_MS, -CLOCK_SKEW_TOLERANCE_MS])(
    'tolerates an offset of %i ms',
    (offset) => {
      expect(clockSkewProblem(offset)).toBeUndefined();
    },
  );

  it.each([
    { offset: -HOUR, says: "this machine's clock is 1 h 0 min ahead of the store's" },
    { offset: -(HOUR + 3000), says: '1 h 0 min 3 s ahead of' },
    { offset: 61_000, says: "this machine's clock is 61 s behind the store's" },
    { offset: 4 * 60_000 + 10_000, says: '4 min 10 s behind' },
  ])('refuses an offset of $offset ms, saying how far and which way', ({ offset, says }) => {
    const problem = clockSkewProblem(offset);
    expect(problem).toContain(says);
    expect(problem).toContain('nothing was stored');
    expect(problem).toContain('NTP');
  });
});

describe('cycleOrder (issue 19.3)', () => {
  it('bounds the cycle by the longest cycle budget the CLI accepts', () => {
    expect(MAX_CYCLE_MS).toBe(SETTINGS.cycleTimeoutMs.range?.max);
  });

  it.each([
    { name: 'no cycle applied yet', last: undefined, by: undefined, order: 'fresh' },
    { name: 'a newer cycle', last: at(4), by: undefined, order: 'fresh' },
    { name: 'the same cycle again', last: at(5), by: undefined, order: 'stale' },
    { name: 'a cycle older by a minute', last: at(6), by: undefined, order: 'stale' },
    // Without a decision time, the longest cycle bounds it: 15 min + 2 min.
    { name: 'older by 17 min, no deadline', last: at(22), by: undefined, order: 'stale' },
    { name: 'older by 18 min, no deadline', last: at(23), by: undefined, order: 'after-clock-ahead' },
    // With its deadline 30 s on: 30 s + 2 min.
    { name: 'older by 2.5 min, deadline given', last: at(5, 150_000), by: 30_000, order: 'stale' },
    { name: 'older by 2.5 min + 1 ms', last: at(5, 150_001), by: 30_000, order: 'after-clock-ahead' },
    { name: 'an hour older', last: at(5, HOUR), by: 30_000, order: 'after-clock-ahead' },
    { name: 'an unreadable stored time', last: 'yesterday', by: 30_000, order: 'fresh' },
  ])('$name: $order', ({ last, by, order }) => {
    const decideBy = by === undefined ? undefined : Date.parse(at(5)) + by;
    expect(cycleOrder(last, at(5), decideBy)).toBe(order);
  });

  it('compares instants, not text', () => {
    expect(cycleOrder('2026-03-01T10:05:00Z', '2026-03-01T10:05:00.500Z')).toBe('fresh');
    expect(cycleOrder('2026-03-01T10:05:00.500Z', '2026-03-01T10:05:00Z')).toBe('stale');
  });
});

describe('evaluateRules after a cycle from a clock ahead (issue 19.3)', () => {
  const parsed = parseRules('attack: pps > 1000 for 2');
  const rules = parsed.rules;

  /** One cycle of network n1 reading `pps`, observed at `when`, deciding 30 s later. */
  function cycle(state: RuleState | undefined, when: string, pps: number, withDeadline = true) {
    return evaluateRules({
      rules,
      networks: ['n1'],
      state,
      at: when,
      ...(withDeadline ? { decideByMs: Date.parse(when) + 30_000 } : {}),
      observations: [{ networkId: 'n1', at: when, readings: { attack: { kind: 'value', value: pps } } }],
    });
  }

  it.each([true, false])(
    'an attack after one cycle 1 h ahead triggers (deadline given: %s)',
    (withDeadline) => {
      // Prepare
      expect(parsed.problems).toStrictEqual([]);
      const base = cycle(undefined, at(0), 10, withDeadline);
      const ahead = cycle(base.state, at(1, HOUR), 10, withDeadline);

      // Act: correct clocks again, two cycles of attack.
      const first = cycle(ahead.state, at(2), 5000, withDeadline);
      const second = cycle(first.state, at(3), 5000, withDeadline);

      // Assess
      expect(first.stale).toBe(false);
      expect(first.skewedLastAt).toBe(at(1, HOUR));
      expect(first.state.lastAt).toBe(at(2));
      expect(second.stale).toBe(false);
      expect(second).not.toHaveProperty('skewedLastAt');
      expect(second.alerts.map((a) => `${a.rule}/${a.network} ${a.event}`)).toStrictEqual([
        'attack/n1 network.rule_triggered',
      ]);
    },
  );

  it.each([
    { name: 'the same cycle again', aheadMs: 0 },
    { name: 'a cycle one minute older', aheadMs: 60_000 },
  ])('$name is still stale and changes nothing', ({ aheadMs }) => {
    // Prepare
    const applied = cycle(undefined, at(5, aheadMs), 5000);

    // Act
    const again = cycle(applied.state, at(5), 5000);

    // Assess
    expect(again).toStrictEqual({ state: applied.state, alerts: [], stale: true });
  });
});
