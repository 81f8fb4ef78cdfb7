/**
 * What `shieldwatch check` says about each traffic rule against each network's live body (docs/rules.md): the
 * value the rule reads there, or why it reads nothing (the path is missing, or holds a value of another type),
 * with a did-you-mean over the body's numeric dot paths. A rule that reads nothing on every network that
 * answered can never trigger: `check` fails on it (the monitor's `network.rule_unreadable` says the same, later).
 * Pure: the bodies are handed in.
 */

import { extractFigures } from '../detect/figures.ts';
import { nearest } from '../nearest.ts';
import { lookUp, pathSegments } from './dot-path.ts';
import { ruleKind } from './rule-kinds/index.ts';
import type { Rule } from './rule-types.ts';
import { readRules } from './rules.ts';

/** Numeric paths of a body considered for a suggestion. */
const MAX_PATHS = 500;

/** One rule on one network that answered. */
export type RuleCheckCell =
  | { readonly network: string; readonly reads: true; readonly value: number | boolean }
  | {
      readonly network: string;
      readonly reads: false;
      /** `missing`: nothing at the path; `wrong type`: a value the rule's kind does not read. */
      readonly why: 'missing' | 'wrong type';
      /** The JSON type found at the path (`string`, `null`, `object`, ...), for `wrong type`. */
      readonly found?: string;
      /** The body's numeric path nearest to the rule's, when one is near enough to be a likely typo. */
      readonly suggestion?: string;
    };

/** One rule against every network that answered (and that its `on` names). */
export interface RuleCheck {
  readonly rule: Rule;
  readonly cells: readonly RuleCheckCell[];
  /** True when the rule read nothing on every network checked (and there was one): it can never trigger. */
  readonly readsNowhere: boolean;
}

/** Each rule against each answered body (`bodies` in the order of the networks). */
export function checkRules(
  rules: readonly Rule[],
  bodies: ReadonlyArray<{ readonly network: string; readonly body: unknown }>,
): RuleCheck[] {
  return rules.map((rule) => {
    const cells = bodies
      .filter(({ network }) => rule.networks === undefined || rule.networks.includes(network))
      .map(({ network, body }) => checkCell(rule, network, body));
    return { rule, cells, readsNowhere: cells.length > 0 && cells.every((cell) => !cell.reads) };
  });
}

function checkCell(rule: Rule, network: string, body: unknown): RuleCheckCell {
  const reading = readRules([rule], body)[rule.name];
  if (reading?.kind === 'value') return { network, reads: true, value: reading.value };
  let found: ReturnType<typeof lookUp> = { found: false };
  try {
    found = lookUp(body, pathSegments(rule.path));
  } catch {
    // An exotic object only; parsed JSON never throws.
  }
  const paths = extractFigures(body, MAX_PATHS).map(([path]) => path);
  // A boolean rule reads a flag, which the numeric paths do not list: suggest only for number rules.
  const suggestion = ruleKind(rule).reads === 'number' ? nearest(rule.path, paths, '', false) : undefined;
  return {
    network,
    reads: false,
    why: found.found ? 'wrong type' : 'missing',
    ...(found.found ? { found: jsonType(found.value) } : {}),
    ...(suggestion === undefined || suggestion === rule.path ? {} : { suggestion }),
  };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
