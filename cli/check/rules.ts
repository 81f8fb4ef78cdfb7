/**
 * `check`'s rules section: the rules in force (SHIELDWATCH_RULES), what each reads on each network that
 * answered and whether that meets its condition now, or why it reads nothing, with the nearest numeric path of
 * the body. A rule that reads nothing anywhere can never trigger: `check` fails on it.
 */

import type { MonitorConfig } from '../../lambda/config.ts';
import { POLL_EVERY_DEFAULT_MS } from '../../lambda/core/poll-slots.ts';
import { checkRules, type RuleCheckCell } from '../../lambda/core/rules/rule-check.ts';
import { ruleKind } from '../../lambda/core/rules/rule-kinds/index.ts';
import type { Rule } from '../../lambda/core/rules/rule-types.ts';
import { holds } from '../../lambda/core/rules/rules.ts';
import type { ApiResponse } from '../../lambda/core/types.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { clip, printable } from '../format.ts';
import { type CliIo, println } from '../io.ts';

/** What a value read now means for the rule: below its line, over it, or not comparable yet (learning). */
function verdict(rule: Rule, value: number | boolean): string {
  if (ruleKind(rule).compare(rule.threshold, undefined) === undefined) {
    return '(its baseline is learned from the first 10 values read; nothing is judged until then)';
  }
  if (!meets(rule, value)) return '(condition not met)';
  return rule.forCycles === 1
    ? '(condition MET now: the first cycle triggers it)'
    : `(condition MET now: triggers after ${rule.forCycles} cycles in a row)`;
}

function cellText(rule: Rule, cell: RuleCheckCell): string {
  if (cell.reads) return `reads ${String(cell.value)} ${verdict(rule, cell.value)}`;
  const kind = rule.threshold.kind === 'boolean' ? 'true/false' : 'number';
  return (
    `${cell.why === 'missing' ? 'path missing' : `not a ${kind} (${cell.found})`}: ${printable(rule.path)}` +
    (cell.suggestion === undefined ? '' : ` (did you mean ${printable(cell.suggestion)}?)`)
  );
}

/** What the rules section found: rules that can never trigger, and rules that meet their condition now. */
export interface RulesFound {
  /** Names of the rules that read nothing on any network that answered. */
  readonly blind: readonly string[];
  /** Rules whose condition holds now, with the networks: their alerts come with the first cycles. */
  readonly metNow: ReadonlyArray<{ readonly rule: string; readonly networks: readonly string[] }>;
}

/**
 * Prints the rules in force and, for each, what it reads on each network that answered (its `on` networks
 * only) and whether that meets its condition now.
 */
export function printRules(
  io: CliIo,
  config: MonitorConfig,
  networks: readonly ApiResponse[],
  mark: { ok: string; fail: string },
): RulesFound {
  if (config.rules.length === 0) {
    println(io.stdout, `rules          none in force (${SETTINGS.rules.env} not set; see docs/rules.md)`);
    return { blind: [], metNow: [] };
  }
  const answered = networks.flatMap((response, i) =>
    response.ok ? [{ network: config.networks[i] ?? '', body: response.json }] : [],
  );
  const count = `${config.rules.length} in force (${SETTINGS.rules.env})`;
  if (answered.length === 0) {
    println(
      io.stdout,
      `rules          ${count}; nothing read: ${config.networks.length === 0 ? `no network configured (${SETTINGS.networks.env})` : 'no network answered'}`,
    );
    for (const rule of config.rules) {
      println(io.stdout, `  - ${clip(printable(rule.text), 120)}`);
      println(io.stdout, `      ${forCyclesMeaning(rule.forCycles, config.pollEveryMs)}`);
    }
    return { blind: [], metNow: [] };
  }
  println(io.stdout, `rules          ${count}, each against each network that answered`);
  const blind: string[] = [];
  const metNow: { rule: string; networks: string[] }[] = [];
  for (const check of checkRules(config.rules, answered)) {
    println(
      io.stdout,
      `  ${check.readsNowhere ? mark.fail : mark.ok} ${clip(printable(check.rule.text), 120)}`,
    );
    println(io.stdout, `      ${forCyclesMeaning(check.rule.forCycles, config.pollEveryMs)}`);
    if (check.readsNowhere) blind.push(check.rule.name);
    if (check.cells.length === 0) {
      println(io.stdout, '      (none of its networks answered)');
    }
    for (const cell of check.cells) {
      println(io.stdout, `      ${clip(printable(cell.network), 40)}: ${cellText(check.rule, cell)}`);
    }
    const met = check.cells.flatMap((cell) =>
      cell.reads && meets(check.rule, cell.value) ? [cell.network] : [],
    );
    if (met.length > 0) metNow.push({ rule: check.rule.name, networks: met });
  }
  return { blind, metNow };
}

/** Whether a value read now meets the rule's condition (a baseline still learning meets nothing). */
function meets(rule: Rule, value: number | boolean): boolean {
  const compared = ruleKind(rule).compare(rule.threshold, undefined);
  return compared !== undefined && holds(rule.op, value, compared.threshold);
}

/**
 * What `for N` means in time at the deployed poll interval (CONTRACT §18.4; docs/rules.md): N cycles in a row
 * meet the condition, the first 0 to one interval after it begins, so the alert comes (N - 1) to N intervals
 * after it, plus the cycle's own time.
 */
export function forCyclesMeaning(forCycles: number, pollEveryMs = POLL_EVERY_DEFAULT_MS): string {
  const seconds = (ms: number) => (ms % 60_000 === 0 && ms > 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);
  const from = (forCycles - 1) * pollEveryMs;
  const to = forCycles * pollEveryMs;
  return (
    `for ${forCycles}: ${forCycles} cycle${forCycles === 1 ? '' : 's'} in a row, so it alerts ` +
    `${from === 0 ? '0' : seconds(from)} to ${seconds(to)} after the condition begins at ` +
    `pollEvery ${seconds(pollEveryMs)} (${SETTINGS.pollEvery.env})`
  );
}
