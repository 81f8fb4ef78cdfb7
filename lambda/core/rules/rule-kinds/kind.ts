/**
 * What a rule kind is (docs/rules.md): everything about one way of writing a rule's VALUE, in one
 * object. The parser, the evaluator, the rule item codec, the alert texts and `shieldwatch backtest` ask the
 * registry (`index.ts`) instead of switching on the kind. Pure: no clock, no environment.
 */
import type { RuleOp } from '../rule-types.ts';

/** The operators, longest first so that `>=` is not read as `>`. */
export const RULE_OPS: readonly RuleOp[] = ['>=', '<=', '==', '!=', '>', '<'];

/** A decimal number as rules write it: `50000`, `1.5`, `.5`, `1.5e6` (a sign allowed, no suffix). */
export const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

const HIDDEN = /[\p{Cc}\p{Cf}]/u;

/** Text from a rule quoted for a problem message: cut to `max`, never showing hidden characters. */
export function quoteText(text: string, max = 40): string {
  if (HIDDEN.test(text)) return '(text with hidden characters)';
  return JSON.stringify(text.length > max ? `${text.slice(0, max - 3)}...` : text);
}

/** Whether `op` orders (`>` `>=` `<` `<=`) rather than compares for equality (`==` `!=`). */
export const isOrdering = (op: RuleOp): boolean => op !== '==' && op !== '!=';

/**
 * What a kind remembers of a network between cycles (a baseline's window): a list of finite numbers, oldest
 * first, kept in the cell's `window`. One shape for every kind, so the rule item codec stores it as one value
 * list without knowing the rules (a stored item does not name kinds); each kind bounds its length
 * ({@link RuleKind.memoryValues}).
 */
export type RuleMemory = readonly number[];

/** What a reading is compared with, as a kind works it out from its threshold and memory. */
export interface Compared {
  readonly threshold: number | boolean;
  /** The reference the threshold came from (a baseline's median); alerts carry it as `baseline`. */
  readonly baseline?: number;
}

/** What the parser makes of a VALUE text written this kind's way: a threshold, or one problem. */
export type ParsedValue<T> = { readonly threshold: T } | { readonly problem: string };

/** How an alert shows a number or boolean (the subject's short form, the email's exact one). */
export type ShowValue = (value: unknown) => string;

/** What an alert record says of the comparison it was made of. */
export interface ComparedFields {
  /** The threshold the value was compared with (for a baseline rule, K x the baseline). */
  readonly threshold?: unknown;
  /** The reference the threshold came from, when the kind has one. */
  readonly baseline?: unknown;
}

/**
 * One rule kind. `T` is its parsed threshold, tagged with the kind's name. A kind with memory fills
 * {@link memoryValues}, {@link startMemory} and {@link remember}; one whose threshold comes from a reference
 * sets {@link hasReference} and returns it from {@link compare}.
 */
export interface RuleKind<T extends { readonly kind: string }> {
  readonly name: T['kind'];
  /** How the VALUE is written, for the parser's messages: `Kx baseline`. */
  readonly syntax: string;
  /** The same in more detail, for the message about a VALUE no kind reads; @default {@link syntax} */
  readonly syntaxInDetail?: string;
  /**
   * A regular expression source matching the whole VALUE text when it may hold spaces (`3 x baseline`);
   * otherwise the VALUE is the first word after the operator.
   */
  readonly valuePattern?: string;
  /** The type of reading the rule compares: a finite number, or a boolean. */
  readonly reads: 'number' | 'boolean';
  /**
   * The threshold of a VALUE text after `op`: undefined when the text is not written this kind's way (the
   * parser then asks the next kind), a problem when it is but is wrong.
   */
  parse(value: string, op: RuleOp): ParsedValue<T> | undefined;
  /** The VALUE as written in a rule, parsed back the same: `50000`, `true`, `3x baseline`. */
  print(threshold: T): string;
  /** Whether a stored threshold (JSON read back from an alert record) is a well-formed one of this kind. */
  isThreshold(stored: { readonly kind: string }): stored is T;
  /** Most numbers its memory holds (0: it has none); the rule item's worst-case size counts them. */
  readonly memoryValues: number;
  /** Whether a held transition keeps the reference its threshold came from (one number more in the cell). */
  readonly hasReference: boolean;
  /** The memory a cell of this kind judges with, from what is stored (undefined: the kind keeps none). */
  startMemory(stored: RuleMemory | undefined): RuleMemory | undefined;
  /** What a reading is compared with; undefined while the kind is still learning (no evidence either way). */
  compare(threshold: T, memory: RuleMemory | undefined): Compared | undefined;
  /** The memory after a readable value; `open` while the rule is triggered. */
  remember(memory: RuleMemory | undefined, value: number | boolean, open: boolean): RuleMemory | undefined;
  /** The threshold of a transition held back with this reference; undefined when it cannot be known. */
  heldThreshold(threshold: T, reference: number | undefined): number | boolean | undefined;
  /** The threshold as the subject and SMS show it after the operator: `50000`, `3x baseline 1200`. */
  shortThreshold(threshold: T, alert: ComparedFields, show: ShowValue): string;
  /** The email's lines about the threshold, as label and value: `Threshold`, and a baseline's `Baseline`. */
  thresholdLines(
    threshold: T,
    alert: ComparedFields,
    show: ShowValue,
  ): ReadonlyArray<readonly [label: string, value: string]>;
}

/** The email's threshold line of a kind that compares with its threshold as written. */
export const plainThresholdLines = (
  alert: ComparedFields,
  show: ShowValue,
): ReadonlyArray<readonly [string, string]> => [['Threshold', show(alert.threshold)]];

/**
 * The members of a kind that compares a reading with its threshold as written (`threshold`, `boolean`): no
 * memory, no reference; a held transition's threshold is the threshold's value, and the texts show it as is.
 */
export function fixedThresholdMembers<
  T extends { readonly kind: string; readonly value: number | boolean },
>(): Pick<
  RuleKind<T>,
  | 'memoryValues'
  | 'hasReference'
  | 'startMemory'
  | 'compare'
  | 'remember'
  | 'heldThreshold'
  | 'shortThreshold'
  | 'thresholdLines'
> {
  return {
    memoryValues: 0,
    hasReference: false,
    startMemory: () => undefined,
    compare: (threshold) => ({ threshold: threshold.value }),
    remember: () => undefined,
    heldThreshold: (threshold) => threshold.value,
    shortThreshold: (_threshold, alert, show) => show(alert.threshold),
    thresholdLines: (_threshold, alert, show) => plainThresholdLines(alert, show),
  };
}
