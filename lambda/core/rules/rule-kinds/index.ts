/**
 * The rule kinds (docs/rules.md), one file each, collected in one record the compiler checks: a
 * kind missing a method, or listed under another name than its own, does not compile. The parser, the
 * evaluator, the rule item codec, the alert texts and `shieldwatch backtest` look a rule's kind up here.
 * Adding a kind is its file, its table test and one line below. Pure.
 */
import { own } from '../../own-record.ts';
import type { Rule, RuleOp } from '../rule-types.ts';
import { type BaselineThreshold, baselineKind } from './baseline.ts';
import { type BooleanThreshold, booleanKind } from './boolean.ts';
import { RULE_OPS, type RuleKind } from './kind.ts';
import { type NumberThreshold, thresholdKind } from './threshold.ts';

/** Every kind, by the name its thresholds are tagged with; the parser tries them in this order. */
export const RULE_KINDS = {
  number: thresholdKind,
  boolean: booleanKind,
  baseline: baselineKind,
} as const satisfies { readonly [K in RuleKindName]: RuleKind<Extract<RuleThreshold, { kind: K }>> };

/** What a rule compares the field with: one kind's threshold, tagged with the kind's name. */
export type RuleThreshold = NumberThreshold | BooleanThreshold | BaselineThreshold;

/** The name of a rule kind. */
export type RuleKindName = RuleThreshold['kind'];

/** The kind of a threshold, typed for any threshold (the registry keys each kind by its own name). */
export function kindOf<T extends RuleThreshold>(threshold: T): RuleKind<T> {
  return RULE_KINDS[threshold.kind] as unknown as RuleKind<T>;
}

/** A rule's kind. */
export const ruleKind = (rule: Pick<Rule, 'threshold'>): RuleKind<RuleThreshold> => kindOf(rule.threshold);

/**
 * What a rule alert carries of its rule beside the rule as written, so that its texts never parse that text
 * again (docs/rules.md): the path, the operator and the parsed threshold.
 */
export interface RuleCondition {
  readonly path: string;
  readonly op: RuleOp;
  readonly threshold: RuleThreshold;
}

/** A rule's condition, for its alerts. */
export const conditionOf = (rule: Rule): RuleCondition => ({
  path: rule.path,
  op: rule.op,
  threshold: rule.threshold,
});

/**
 * Each rule alert with its rule's condition, as it enters an outbox: its texts are rendered from the record
 * alone, without the configuration and without parsing `ruleText`.
 */
export function withConditions<A extends { readonly rule: string }>(
  rules: readonly Rule[],
  alerts: readonly A[],
): (A & { readonly condition?: RuleCondition })[] {
  const byName = new Map(rules.map((rule) => [rule.name, rule]));
  return alerts.map((alert) => {
    const rule = byName.get(alert.rule);
    return rule === undefined ? alert : { ...alert, condition: conditionOf(rule) };
  });
}

/** A condition as stored with an alert (JSON read back), when it is well formed; undefined otherwise. */
export function readCondition(stored: unknown): RuleCondition | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const { path, op, threshold } = stored as Record<string, unknown>;
  if (typeof path !== 'string' || !RULE_OPS.includes(op as RuleOp)) return undefined;
  if (typeof threshold !== 'object' || threshold === null) return undefined;
  const tagged = threshold as { readonly kind: string };
  const kind =
    typeof tagged.kind === 'string' ? own<RuleKind<RuleThreshold>>(RULE_KINDS, tagged.kind) : undefined;
  if (kind === undefined || !kind.isThreshold(tagged)) return undefined;
  return { path, op: op as RuleOp, threshold: tagged as RuleThreshold };
}

/** Every kind, in the parser's order. */
export const ALL_RULE_KINDS: readonly RuleKind<RuleThreshold>[] = Object.values(RULE_KINDS) as never;
