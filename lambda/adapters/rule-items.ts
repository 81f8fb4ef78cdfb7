/**
 * How rule state is kept in DynamoDB (docs/design/rule-state.md): the compact text of a
 * rule item's state, the worst-case size of that text and of a rule alert, and the split of a shard's
 * networks into items that stay far below DynamoDB's 400 KB item limit. No I/O.
 */

import { ESCALATE_MAX_STAGES, FIRST_STAGE, type IncidentTimers } from '../core/incidents/escalation.ts';
import { ACK_BY_MAX_CHARS, ACK_NOTE_MAX_CHARS, cleanAckText } from '../core/incidents/lifecycle.ts';
import { CELL_ACK_BUDGET_BYTES, cellAckBytes } from '../core/incidents/rule-incidents.ts';
import { own } from '../core/own-record.ts';
import { ruleIncidentId } from '../core/rules/rule-eval.ts';
import { conditionOf, ruleKind } from '../core/rules/rule-kinds/index.ts';
import { decodeValues, encodeValues, NUMBER_CHARS } from '../core/rules/rule-kinds/value-text.ts';
import type {
  HeldTransition,
  MovedCells,
  Rule,
  RuleCell,
  RulePeak,
  RuleState,
} from '../core/rules/rule-types.ts';
import type { RuleScopeState } from '../ports.ts';

/**
 * Worst-case bytes of one rule item's state text: the item also holds its outbox (see {@link ALERT_BUDGET_BYTES}).
 * 108 KB since cells keep their incident's timers (37 bytes a cell at the worst), 120 KB since they keep its
 * peak (28 more), so that a shard of 150 networks with three rules, one a baseline, is still one item
 * (docs/design/rule-state.md). Who acknowledged the cells' incidents and the notes take at most
 * {@link CELL_ACK_BUDGET_BYTES} more.
 */
export const STATE_BUDGET_BYTES = 120_000;
/** Worst-case bytes of the alerts one commit appends to a rule item, and of those kept in it between spills. */
export const ALERT_BUDGET_BYTES = 100_000;
/** Most alerts one commit appends (a DynamoDB expression holds at most 4 KB; each alert takes ~25 characters). */
export const MAX_ALERTS_PER_COMMIT = 100;

/** Sort key prefix of the rule items under pk `state`. */
export const RULE_SCOPE_PREFIX = 'rules#';

// The value list text is the rule kinds' (their memory is a value list); named here as before.
export { decodeValues, encodeValues };

/** `[1,99,"…","…","<24>"],` and the slots of the cell, beside its value lists. */
const CELL_OVERHEAD = 48;
/** A held resolve's time (`,0,"<11>"`), beside its values in the cell's list; a kind with a reference adds it. */
const HELD_CHARS = 2 + NUMBER_CHARS + 3;
/** A held resolve's stage (`,0,11`: the reference slot, then the stage, at most {@link ESCALATE_MAX_STAGES} + 1). */
const HELD_STAGE_CHARS = 5;
/**
 * An open incident's timers (`,0,"<stage>.<remind>.<ack>.<opened>"`: the incident slot, then the stage and
 * three signed base-36 offsets in ms from the cell's `triggeredAt`, each at most {@link OFFSET_DIGITS} digits).
 */
const OFFSET_DIGITS = 8;
const TIMERS_CHARS = 2 + 3 + 2 + 3 * (2 + OFFSET_DIGITS);
/**
 * An open incident's peak (`,"<value>.<at>"`: its value as {@link encodeValues} text, then when as an offset from
 * `triggeredAt`, left out when 0), in the slot after who acknowledged and the note, which a cell without them
 * fills with 0 (`,0,0`) so that the previous release reads its slots as before.
 */
const PEAK_CHARS = 4 + 2 + NUMBER_CHARS + 1 + (1 + OFFSET_DIGITS) + 1;
/** The run slot of a cell holding a transition back (rule-limit.ts): its event. */
const HELD_TRIGGER = -1;
const HELD_RESOLVE = -2;
/** `{"s":…,"at":"<24>","r":[],"n":{}}` */
const STATE_OVERHEAD = 80;
/** Bytes of a stored alert beside its rule name, network id, rule text and values (keys, times, claim, last error). */
const ALERT_OVERHEAD = 1200;
/** Most bytes of a number as JSON text (`-1.2345678901234567e-308`) and its comma. */
const JSON_NUMBER_BYTES = 25;
/** A resolve's peak in its numbers' JSON text: `"peak":` and a number, `"peakAt":"<24>",`. */
const PEAK_ALERT_BYTES = 7 + JSON_NUMBER_BYTES + 36;

/** The empty state of a rule item. */
export const INITIAL_RULE_SCOPE: RuleScopeState = { rules: { cells: {} }, nextSeq: 1 };

/** One rule item's networks and its sort key. */
export interface RuleScopePlan {
  /** `rules#<shard>`, or `rules#<shard>#<chunk>` when the shard's rule state needs more than one item. */
  readonly key: string;
  readonly networks: readonly string[];
}

type StoredCell = (number | string)[];

/** A time as the 11 characters of its epoch milliseconds (a held transition's time, when not the cell's since). */
const encodeTime = (iso: string): string => encodeValues([Date.parse(iso)]);
const decodeTime = (text: unknown): string | undefined => {
  const [ms] = decodeValues(text);
  return typeof ms === 'number' && Number.isFinite(new Date(ms).getTime())
    ? new Date(ms).toISOString()
    : undefined;
};

/** Largest offset a timers text holds (about 89 years): a time further from the incident's start is cut to it. */
const MAX_OFFSET_MS = 36 ** OFFSET_DIGITS - 1;

/** A time as a signed base-36 offset in ms from `since` (empty: none). */
function encodeOffset(since: number, iso: string | undefined): string {
  if (iso === undefined) return '';
  const ms = Date.parse(iso) - since;
  if (!Number.isFinite(ms)) return '';
  return Math.max(-MAX_OFFSET_MS, Math.min(MAX_OFFSET_MS, Math.round(ms))).toString(36);
}

function decodeOffset(since: number, text: string | undefined): string | undefined {
  if (text === undefined || !/^-?[0-9a-z]{1,8}$/.test(text)) return undefined;
  const at = new Date(since + Number.parseInt(text, 36));
  return Number.isFinite(at.getTime()) ? at.toISOString() : undefined;
}

/**
 * An open incident's timers as one short text (`rule-incidents.ts`): its stage, then its last reminder, its
 * acknowledgement's time and when it opened (only when a clock ahead made that differ from `triggeredAt`), as
 * offsets from `triggeredAt`; empty ones at the end are left out. Who acknowledged and the note are not in
 * this text (its worst case stays small): they follow it in slots of their own ({@link encodeCell}), within
 * the item's {@link CELL_ACK_BUDGET_BYTES}.
 */
function encodeTimers(triggeredAt: string, timers: IncidentTimers): string {
  const since = Date.parse(triggeredAt);
  const opened = timers.openedAt === triggeredAt ? undefined : timers.openedAt;
  const stage = Math.max(FIRST_STAGE, Math.min(ESCALATE_MAX_STAGES + 1, Math.trunc(timers.stage)));
  return [
    String(Number.isFinite(stage) ? stage : FIRST_STAGE),
    encodeOffset(since, timers.lastRemindAt),
    encodeOffset(since, timers.acknowledged?.at),
    encodeOffset(since, opened),
  ]
    .join('.')
    .replace(/\.+$/, '');
}

/**
 * `text` and its acknowledgement's who and note: `by` and `note` are the cell's slots after the timers (absent
 * in an item written before they were kept: the acknowledgement then keeps when only, `by` empty).
 */
function decodeTimers(
  triggeredAt: string,
  text: string,
  by: unknown,
  note: unknown,
): IncidentTimers | undefined {
  const since = Date.parse(triggeredAt);
  if (!Number.isFinite(since)) return undefined;
  const [stageText, remind, ack, opened] = text.split('.');
  const stage = Number(stageText);
  if (!Number.isSafeInteger(stage) || stage < FIRST_STAGE) return undefined;
  const lastRemindAt = decodeOffset(since, remind);
  const ackAt = decodeOffset(since, ack);
  // Cleaned again as kept (a damaged item's text stays bounded and printable).
  const who = typeof by === 'string' ? cleanAckText(by, ACK_BY_MAX_CHARS) : '';
  const said = who !== '' && typeof note === 'string' ? cleanAckText(note, ACK_NOTE_MAX_CHARS) : '';
  return {
    openedAt: decodeOffset(since, opened) ?? triggeredAt,
    stage,
    ...(lastRemindAt === undefined ? {} : { lastRemindAt }),
    ...(ackAt === undefined
      ? {}
      : { acknowledged: { by: who, at: ackAt, ...(said === '' ? {} : { note: said }) } }),
  };
}

/** A peak as one text: its value ({@link encodeValues}), then `.` and when, as an offset from `triggeredAt` unless 0. */
function encodePeak(triggeredAt: string, peak: RulePeak): string {
  const at = peak.at === triggeredAt ? '' : encodeOffset(Date.parse(triggeredAt), peak.at);
  return `${encodeValues([peak.value])}${at === '' ? '' : `.${at}`}`;
}

/** The peak of {@link encodePeak}'s text, or undefined when absent or damaged. */
function decodePeak(triggeredAt: string, text: unknown): RulePeak | undefined {
  if (typeof text !== 'string') return undefined;
  const [valueText, offset] = text.split('.');
  const values = decodeValues(valueText);
  const since = Date.parse(triggeredAt);
  if (values.length !== 1 || !Number.isFinite(since)) return undefined;
  const at = offset === undefined ? triggeredAt : decodeOffset(since, offset);
  return at === undefined ? undefined : { value: values[0]!, at };
}

/** What is left of an item's {@link CELL_ACK_BUDGET_BYTES} as its cells are encoded, in order. */
interface AckRoom {
  left: number;
}

function encodeCell(rule: string, network: string, cell: RuleCell, room: AckRoom): StoredCell {
  const held = cell.held;
  const stored: (number | string)[] = [
    cell.open ? 1 : 0,
    held === undefined ? cell.run : held.event === 'network.rule_triggered' ? HELD_TRIGGER : HELD_RESOLVE,
    // While a transition is held the cell takes no evidence: its list is the transition's.
    encodeValues(held === undefined ? cell.values : held.values),
    cell.window === undefined ? 0 : encodeValues(cell.window),
    cell.triggeredAt ?? 0,
  ];
  // The evaluator names an incident after its rule, network and start: kept only when it is another name.
  const incident =
    cell.incident !== undefined && cell.incident !== ruleIncidentId(rule, network, cell.triggeredAt ?? '')
      ? cell.incident
      : 0;
  stored.push(incident);
  if (held !== undefined) {
    stored.push(held.at === cell.triggeredAt ? 0 : encodeTime(held.at));
    stored.push(held.baseline === undefined ? 0 : encodeValues([held.baseline]));
    stored.push(held.stage === undefined || held.stage <= FIRST_STAGE ? 0 : held.stage);
  } else if (cell.timers !== undefined && cell.triggeredAt !== undefined) {
    // A cell holds no transition and timers at once (the timers are an open incident's, once its trigger went
    // out), so its timers take the slot a held transition's time would.
    stored.push(encodeTimers(cell.triggeredAt, cell.timers));
    // Who acknowledged and the note, while the item's budget has room (the acknowledgement keeps within it:
    // `incident-ack.ts` cellHold; cells moved in from another item may not): past it, when only.
    const ack = cell.timers.acknowledged;
    const bytes = cellAckBytes(ack);
    if (ack !== undefined && bytes > 0 && bytes <= room.left) {
      room.left -= bytes;
      stored.push(ack.by);
      if (ack.note !== undefined) stored.push(ack.note);
    }
  }
  // The peak of an open incident (or of one whose resolve is held) follows, in slot 9: the slots before it are
  // 0 where the cell has nothing (the previous release reads them as absent and leaves slot 9 alone).
  if (cell.peak !== undefined && cell.triggeredAt !== undefined && (cell.open || held !== undefined)) {
    while (stored.length < PEAK_SLOT) stored.push(0);
    stored.push(encodePeak(cell.triggeredAt, cell.peak));
  }
  while (stored.length > 3 && stored[stored.length - 1] === 0) stored.pop();
  return stored;
}

/** The slot of a cell's peak: after the held transition's (or the timers' and acknowledgement's) three. */
const PEAK_SLOT = 9;

function decodeCell(rule: string, network: string, stored: unknown): RuleCell | undefined {
  if (!Array.isArray(stored)) return undefined;
  // A cell with timers (never a held transition) has who acknowledged and the note where a held one has its
  // baseline and stage.
  const [open, run, values, window, since, incident, heldAt, baseline, heldStage, peak] = stored as unknown[];
  const heldEvent =
    run === HELD_TRIGGER
      ? 'network.rule_triggered'
      : run === HELD_RESOLVE
        ? 'network.rule_resolved'
        : undefined;
  const cell: { -readonly [K in keyof RuleCell]: RuleCell[K] } = {
    open: open === 1,
    run: typeof run === 'number' && Number.isInteger(run) && run >= 0 ? run : 0,
    values: heldEvent === undefined ? decodeValues(values) : [],
  };
  if (typeof window === 'string') cell.window = decodeValues(window).filter((v) => typeof v === 'number');
  if (typeof since === 'string') cell.triggeredAt = since;
  if (heldEvent !== undefined) {
    const heldValues = decodeValues(values);
    const at = heldAt === undefined || heldAt === 0 ? cell.triggeredAt : decodeTime(heldAt);
    const [median] = decodeValues(baseline);
    // A held transition damaged beyond use is dropped; the cell keeps its state.
    if (heldValues.length > 0 && at !== undefined) {
      const held: HeldTransition = {
        event: heldEvent,
        at,
        values: heldValues,
        ...(typeof median === 'number' ? { baseline: median } : {}),
        ...(Number.isSafeInteger(heldStage) && (heldStage as number) > FIRST_STAGE
          ? { stage: heldStage as number }
          : {}),
      };
      cell.held = held;
    }
  } else if (cell.open && cell.triggeredAt !== undefined && typeof heldAt === 'string') {
    const timers = decodeTimers(cell.triggeredAt, heldAt, baseline, heldStage);
    if (timers !== undefined) cell.timers = timers;
  }
  if ((cell.open || cell.held !== undefined) && cell.triggeredAt !== undefined) {
    cell.incident = typeof incident === 'string' ? incident : ruleIncidentId(rule, network, cell.triggeredAt);
    // Absent in an item of the previous release, or damaged: the cell keeps no peak until its next reading.
    const kept = decodePeak(cell.triggeredAt, peak);
    if (kept !== undefined) cell.peak = kept;
  }
  return cell;
}

/**
 * The state of a rule item as compact JSON text: rule names once, then per network one cell per rule
 * (0 where the rule has none), value lists as {@link encodeValues} text. JSON text rather than DynamoDB
 * numbers: any finite double round-trips (DynamoDB numbers stop at 1e125), and its size is what it looks like.
 */
export function encodeRuleScope(scope: RuleScopeState): string {
  const moved = scope.rules.moved ?? {};
  const names = [
    ...new Set([
      ...Object.keys(scope.rules.cells),
      ...Object.values(moved).flatMap((record) => Object.keys(record.cells ?? {})),
    ]),
  ];
  // Maps, not objects: a network id may be `__proto__`.
  const networks = new Map<string, (StoredCell | 0)[]>();
  const room: AckRoom = { left: CELL_ACK_BUDGET_BYTES };
  names.forEach((rule, index) => {
    for (const [network, cell] of Object.entries(own(scope.rules.cells, rule) ?? {})) {
      const row = networks.get(network) ?? [];
      networks.set(network, row);
      while (row.length < index) row.push(0);
      row[index] = encodeCell(rule, network, cell, room);
    }
  });
  // A moved row: when its cells were judged last, where they went, their generation there, then (while the
  // item they went to may not hold them yet) one cell per rule.
  const handed = new Map<string, (StoredCell | 0 | string | number)[]>();
  for (const [network, record] of Object.entries(moved)) {
    const row: (StoredCell | 0 | string | number)[] = [record.asOf, record.to, record.gen];
    if (record.cells !== undefined) {
      names.forEach((rule, index) => {
        const cell = own(record.cells, rule);
        if (cell === undefined) return;
        while (row.length < index + 3) row.push(0);
        row[index + 3] = encodeCell(rule, network, cell, room);
      });
      if (row.length === 3) row.push(0);
    }
    handed.set(network, row);
  }
  const gens = Object.entries(scope.rules.gens ?? {}).filter(([, gen]) => gen > 0);
  return JSON.stringify({
    s: scope.nextSeq,
    ...(scope.rules.lastAt === undefined ? {} : { at: scope.rules.lastAt }),
    r: names,
    n: Object.fromEntries(networks),
    ...(gens.length === 0 ? {} : { g: Object.fromEntries(gens) }),
    ...(handed.size === 0 ? {} : { m: Object.fromEntries(handed) }),
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
  const { s, at, r, n, g, m } = parsed as Record<string, unknown>;
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
  const gens = new Map<string, number>();
  if (typeof g === 'object' && g !== null) {
    for (const [network, gen] of Object.entries(g as Record<string, unknown>)) {
      if (typeof gen === 'number' && Number.isSafeInteger(gen) && gen > 0) gens.set(network, gen);
    }
  }
  const moved = new Map<string, MovedCells>();
  if (typeof m === 'object' && m !== null) {
    for (const [network, row] of Object.entries(m as Record<string, unknown>)) {
      if (!Array.isArray(row)) continue;
      const [asOf, to, gen] = row as unknown[];
      if (typeof asOf !== 'string' || typeof to !== 'string') continue;
      if (typeof gen !== 'number' || !Number.isSafeInteger(gen) || gen < 1) continue;
      const cells = new Map<string, RuleCell>();
      names.forEach((rule, index) => {
        const cell = decodeCell(rule, network, row[index + 3]);
        if (cell !== undefined) cells.set(rule, cell);
      });
      moved.set(network, {
        to,
        gen,
        asOf,
        ...(row.length > 3 ? { cells: Object.fromEntries(cells) } : {}),
      });
    }
  }
  // Object.fromEntries defines own properties: a network id `__proto__` stays a cell.
  const cells = Object.fromEntries([...byRule].map(([rule, row]) => [rule, Object.fromEntries(row)]));
  const rules: RuleState = {
    ...(typeof at === 'string' ? { lastAt: at } : {}),
    cells,
    ...(gens.size === 0 ? {} : { gens: Object.fromEntries(gens) }),
    ...(moved.size === 0 ? {} : { moved: Object.fromEntries(moved) }),
  };
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
    // A run holds at most forCycles - 1 values: the forCycles-th triggers or resolves and empties it; a held
    // transition (the cell then takes no evidence) holds forCycles, its time and its reference (a baseline);
    // the kind's memory holds at most memoryValues.
    const kind = ruleKind(rule);
    const values = rule.forCycles + kind.memoryValues;
    // A cell holds a transition back or an open incident's timers, never both.
    const held = HELD_CHARS + (kind.hasReference ? NUMBER_CHARS + 3 : 0) + HELD_STAGE_CHARS;
    bytes += CELL_OVERHEAD + Math.max(held, TIMERS_CHARS) + PEAK_CHARS + values * NUMBER_CHARS;
  }
  return bytes;
}

/**
 * Worst-case bytes of the state text of a rule item holding these networks, besides who acknowledged its
 * incidents and the notes (at most {@link CELL_ACK_BUDGET_BYTES} more, whatever the networks).
 */
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
        (rule.forCycles + 4) * JSON_NUMBER_BYTES +
        // A resolve's peak and when (`"peak":<number>,"peakAt":"<24>"` in its numbers' JSON text).
        PEAK_ALERT_BYTES +
        // The parsed condition travels with the alert (`"condition":{…}` in its numbers' JSON text).
        jsonBytes('condition') +
        Buffer.byteLength(JSON.stringify(conditionOf(rule)), 'utf8') +
        2,
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
