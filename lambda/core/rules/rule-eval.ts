/**
 * Traffic rules (docs/rules.md): one cycle's readings applied to the rule state, and the alerts that
 * follow. The parser is `rules.ts`; the state is stored by the rule state store and the alerts published
 * through the outbox. Pure: no clock, no environment.
 */

import { cycleOrder } from '../clock.ts';
import { worse } from '../incidents/incidents.ts';
import { own } from '../own-record.ts';
import { ruleKind } from './rule-kinds/index.ts';
import type {
  Rule,
  RuleAlert,
  RuleCell,
  RuleNetworkObservation,
  RulePeak,
  RuleReading,
  RuleState,
} from './rule-types.ts';
import { holds } from './rules.ts';

// The baseline kind's figures and median live with the kind (rule-kinds/baseline.ts); named here as before.
export { BASELINE_MIN_VALUES, BASELINE_WINDOW, median } from './rule-kinds/baseline.ts';

/** What {@link evaluateRules} is given. */
export interface RuleEvalInput {
  readonly rules: readonly Rule[];
  /** The scope's configured networks (a shard's own). */
  readonly networks: readonly string[];
  /** The state the previous cycle left, undefined on the first cycle. */
  readonly state: RuleState | undefined;
  /** The cycle's observation time, ISO-8601. */
  readonly at: string;
  /**
   * Epoch ms by which this cycle decides (its deadline or later): a stored `lastAt` further ahead than a
   * tolerated clock could have written by then came from a clock ahead (docs/design/cycle.md, Clocks). @default `at` plus
   * the longest cycle
   */
  readonly decideByMs?: number;
  readonly observations: readonly RuleNetworkObservation[];
}

/** What {@link evaluateRules} decided. */
export interface RuleEvalResult {
  /** The state to store (the input state itself when stale). */
  readonly state: RuleState;
  /** The alerts to send, in rule order then network order. */
  readonly alerts: RuleAlert[];
  /** True when the cycle is not newer than the last one applied: nothing changed, nothing to send. */
  readonly stale: boolean;
  /** The stored `lastAt` when it came from a clock ahead: disregarded, the cycle applied (docs/design/cycle.md, Clocks). */
  readonly skewedLastAt?: string;
}

const CLOSED: RuleCell = { open: false, run: 0, values: [] };

/** The networks a rule watches: its `on` networks that are configured, or every configured network. */
export function ruleNetworks(rule: Rule, networks: readonly string[]): readonly string[] {
  if (rule.networks === undefined) return networks;
  const configured = new Set(networks);
  return rule.networks.filter((id) => configured.has(id));
}

/**
 * Applies one cycle to the rule state (docs/rules.md). Per rule and network: while closed, a reading
 * that holds the condition grows the count in a row and one that fails it resets it; `forCycles` in a row
 * trigger. While open the same with the roles swapped, and `forCycles` in a row resolve. A `none` reading or
 * a network not observed is no evidence: its cell is left as it is. The rule's kind (`rule-kinds/`) says
 * what a reading is compared with and what the cell remembers: a baseline rule compares with factor x the
 * median of its window before the reading, learns (no evidence either way) until the window holds
 * BASELINE_MIN_VALUES values, and freezes the window while open. An open cell keeps its incident's peak (the
 * trigger's value, then each reading past it, by `worse` as an incident across networks judges its members'),
 * which its resolve carries. Cells of rules or networks no longer
 * configured are dropped. A cycle not newer than `state.lastAt` is stale and changes nothing, unless that
 * time came from a clock ahead (`decideByMs`; docs/design/cycle.md, Clocks): then it is disregarded and the cycle applies.
 */
export function evaluateRules(input: RuleEvalInput): RuleEvalResult {
  const { rules, networks, state, at } = input;
  const order = cycleOrder(state?.lastAt, at, input.decideByMs);
  if (state !== undefined && order === 'stale') return { state, alerts: [], stale: true };
  const skewed =
    order === 'after-clock-ahead' && state?.lastAt !== undefined ? { skewedLastAt: state.lastAt } : {};
  const observed = new Map(input.observations.map((observation) => [observation.networkId, observation]));
  const alerts: RuleAlert[] = [];
  // Rule names and network ids come from configuration: `__proto__`, `constructor` or `toString` must be
  // cells like any other, so records are read by own property only and built with Object.fromEntries.
  const cells: Array<[string, Record<string, RuleCell>]> = [];
  for (const rule of rules) {
    const ruleCells: Array<[string, RuleCell]> = [];
    const stored = own(state?.cells, rule.name);
    for (const network of ruleNetworks(rule, networks)) {
      const before = fitCell(rule, own(stored, network));
      const reading = own(observed.get(network)?.readings, rule.name);
      const step = applyReading(rule, network, before, reading, at);
      ruleCells.push([network, step.cell]);
      if (step.alert !== undefined) alerts.push(step.alert);
    }
    cells.push([rule.name, Object.fromEntries(ruleCells)]);
  }
  return { state: { lastAt: at, cells: Object.fromEntries(cells) }, alerts, stale: false, ...skewed };
}

/**
 * The id of a rule incident: its rule, network and the observation time that triggered it. Shared by the
 * incident's trigger and resolve; the rule item codec stores an id only when it is not this one.
 */
export function ruleIncidentId(rule: string, network: string, since: string): string {
  return `${rule}/${network}/${since}`;
}

/** The stored cell, or a new one, with the memory its rule's kind keeps, and none other (a rule may be edited). */
function fitCell(rule: Rule, stored: RuleCell | undefined): RuleCell {
  const cell = stored ?? CLOSED;
  const memory = ruleKind(rule).startMemory(cell.window);
  if (memory === cell.window) return cell;
  if (memory !== undefined) return { ...cell, window: memory };
  const { window: _dropped, ...rest } = cell;
  return rest;
}

interface Step {
  readonly cell: RuleCell;
  readonly alert?: RuleAlert;
}

function applyReading(
  rule: Rule,
  network: string,
  cell: RuleCell,
  reading: RuleReading | undefined,
  at: string,
): Step {
  if (reading === undefined || reading.kind !== 'value') return { cell };
  // A transition the alert cap held back is sent first: until then the cell takes no evidence (rule-limit.ts).
  if (cell.held !== undefined) return { cell };
  const value = reading.value;
  const kind = ruleKind(rule);
  // A reading of the wrong type is no evidence, as readRules would have said.
  if (typeof value !== kind.reads) return { cell };
  // Compared with the memory before this reading; then the reading joins it.
  const compared = kind.compare(rule.threshold, cell.window);
  const window = kind.remember(cell.window, value, cell.open);
  const withWindow = (next: RuleCell): RuleCell => (window === undefined ? next : { ...next, window });
  if (compared === undefined) return { cell: withWindow(cell) };

  const isEvidence = holds(rule.op, value, compared.threshold) !== cell.open;
  // While open, a reading past the peak is the new peak (as a member of an incident across networks keeps it).
  const peaked = (open: RuleCell): RuleCell =>
    worse(rule.op, value, open.peak?.value) ? { ...open, peak: { value, at } } : open;
  if (!isEvidence) {
    const next = { ...cell, run: 0, values: [] };
    return { cell: withWindow(cell.open ? peaked(next) : next) };
  }
  const values = [...cell.values, value].slice(-rule.forCycles);
  const run = cell.run + 1;
  if (run < rule.forCycles) {
    const next = { ...cell, run, values };
    return { cell: withWindow(cell.open ? peaked(next) : next) };
  }

  const incident = (cell.open ? cell.incident : undefined) ?? ruleIncidentId(rule.name, network, at);
  const triggeredAt = (cell.open ? cell.triggeredAt : undefined) ?? at;
  // The resolving reading fails the condition: the peak is the one the open cell kept.
  const peak: RulePeak | undefined = cell.open ? cell.peak : { value, at };
  const alert: RuleAlert = {
    event: cell.open ? 'network.rule_resolved' : 'network.rule_triggered',
    at,
    rule: rule.name,
    network,
    value,
    threshold: compared.threshold,
    ...(compared.baseline === undefined ? {} : { baseline: compared.baseline }),
    ruleText: rule.text,
    values,
    incident,
    triggeredAt,
    // The resolve of an incident that escalated carries the stage it reached (docs/acknowledge.md).
    ...(cell.open && cell.timers !== undefined ? { stage: cell.timers.stage } : {}),
    // The resolve carries the incident's peak on the network (docs/rules.md).
    ...(cell.open && peak !== undefined ? { peak: peak.value, peakAt: peak.at } : {}),
  };
  const next: RuleCell = cell.open
    ? { open: false, run: 0, values: [] }
    : { open: true, run: 0, values: [], triggeredAt, incident, ...(peak === undefined ? {} : { peak }) };
  return { cell: withWindow(next), alert };
}
