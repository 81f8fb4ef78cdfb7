/**
 * The boolean kind (docs/rules.md): `PATH == true` or `PATH != false`, a boolean reading compared
 * for equality. No memory. Pure.
 */
import { fixedThresholdMembers, isOrdering, type RuleKind } from './kind.ts';

/** A boolean threshold. */
export interface BooleanThreshold {
  readonly kind: 'boolean';
  readonly value: boolean;
}

/** The boolean kind; see the file comment. */
export const booleanKind: RuleKind<BooleanThreshold> = {
  name: 'boolean',
  syntax: 'true/false',
  reads: 'boolean',
  parse(value, op) {
    if (value !== 'true' && value !== 'false') return undefined;
    if (isOrdering(op)) return { problem: `true and false are compared with == or !=, not ${op}` };
    return { threshold: { kind: 'boolean', value: value === 'true' } };
  },
  print: (threshold) => String(threshold.value),
  isThreshold: (stored): stored is BooleanThreshold =>
    stored.kind === 'boolean' && typeof (stored as { value?: unknown }).value === 'boolean',
  ...fixedThresholdMembers<BooleanThreshold>(),
};
