import { describe, expect, it } from 'vitest';
import {
  BASELINE_MIN_VALUES,
  BASELINE_WINDOW,
  baselineKind,
  median,
} from '../../../lambda/core/rules/rule-kinds/baseline.ts';
import type { RuleOp } from '../../../lambda/core/rules/rule-types.ts';

const show = (value: unknown) => `<${String(value)}>`;
const threshold = { kind: 'baseline' as const, factor: 3 };
const filled = (n: number) => Array.from({ length: n }, (_, i) => 100 + i);

describe('the baseline kind (rule-kinds/baseline.ts)', () => {
  it.each<[string, RuleOp, unknown]>([
    ['3x baseline', '>', { threshold: { kind: 'baseline', factor: 3 } }],
    ['0.5 x baseline', '<', { threshold: { kind: 'baseline', factor: 0.5 } }],
    ['2X BASELINE', '>=', { threshold: { kind: 'baseline', factor: 2 } }],
    ['3x baseline', '==', { problem: 'a baseline is compared with > >= < or <=, not ==' }],
    [
      '0x baseline',
      '>',
      {
        problem:
          'the baseline factor must be a positive number such as 3 or 1.5 (as in 3x baseline), got "0"',
      },
    ],
    [
      '-2x baseline',
      '>',
      {
        problem:
          'the baseline factor must be a positive number such as 3 or 1.5 (as in 3x baseline), got "-2"',
      },
    ],
    // Not written this way: the parser asks the next kind.
    ['3', '>', undefined],
    ['baseline', '>', undefined],
    ['3xbaseline', '>', undefined],
  ])('parses %s after %s', (text, op, expected) => {
    expect(baselineKind.parse(text, op)).toEqual(expected);
  });

  it.each([3, 1.5, 0.25, 1e200])('prints factor %s, which parses back the same', (factor) => {
    const t = { kind: 'baseline' as const, factor };
    expect(baselineKind.parse(baselineKind.print(t), '>')).toEqual({ threshold: t });
  });

  it.each([
    [{ kind: 'baseline', factor: 3 }, true],
    [{ kind: 'baseline', factor: 0 }, false],
    [{ kind: 'baseline', factor: Number.POSITIVE_INFINITY }, false],
    [{ kind: 'baseline', value: 3 }, false],
  ])('a stored threshold %j is well formed: %s', (stored, ok) => {
    expect(baselineKind.isThreshold(stored)).toBe(ok);
  });

  it.each([
    ['no window yet', undefined, undefined],
    ['one value short of learning', filled(BASELINE_MIN_VALUES - 1), undefined],
    ['learnt', filled(BASELINE_MIN_VALUES), { threshold: 3 * 104.5, baseline: 104.5 }],
    ['a full window', filled(BASELINE_WINDOW), { threshold: 3 * 114.5, baseline: 114.5 }],
  ])('compares: %s', (_name, memory, expected) => {
    expect(baselineKind.compare(threshold, memory)).toEqual(expected);
  });

  it.each([
    ['a new cell starts an empty window', undefined, 5, false, [5]],
    ['closed: the value joins the window', [1, 2], 5, false, [1, 2, 5]],
    ['open: the window stays as it was', [1, 2], 5, true, [1, 2]],
    [
      'a full window drops its oldest',
      filled(BASELINE_WINDOW),
      5,
      false,
      [...filled(BASELINE_WINDOW).slice(1), 5],
    ],
  ])('remembers: %s', (_name, stored, value, open, expected) => {
    expect(baselineKind.remember(baselineKind.startMemory(stored), value, open)).toEqual(expected);
  });

  it('bounds its memory for the rule item size, keeps a reference, and rebuilds a held threshold', () => {
    expect(baselineKind.reads).toBe('number');
    expect(baselineKind.memoryValues).toBe(BASELINE_WINDOW);
    expect(BASELINE_WINDOW).toBe(30);
    expect(baselineKind.hasReference).toBe(true);
    expect(baselineKind.heldThreshold(threshold, 100)).toBe(300);
    expect(baselineKind.heldThreshold(threshold, undefined)).toBeUndefined();
  });

  it.each([
    [
      'with its baseline',
      { threshold: 300, baseline: 100 },
      '3x baseline <100>',
      [
        ['Threshold', '3 x baseline = <300>'],
        ['Baseline', "<100> (the median of the network's last readable values before the incident)"],
      ],
    ],
    ['without (a damaged record)', { threshold: 300 }, '<300>', [['Threshold', '<300>']]],
  ])('texts %s', (_name, alert, short, lines) => {
    expect(baselineKind.shortThreshold(threshold, alert, show)).toBe(short);
    expect(baselineKind.thresholdLines(threshold, alert, show)).toEqual(lines);
  });

  it.each([
    [[5], 5],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[Number.MAX_VALUE, Number.MAX_VALUE], Number.MAX_VALUE],
  ])('median of %j is %s', (values, expected) => {
    expect(median(values)).toBe(expected);
  });
});
