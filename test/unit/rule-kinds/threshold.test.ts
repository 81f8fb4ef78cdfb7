import { describe, expect, it } from 'vitest';
import { thresholdKind } from '../../../lambda/core/rules/rule-kinds/threshold.ts';
import type { RuleOp } from '../../../lambda/core/rules/rule-types.ts';

const show = (value: unknown) => `<${String(value)}>`;

describe('the threshold kind (rule-kinds/threshold.ts)', () => {
  it.each<[string, RuleOp, number | undefined]>([
    ['50000', '>', 50000],
    ['1.5M', '>=', 1.5e6],
    ['2k', '<', 2000],
    ['1G', '==', 1e9],
    ['.5', '!=', 0.5],
    ['-0', '<=', 0],
    ['1.5e6', '>', 1.5e6],
    // Not written this way: the parser asks the next kind, then names every way a VALUE may be written.
    ['true', '==', undefined],
    ['3x', '>', undefined],
    ['1e400', '>', undefined],
    ['k', '>', undefined],
  ])('parses %s after %s', (text, op, value) => {
    const parsed = thresholdKind.parse(text, op);
    if (value === undefined) expect(parsed).toBeUndefined();
    else {
      expect(parsed).toEqual({ threshold: { kind: 'number', value } });
      expect(Object.is((parsed as { threshold: { value: number } }).threshold.value, -0)).toBe(false);
    }
  });

  it.each([
    [{ kind: 'number' as const, value: 50000 }, '50000'],
    [{ kind: 'number' as const, value: 1.5e6 }, '1500000'],
    [{ kind: 'number' as const, value: -0.25 }, '-0.25'],
  ])('prints %j as %s, which parses back the same', (threshold, text) => {
    expect(thresholdKind.print(threshold)).toBe(text);
    expect(thresholdKind.parse(text, '>')).toEqual({ threshold });
  });

  it.each([
    [{ kind: 'number', value: 5 }, true],
    [{ kind: 'number', value: Number.POSITIVE_INFINITY }, false],
    [{ kind: 'number', value: '5' }, false],
    [{ kind: 'boolean', value: 5 }, false],
  ])('a stored threshold %j is well formed: %s', (stored, ok) => {
    expect(thresholdKind.isThreshold(stored)).toBe(ok);
  });

  it('compares with its value, keeps no memory, and shows the threshold the alert carries', () => {
    const threshold = { kind: 'number' as const, value: 100 };
    expect(thresholdKind.reads).toBe('number');
    expect(thresholdKind.memoryValues).toBe(0);
    expect(thresholdKind.hasReference).toBe(false);
    expect(thresholdKind.startMemory([1, 2])).toBeUndefined();
    expect(thresholdKind.compare(threshold, undefined)).toEqual({ threshold: 100 });
    expect(thresholdKind.remember(undefined, 7, false)).toBeUndefined();
    expect(thresholdKind.heldThreshold(threshold, 3)).toBe(100);
    expect(thresholdKind.shortThreshold(threshold, { threshold: 100 }, show)).toBe('<100>');
    expect(thresholdKind.thresholdLines(threshold, { threshold: 100 }, show)).toEqual([
      ['Threshold', '<100>'],
    ]);
  });
});
