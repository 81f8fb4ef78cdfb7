/**
 * Traffic rules (docs/rules.md): the parser of the rules setting, its printer, and each rule's
 * reading of one network body. The evaluator is `rule-eval.ts`.
 * Pure: no clock, no environment.
 */

import { networkIdProblem } from '../network-id.ts';
import { lookUp, pathSegments } from './dot-path.ts';
import { ALL_RULE_KINDS, kindOf, ruleKind } from './rule-kinds/index.ts';
import { RULE_OPS as OPS, quoteText as quote } from './rule-kinds/kind.ts';
import type { Rule, RuleOp, RuleReading, RuleThreshold } from './rule-types.ts';

/** Most rules a deployment may have: each is evaluated on every network in every cycle and kept in state. */
export const MAX_RULES = 20;

/** Longest rule text accepted: it travels in the function's environment (4 KB for all variables). */
export const MAX_RULES_LENGTH = 2000;

/** Longest rule name. */
export const MAX_RULE_NAME_LENGTH = 40;

/** Longest path of a rule, as for figure fields. */
export const MAX_RULE_PATH_LENGTH = 100;

/** Bounds of `for N`. */
export const MIN_FOR_CYCLES = 1;
export const MAX_FOR_CYCLES = 100;

const NAME = /^[A-Za-z0-9_-]{1,40}$/;
const HIDDEN = /[\p{Cc}\p{Cf}]/u;

/** What the parser made of the text: the rules that are well formed, and every problem of the others. */
export interface RulesParse {
  readonly rules: Rule[];
  /** One line per problem, each naming its rule (by name, or by position when the name is unreadable). */
  readonly problems: string[];
}

/** The rule texts of `text`: split on newlines and `;`, trimmed, blank ones dropped. */
export function ruleTexts(text: string): string[] {
  return text
    .split(/[\n;]/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * Parses `NAME: PATH OP VALUE [for N] [on ID,ID,...]` rules, one per line or separated by `;`
 * (docs/rules.md). Every problem is reported at once, without the setting's name (the caller adds it); a
 * rule with a problem is left out of `rules`. Empty text is no rules.
 */
export function parseRules(text: string): RulesParse {
  const problems: string[] = [];
  if (text.length > MAX_RULES_LENGTH) {
    problems.push(
      `is ${text.length} characters, more than ${MAX_RULES_LENGTH} (it travels in the function's environment): shorten names or paths`,
    );
  }
  const texts = ruleTexts(text);
  if (texts.length > MAX_RULES) {
    problems.push(`has ${texts.length} rules, more than ${MAX_RULES}: keep the ones that matter`);
  }
  const rules: Rule[] = [];
  const seen = new Set<string>();
  for (const [index, ruleText] of texts.entries()) {
    const parsed = parseRule(ruleText, index + 1);
    problems.push(...parsed.problems);
    const repeated = parsed.name !== undefined && seen.has(parsed.name);
    if (repeated) problems.push(`rule "${parsed.name}": the name is used by an earlier rule`);
    if (parsed.name !== undefined) seen.add(parsed.name);
    if (parsed.rule !== undefined && !repeated) rules.push(parsed.rule);
  }
  return { rules, problems };
}

interface OneRuleParse {
  /** The name, when it is readable. */
  readonly name?: string;
  readonly rule?: Rule;
  readonly problems: string[];
}

function parseRule(text: string, position: number): OneRuleParse {
  const colon = text.indexOf(':');
  const rawName = colon < 0 ? '' : text.slice(0, colon).trim();
  const nameOk = NAME.test(rawName);
  const label = nameOk ? `rule "${rawName}"` : `rule ${position}`;
  const problems: string[] = [];
  const problem = (what: string): void => {
    problems.push(`${label}: ${what}`);
  };
  if (colon < 0) {
    problem(`expected NAME: PATH OP VALUE [for N] [on ID,...], got ${quote(text)}`);
    return { problems };
  }
  if (!nameOk) {
    problem(
      rawName === ''
        ? 'the name before ":" is empty'
        : `the name ${quote(rawName)} must be 1 to ${MAX_RULE_NAME_LENGTH} of A-Z a-z 0-9 _ -`,
    );
  }
  const body = text.slice(colon + 1).trim();
  const match = /^(?<path>[^\s<>=!]*)\s*(?<op>>=|<=|==|!=|>|<)\s*(?<rest>.*)$/su.exec(body);
  if (match?.groups === undefined) {
    problem(`expected PATH OP VALUE after the name, with OP one of ${OPS.join(' ')}; got ${quote(body)}`);
    return nameOk ? { name: rawName, problems } : { problems };
  }
  const { path, op, rest } = match.groups as { path: string; op: RuleOp; rest: string };
  const pathProblem = rulePathProblem(path);
  if (pathProblem !== undefined) problem(pathProblem);
  const tail = parseTail(rest, op, problem);
  if (!nameOk || pathProblem !== undefined || tail === undefined || problems.length > 0) {
    return nameOk ? { name: rawName, problems } : { problems };
  }
  const rule: Rule = {
    name: rawName,
    path,
    op,
    threshold: tail.threshold,
    forCycles: tail.forCycles,
    ...(tail.networks === undefined ? {} : { networks: tail.networks }),
    text,
  };
  return { name: rawName, rule, problems };
}

function rulePathProblem(path: string): string | undefined {
  if (path === '')
    return 'the path before the operator is empty (expected a dot path such as traffic.in_pps)';
  if (HIDDEN.test(path)) return 'the path has a control or invisible character';
  if (pathSegments(path).some((segment) => segment === '')) {
    return `the path ${quote(path)} has an empty segment (expected names joined by single dots, e.g. traffic.in_pps)`;
  }
  if (path.length > MAX_RULE_PATH_LENGTH) {
    return `the path ${quote(path)} is longer than ${MAX_RULE_PATH_LENGTH} characters`;
  }
  return undefined;
}

interface Tail {
  readonly threshold: RuleThreshold;
  readonly forCycles: number;
  readonly networks?: readonly string[];
}

/** `a, b, or c`. */
const either = (texts: readonly string[]): string =>
  texts.length < 2 ? texts.join('') : `${texts.slice(0, -1).join(', ')}, or ${texts[texts.length - 1]}`;

/** `VALUE [for N] [on ID,...]` after the operator: a VALUE written with spaces by some kind, or one word. */
const TAIL = new RegExp(
  `^(?<value>${[...ALL_RULE_KINDS.flatMap((kind) => kind.valuePattern ?? []), '\\S+'].map((p) => `(?:${p})`).join('|')})(?:\\s+for\\s+(?<for>\\S+))?(?:\\s+on\\s+(?<on>.*))?$`,
  'isu',
);

/** `VALUE [for N] [on ID,...]` after the operator. */
function parseTail(rest: string, op: RuleOp, problem: (what: string) => void): Tail | undefined {
  const match = TAIL.exec(rest);
  if (match?.groups === undefined || rest === '') {
    problem(
      rest === ''
        ? `the value after the operator is missing (${either(ALL_RULE_KINDS.map((kind) => kind.syntax))})`
        : `expected VALUE [for N] [on ID,...] after the operator, got ${quote(rest)}`,
    );
    return undefined;
  }
  const { value, for: forText, on } = match.groups as { value: string; for?: string; on?: string };
  let noted = 0;
  const note = (what: string): void => {
    noted++;
    problem(what);
  };
  const threshold = parseThreshold(value, op, note);
  let forCycles = 1;
  if (forText !== undefined) {
    if (!/^\d+$/.test(forText) || Number(forText) < MIN_FOR_CYCLES || Number(forText) > MAX_FOR_CYCLES) {
      note(
        `"for" takes a whole number of cycles from ${MIN_FOR_CYCLES} to ${MAX_FOR_CYCLES}, got ${quote(forText)}`,
      );
    } else {
      forCycles = Number(forText);
    }
  }
  const networks = on === undefined ? undefined : parseOn(on, note);
  if (threshold === undefined || noted > 0) return undefined;
  return { threshold, forCycles, ...(networks === undefined ? {} : { networks }) };
}

/** The threshold of VALUE: the first kind that reads it as written its way, or one problem. */
function parseThreshold(value: string, op: RuleOp, note: (what: string) => void): RuleThreshold | undefined {
  for (const kind of ALL_RULE_KINDS) {
    const parsed = kind.parse(value, op);
    if (parsed === undefined) continue;
    if ('problem' in parsed) {
      note(parsed.problem);
      return undefined;
    }
    return parsed.threshold;
  }
  note(
    `the value ${quote(value)} is not ${either(ALL_RULE_KINDS.map((kind) => kind.syntaxInDetail ?? kind.syntax))}`,
  );
  return undefined;
}

function parseOn(on: string, note: (what: string) => void): readonly string[] | undefined {
  const ids = on.split(',').map((id) => id.trim());
  let ok = true;
  for (const [index, id] of ids.entries()) {
    const problem =
      id === '' ? 'empty' : HIDDEN.test(id) ? 'a control or invisible character' : networkIdProblem(id);
    if (problem !== undefined) {
      note(`network ${index + 1} after "on" is invalid: ${problem}`);
      ok = false;
    }
  }
  const repeated = [...new Set(ids.filter((id, index) => id !== '' && ids.indexOf(id) !== index))];
  if (repeated.length > 0) {
    note(`"on" lists ${repeated.map((id) => quote(id)).join(', ')} more than once`);
    ok = false;
  }
  return ok ? ids : undefined;
}

/**
 * The rules whose `on` names a network that is not configured, one problem each (naming the rule and the
 * ids): such a rule would silently watch less than it says.
 */
export function ruleNetworkProblems(rules: readonly Rule[], networks: readonly string[]): string[] {
  const configured = new Set(networks);
  return rules.flatMap((rule) => {
    const unknown = (rule.networks ?? []).filter((id) => !configured.has(id));
    return unknown.length === 0
      ? []
      : [
          `rule "${rule.name}": "on" names ${unknown.map((id) => quote(id)).join(', ')}, not among the configured networks`,
        ];
  });
}

/** A rule's threshold as written in a rule: `50000`, `true`, `3x baseline`. */
export function printThreshold(threshold: RuleThreshold): string {
  return kindOf(threshold).print(threshold);
}

/** A rule written back in the grammar {@link parseRules} reads (its `text` aside). */
export function printRule(rule: Rule): string {
  const forPart = rule.forCycles === 1 ? '' : ` for ${rule.forCycles}`;
  const onPart = rule.networks === undefined ? '' : ` on ${rule.networks.join(',')}`;
  return `${rule.name}: ${rule.path} ${rule.op} ${printThreshold(rule.threshold)}${forPart}${onPart}`;
}

/** Whether a value holds the rule's condition against `threshold` (a number, or a boolean for == and !=). */
export function holds(op: RuleOp, value: number | boolean, threshold: number | boolean): boolean {
  switch (op) {
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
    case '==':
      return value === threshold;
    case '!=':
      return value !== threshold;
  }
}

const NONE: RuleReading = { kind: 'none' };

/**
 * Each rule's reading of one network body, by rule name: the value at the rule's path when it has the
 * type its kind reads (a finite number for threshold and baseline rules, a boolean for boolean rules), `none`
 * otherwise. Never throws.
 */
export function readRules(rules: readonly Rule[], body: unknown): Record<string, RuleReading> {
  const readings: Array<[string, RuleReading]> = [];
  for (const rule of rules) {
    let reading = NONE;
    try {
      const found = lookUp(body, pathSegments(rule.path));
      if (found.found) {
        const wanted = ruleKind(rule).reads;
        const value = found.value;
        if (typeof value === wanted && (typeof value !== 'number' || Number.isFinite(value))) {
          reading = { kind: 'value', value: value as number | boolean };
        }
      }
    } catch {
      // Only an exotic object (a Proxy with throwing traps) gets here: no evidence this time.
    }
    readings.push([rule.name, reading]);
  }
  // Own properties even for a rule named `__proto__` (an assignment would set the prototype instead).
  return Object.fromEntries(readings);
}
