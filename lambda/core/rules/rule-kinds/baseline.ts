/**
 * The baseline kind (docs/rules.md): `PATH OP Kx baseline`, a reading compared with K times the
 * median of the network's last {@link BASELINE_WINDOW} readable values (its memory, the window). It learns,
 * neither triggering nor resolving, until the window holds {@link BASELINE_MIN_VALUES} values, and the window
 * stays as it was while the rule is triggered, so a long incident never becomes its own baseline. Pure.
 */
import { DECIMAL, isOrdering, quoteText, type RuleKind, type RuleMemory } from './kind.ts';

/** `K x baseline`: K times the median of the field over the network's last readable observations. */
export interface BaselineThreshold {
  readonly kind: 'baseline';
  readonly factor: number;
}

/** Readable values a baseline rule needs before it can trigger or resolve (before that it is learning). */
export const BASELINE_MIN_VALUES = 10;

/** Readable values a baseline window keeps: the baseline is their median. */
export const BASELINE_WINDOW = 30;

/** The median of a non-empty list of finite numbers; finite too, even for values near the largest double. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : midpoint(sorted[middle - 1]!, sorted[middle]!);
}

/**
 * Halfway from `low` to `high` (low <= high) without overflow: `(low + high) / 2` is Infinity for two values
 * near Number.MAX_VALUE, and a baseline of Infinity would make every `<` rule trigger. With opposite signs
 * the sum cannot overflow; with the same sign the difference cannot.
 */
function midpoint(low: number, high: number): number {
  return Math.sign(low) === Math.sign(high) ? low + (high - low) / 2 : (low + high) / 2;
}

const WRITTEN = /^(?<factor>\S+?)\s*x\s+baseline$/isu;

/** The baseline kind; see the file comment. */
export const baselineKind: RuleKind<BaselineThreshold> = {
  name: 'baseline',
  syntax: 'Kx baseline',
  valuePattern: '\\S+?\\s*x\\s+baseline',
  reads: 'number',
  parse(value, op) {
    const written = WRITTEN.exec(value);
    if (written?.groups === undefined) return undefined;
    const factorText = written.groups.factor!;
    const factor = DECIMAL.test(factorText) ? Number(factorText) : Number.NaN;
    if (!(factor > 0) || !Number.isFinite(factor)) {
      return {
        problem: `the baseline factor must be a positive number such as 3 or 1.5 (as in 3x baseline), got ${quoteText(factorText)}`,
      };
    }
    if (!isOrdering(op)) return { problem: `a baseline is compared with > >= < or <=, not ${op}` };
    return { threshold: { kind: 'baseline', factor } };
  },
  print: (threshold) => `${threshold.factor}x baseline`,
  isThreshold: (stored): stored is BaselineThreshold => {
    const factor = (stored as { factor?: unknown }).factor;
    return stored.kind === 'baseline' && typeof factor === 'number' && factor > 0 && Number.isFinite(factor);
  },
  memoryValues: BASELINE_WINDOW,
  hasReference: true,
  startMemory: (stored): RuleMemory => stored ?? [],
  compare(threshold, memory) {
    const window = memory ?? [];
    if (window.length < BASELINE_MIN_VALUES) return undefined;
    const baseline = median(window);
    return { threshold: threshold.factor * baseline, baseline };
  },
  // The window grows only while closed, so a long incident never becomes its own baseline.
  remember: (memory, value, open) =>
    memory === undefined || open ? memory : [...memory, value as number].slice(-BASELINE_WINDOW),
  heldThreshold: (threshold, reference) =>
    reference === undefined ? undefined : threshold.factor * reference,
  shortThreshold: (threshold, alert, show) =>
    typeof alert.baseline === 'number'
      ? `${threshold.factor}x baseline ${show(alert.baseline)}`
      : show(alert.threshold),
  thresholdLines: (threshold, alert, show) =>
    typeof alert.baseline === 'number'
      ? [
          ['Threshold', `${threshold.factor} x baseline = ${show(alert.threshold)}`],
          [
            'Baseline',
            `${show(alert.baseline)} (the median of the network's last readable values before the incident)`,
          ],
        ]
      : [['Threshold', show(alert.threshold)]],
};
