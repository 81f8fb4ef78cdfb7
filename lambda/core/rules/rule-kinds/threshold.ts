/**
 * The threshold kind (docs/rules.md): `PATH OP NUMBER`, a reading compared with a fixed number such
 * as `50000`, `1.5e6` or `1.5M`. Its threshold is tagged `number` (the tag stored and tested since rules
 * began). No memory. Pure.
 */
import { own } from '../../own-record.ts';
import { DECIMAL, fixedThresholdMembers, type RuleKind } from './kind.ts';

/** A fixed numeric threshold. */
export interface NumberThreshold {
  readonly kind: 'number';
  readonly value: number;
}

/** The suffixes a number may end with. */
const SUFFIX: Readonly<Record<string, number>> = { k: 1e3, M: 1e6, G: 1e9 };

/** The threshold kind; see the file comment. */
export const thresholdKind: RuleKind<NumberThreshold> = {
  name: 'number',
  syntax: 'a number such as 50000 or 1.5M',
  syntaxInDetail: 'a number (such as 50000, 1.5e6 or 1.5M; suffixes k M G)',
  reads: 'number',
  parse(value) {
    const suffix = own(SUFFIX, value.slice(-1));
    const digits = suffix === undefined ? value : value.slice(0, -1);
    const number = DECIMAL.test(digits) ? Number(digits) * (suffix ?? 1) : Number.NaN;
    // Not a finite number: not written this way (the parser says what a VALUE may be).
    if (!Number.isFinite(number)) return undefined;
    // -0 and 0 are the same threshold; keeping one of them makes a printed rule parse back the same.
    return { threshold: { kind: 'number', value: number === 0 ? 0 : number } };
  },
  print: (threshold) => String(threshold.value),
  isThreshold: (stored): stored is NumberThreshold => {
    const value = (stored as { value?: unknown }).value;
    return stored.kind === 'number' && typeof value === 'number' && Number.isFinite(value);
  },
  ...fixedThresholdMembers<NumberThreshold>(),
};
