import { describe, expect, it } from 'vitest';
import { booleanKind } from '../../../lambda/core/rules/rule-kinds/boolean.ts';
import type { RuleOp } from '../../../lambda/core/rules/rule-types.ts';

const show = (value: unknown) => `<${String(value)}>`;

describe('the boolean kind (rule-kinds/boolean.ts)', () => {
  it.each<[string, RuleOp, unknown]>([
    ['true', '==', { threshold: { kind: 'boolean', value: true } }],
    ['false', '!=', { threshold: { kind: 'boolean', value: false } }],
    ['true', '>', { problem: 'true and false are compared with == or !=, not >' }],
    ['false', '<=', { problem: 'true and false are compared with == or !=, not <=' }],
    // Not written this way (case matters, as it always did).
    ['True', '==', undefined],
    ['1', '==', undefined],
    ['yes', '==', undefined],
  ])('parses %s after %s', (text, op, expected) => {
    expect(booleanKind.parse(text, op)).toEqual(expected);
  });

  it.each([true, false])('prints %s, which parses back the same', (value) => {
    const threshold = { kind: 'boolean' as const, value };
    expect(booleanKind.parse(booleanKind.print(threshold), '==')).toEqual({ threshold });
  });

  it.each([
    [{ kind: 'boolean', value: true }, true],
    [{ kind: 'boolean', value: 'true' }, false],
    [{ kind: 'number', value: true }, false],
  ])('a stored threshold %j is well formed: %s', (stored, ok) => {
    expect(booleanKind.isThreshold(stored)).toBe(ok);
  });

  it('reads booleans, compares with its value and keeps no memory', () => {
    const threshold = { kind: 'boolean' as const, value: true };
    expect(booleanKind.reads).toBe('boolean');
    expect(booleanKind.memoryValues).toBe(0);
    expect(booleanKind.hasReference).toBe(false);
    expect(booleanKind.startMemory(undefined)).toBeUndefined();
    expect(booleanKind.compare(threshold, undefined)).toEqual({ threshold: true });
    expect(booleanKind.remember(undefined, true, true)).toBeUndefined();
    expect(booleanKind.heldThreshold(threshold, undefined)).toBe(true);
    expect(booleanKind.shortThreshold(threshold, { threshold: true }, show)).toBe('<true>');
    expect(booleanKind.thresholdLines(threshold, { threshold: true }, show)).toEqual([
      ['Threshold', '<true>'],
    ]);
  });
});
