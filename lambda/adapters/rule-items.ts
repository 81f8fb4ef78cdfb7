/**
 * How rule state is kept in DynamoDB (README, Traffic rules: where rule state lives): the compact text of a
 * rule item's state, the worst-case size of that text and of a rule alert, and the split of a shard's
 * networks into items that stay far below DynamoDB's 400 KB item limit. No I/O.
 */
import type { Rule, RuleCell, RuleState } from '../core/rule-types.ts';
import type { RuleScopeState } from '../ports.ts';

/** Worst-case bytes of one rule item's state text: the item also holds its outbox (see {@link ALERT_BUDGET_BYTES}). */
export const STATE_BUDGET_BYTES = 100_000;
/** Worst-case bytes of the alerts one commit appends to a rule item, and of those kept in it between spills. */
export const ALERT_BUDGET_BYTES = 100_000;
/** Most alerts one commit appends (a DynamoDB expression holds at most 4 KB; each alert takes ~25 characters). */
export const MAX_ALERTS_PER_COMMIT = 100;

/** Sort key prefix of the rule items under pk `state`. */
export const RULE_SCOPE_PREFIX = 'rules#';

/** Characters of one number in a value list: its 8 bytes (IEEE 754) in base64 without the padding. */
const NUMBER_CHARS = 11;
const TRUE_MARK = '!';
const FALSE_MARK = '~';
/** Values of a baseline window (rule-eval's BASELINE_WINDOW). */
const WINDOW_VALUES = 30;
/** `[1,99,"…","…","<24>"],` and the slots of the cell, beside its value lists. */
const CELL_OVERHEAD = 48;
/** `{"s":…,"at":"<24>","r":[],"n":{}}` */
const STATE_OVERHEAD = 80;
/** Bytes of a stored alert beside its rule name, network id, rule text and values (keys, times, claim, last error). */
const ALERT_OVERHEAD = 1200;
/** Most bytes of a number as JSON text (`-1.2345678901234567e-308`) and its comma. */
const JSON_NUMBER_BYTES = 25;

/** The empty state of a rule item. */
export const INITIAL_RULE_SCOPE: RuleScopeState = { rules: { cells: {} }, nextSeq: 1 };

/** One rule item's networks and its sort key. */
export interface RuleScopePlan {
  /** `rules#<shard>`, or `rules#<shard>#<chunk>` when the shard's rule state needs more than one item. */
  readonly key: string;
  readonly networks: readonly string[];
}

/** A value list as text: each number as 11 base64 characters (its 8 bytes), a boolean as one mark. */
export function encodeValues(values: readonly (number | boolean)[]): string {
  let text = '';
  for (const value of values) {
    if (typeof value === 'boolean') text += value ? TRUE_MARK : FALSE_MARK;
    else {
      const bytes = Buffer.alloc(8);
      bytes.writeDoubleBE(value);
      text += bytes.toString('base64').slice(0, NUMBER_CHARS);
    }
  }
  return text;
}

/** The values of {@link encodeValues}' text; a damaged text yields the values read before the damage. */
export function decodeValues(text: unknown): (number | boolean)[] {
  const values: (number | boolean)[] = [];
  if (typeof text !== 'string') return values;
  for (let i = 0; i < text.length; ) {
    const mark = text[i];
    if (mark === TRUE_MARK || mark === FALSE_MARK) {
      values.push(mark === TRUE_MARK);
      i++;
      continue;
    }
    const chunk = text.slice(i, i + NUMBER_CHARS);
    const bytes = Buffer.from(`${chunk}=`, 'base64');
    if (chunk.length < NUMBER_CHARS || bytes.length !== 8) break;
    const value = bytes.readDoubleBE(0);
    if (!Number.isFinite(value)) break;
    values.push(value);
    i += NUMBER_CHARS;
  }
  return values;
}

const incidentOf = (rule: string, network: string, since: string): string => `${rule}/${network}/${since}`;

type StoredCell = [number, number, string, string | 0, string | 0, string] | (number | string)[];

function encodeCell(rule: string, network: string, cell: RuleCell): StoredCell {
  const stored: (number | string)[] = [
    cell.open ? 1 : 0,
    cell.run,
    encodeValues(cell.values),
    cell.window === undefined ? 0 : encodeValues(cell.window),
    cell.since ?? 0,
  ];
  // The evaluator names an incident after its rule, network and start: kept only when it is another name.
  if (cell.incident !== undefined && cell.incident !== incidentOf(rule, network, cell.since ?? '')) {
    stored.push(cell.incident);
  }
  while (stored.length > 3 && stored[stored.length - 1] === 0) stored.pop();
  return stored;
}

function decodeCell(rule: string, network: string, stored: unknown): RuleCell | undefined {
  if (!Array.isArray(stored)) return undefined;
  const [open, run, values, window, since, incident] = stored as unknown[];
  const cell: { -readonly [K in keyof RuleCell]: RuleCell[K] } = {
    open: open === 1,
    run: typeof run === 'number' && Number.isInteger(run) && run >= 0 ? run : 0,
    values: decodeValues(values),
  };
  if (typeof window === 'string') cell.window = decodeValues(window).filter((v) => typeof v === 'number');
  if (typeof since === 'string') cell.since = since;
  if (cell.open && cell.since !== undefined) {
    cell.incident = typeof incident === 'string' ? incident : incidentOf(rule, network, cell.since);
  }
  return cell;
}

/**
 * The state of a rule item as compact JSON text: rule names once, then per network one cell per rule
 * (0 where the rule has none), value lists as {@link encodeValues} text. JSON text rather than DynamoDB
 * numbers: any finite double round-trips (DynamoDB numbers stop at 1e125), and its size is what it looks like.
 */
export function encodeRuleScope(scope: RuleScopeState): string {
  const names = Object.keys(scope.rules.cells);
  // A Map, not an object: a network id may be `__proto__`.
  const networks = new Map<string, (StoredCell | 0)[]>();
  names.forEach((rule, index) => {
    for (const [network, cell] of Object.entries(scope.rules.cells[rule] ?? {})) {
      const row = networks.get(network) ?? [];
      networks.set(network, row);
      while (row.length < index) row.push(0);
      row[index] = encodeCell(rule, network, cell);
    }
  });
  return JSON.stringify({
    s: scope.nextSeq,
    ...(scope.rules.lastAt === undefined ? {} : { at: scope.rules.lastAt }),
    r: names,
    n: Object.fromEntries(networks),
  });
}

/** The state of {@link encodeRuleScope}'s text; what is damaged is left out (a cell starts again closed). */
export function decodeRuleScope(text: unknown): RuleScopeState {
  let parsed: unknown;
  try {
    parsed = typeof text === 'string' ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return INITIAL_RULE_SCOPE;
  const { s, at, r, n } = parsed as Record<string, unknown>;
  const names = Array.isArray(r) ? r.filter((name): name is string => typeof name === 'string') : [];
  const byRule = new Map(names.map((name) => [name, new Map<string, RuleCell>()]));
  if (typeof n === 'object' && n !== null) {
    for (const [network, row] of Object.entries(n as Record<string, unknown>)) {
      if (!Array.isArray(row)) continue;
      names.forEach((rule, index) => {
        const cell = decodeCell(rule, network, row[index]);
        if (cell !== undefined) byRule.get(rule)?.set(network, cell);
      });
    }
  }
  // Object.fromEntries defines own properties: a network id `__proto__` stays a cell.
  const cells = Object.fromEntries([...byRule].map(([rule, row]) => [rule, Object.fromEntries(row)]));
  const rules: RuleState = { ...(typeof at === 'string' ? { lastAt: at } : {}), cells };
  return { rules, nextSeq: typeof s === 'number' && Number.isSafeInteger(s) && s >= 1 ? s : 1 };
}

/** Bytes of a string as JSON text in UTF-8 (quotes and escapes included). */
const jsonBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text), 'utf8');

/** The rules that watch a network (its `on` list, or every network). */
function rulesOf(rules: readonly Rule[], network: string): Rule[] {
  return rules.filter((rule) => rule.networks === undefined || rule.networks.includes(network));
}

/** Worst-case bytes one network adds to {@link encodeRuleScope}'s text: every cell open, every list full. */
export function networkStateBytes(rules: readonly Rule[], network: string): number {
  let bytes = jsonBytes(network) + 3 + 2 * rules.length;
  for (const rule of rulesOf(rules, network)) {
    // A run holds at most forCycles - 1 values: the forCycles-th triggers or resolves and empties it.
    const values = rule.forCycles - 1 + (rule.threshold.kind === 'baseline' ? WINDOW_VALUES : 0);
    bytes += CELL_OVERHEAD + values * NUMBER_CHARS;
  }
  return bytes;
}

/** Worst-case bytes of the state text of a rule item holding these networks. */
export function ruleStateBytes(rules: readonly Rule[], networks: readonly string[]): number {
  let bytes = STATE_OVERHEAD + rules.reduce((sum, rule) => sum + jsonBytes(rule.name) + 1, 0);
  for (const network of networks) bytes += networkStateBytes(rules, network);
  return bytes;
}

/** Worst-case bytes of one rule alert as an outbox entry or event item (claim and last error included). */
export function ruleAlertBytes(rules: readonly Rule[], networks: readonly string[]): number {
  const longestId = Math.max(0, ...networks.map((id) => Buffer.byteLength(id, 'utf8')));
  return Math.max(
    0,
    ...rules.map(
      (rule) =>
        ALERT_OVERHEAD +
        2 * (Buffer.byteLength(rule.name) + longestId) +
        Buffer.byteLength(rule.text) +
        (rule.forCycles + 4) * JSON_NUMBER_BYTES,
    ),
  );
}

/**
 * Alerts one commit may append to a rule item, and that the item keeps before the oldest move to items of
 * their own: as many as fit {@link ALERT_BUDGET_BYTES} at the worst, at most {@link MAX_ALERTS_PER_COMMIT}.
 */
export function alertsPerCommit(rules: readonly Rule[], networks: readonly string[]): number {
  const each = ruleAlertBytes(rules, networks);
  return Math.max(1, Math.min(MAX_ALERTS_PER_COMMIT, Math.floor(ALERT_BUDGET_BYTES / Math.max(1, each))));
}

/**
 * The rule items of one shard: its networks that some rule watches, in order, cut into consecutive chunks
 * whose worst-case state fits {@link STATE_BUDGET_BYTES}. One chunk (the usual case) is `rules#<shard>`;
 * more are `rules#<shard>#<chunk>`. No rules, or no network watched: no item.
 */
export function planRuleScopes(
  shard: number,
  rules: readonly Rule[],
  networks: readonly string[],
): RuleScopePlan[] {
  const watched = networks.filter((network) => rulesOf(rules, network).length > 0);
  if (watched.length === 0) return [];
  const base = ruleStateBytes(rules, []);
  const chunks: string[][] = [];
  let current: string[] = [];
  let bytes = base;
  for (const network of watched) {
    const more = networkStateBytes(rules, network);
    if (current.length > 0 && bytes + more > STATE_BUDGET_BYTES) {
      chunks.push(current);
      current = [];
      bytes = base;
    }
    current.push(network);
    bytes += more;
  }
  chunks.push(current);
  const prefix = `${RULE_SCOPE_PREFIX}${shard}`;
  return chunks.map((chunk, index) => ({
    key: chunks.length === 1 ? prefix : `${prefix}#${index}`,
    networks: chunk,
  }));
}
