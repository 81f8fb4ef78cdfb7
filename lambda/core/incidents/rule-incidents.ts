/**
 * A traffic rule's incident on one network (CONTRACT §13-14; docs/acknowledge.md): with the `groupBy` setting
 * at `none` each network's `network.rule_triggered` opens an incident of its own, whose id is the rule cell's
 * (`<rule>/<network>/<triggeredAt>`, `rule-eval.ts` ruleIncidentId). Like every incident it reminds every
 * `remindEvery`, escalates once per stage of `escalateAfter` and can be acknowledged; its timers live with its
 * cell (`RuleCell.timers`, absent: opened at `triggeredAt`, stage 1) and are followed by the one
 * {@link followTimers}, with its pull-back of times a clock ahead wrote. Its reminders, escalations and
 * acknowledgement keep the `incident.*` events and are rendered by the rule family (`alert-families/rule.ts`),
 * which tells them by their record: a rule and a network, neither a story nor members. Pure.
 */

import { own } from '../own-record.ts';
import { conditionOf, type RuleCondition, ruleKind } from '../rules/rule-kinds/index.ts';
import type { Rule, RuleCell, RuleNetworkObservation, RuleState } from '../rules/rule-types.ts';
import type { AlertRecord, AlertRecordOf } from '../types.ts';
import { type EscalationSchedule, FIRST_STAGE, type IncidentTimers } from './escalation.ts';
import { parseIncidentId } from './incident-kinds.ts';
import type { Acknowledgement } from './incidents.ts';
import { type FollowedIncident, followIncidents } from './lifecycle.ts';

/** The `incident.*` events a per-network rule incident publishes besides its trigger and resolve. */
export type RuleIncidentEvent = 'incident.reminder' | 'incident.escalated' | 'incident.acknowledged';

/** A reminder, escalation or acknowledgement of a per-network rule incident, before its outbox numbers it. */
export type RuleIncidentAlert = Omit<AlertRecordOf<RuleIncidentEvent>, 'seq'> & {
  readonly rule: string;
  readonly network: string;
  readonly incident: string;
  /** When the incident opened (its trigger), ISO-8601: stored, as every incident alert's, under `since`. */
  readonly openedAt: string;
  readonly stage: number;
};

/** What following the cells' timers needs of the settings. */
export interface RuleIncidentSettings {
  /** `incident.reminder` of each open, unacknowledged per-network incident this often; unset: none. */
  readonly remindEveryMs?: number;
  /** The `escalateAfter` setting: the stages' ages; unset or empty: no escalation. */
  readonly escalateAfterMs?: EscalationSchedule;
}

/** The id of a per-network rule incident, split: `<rule>/<network>/<triggeredAt>`; undefined for another shape. */
export function ruleIncidentOf(
  id: unknown,
): { readonly rule: string; readonly network: string; readonly triggeredAt: string } | undefined {
  const ref = parseIncidentId(id);
  return ref?.home === 'cell'
    ? { rule: ref.rule, network: ref.network, triggeredAt: ref.openedAt }
    : undefined;
}

/**
 * The timers of the incident a cell has open, once its trigger went out (a trigger the alert cap holds back has
 * none yet: nothing to remind of); undefined for a closed cell. A cell without timers opened at `triggeredAt`.
 */
export function cellTimers(cell: RuleCell): IncidentTimers | undefined {
  if (!cell.open || cell.held !== undefined || cell.triggeredAt === undefined || cell.incident === undefined)
    return undefined;
  return cell.timers ?? { openedAt: cell.triggeredAt, stage: FIRST_STAGE };
}

/**
 * Most bytes the cells of one rule item spend on who acknowledged their incidents and the notes (as JSON text
 * in UTF-8, quotes and the comma before each included): beside the worst case of the cells' own state (every
 * acknowledgement is bounded, `lifecycle.ts` {@link acknowledgementOf}, but one item may hold hundreds). Past
 * it, a cell acknowledged keeps when, not who or the note, and the views take those from its
 * `incident.acknowledged` event (docs/design/rule-state.md, Size).
 */
export const CELL_ACK_BUDGET_BYTES = 32_000;

const utf8 = new TextEncoder();
const jsonTextBytes = (text: string): number => utf8.encode(JSON.stringify(text)).length;

/** Bytes one cell's acknowledgement (who and the note) takes in its rule item; 0 for one that keeps only when. */
export function cellAckBytes(acknowledged: Acknowledgement | undefined): number {
  if (acknowledged === undefined || acknowledged.by === '') return 0;
  return (
    1 +
    jsonTextBytes(acknowledged.by) +
    (acknowledged.note === undefined ? 0 : 1 + jsonTextBytes(acknowledged.note))
  );
}

/** Bytes every cell of `rules` (moved ones included) spends on who acknowledged and the notes. */
export function ruleStateAckBytes(rules: RuleState): number {
  let bytes = 0;
  const add = (cells: Readonly<Record<string, RuleCell>> | undefined) => {
    for (const cell of Object.values(cells ?? {})) bytes += cellAckBytes(cell.timers?.acknowledged);
  };
  for (const row of Object.values(rules.cells)) add(row);
  for (const record of Object.values(rules.moved ?? {})) add(record.cells);
  return bytes;
}

/**
 * The acknowledgement a cell keeps: who and the note while the item's budget has room for them beside the
 * `otherBytes` its other cells spend ({@link CELL_ACK_BUDGET_BYTES}), otherwise when only (`by` empty).
 */
export function keptCellAck(acknowledged: Acknowledgement, otherBytes: number): Acknowledgement {
  return otherBytes + cellAckBytes(acknowledged) <= CELL_ACK_BUDGET_BYTES
    ? acknowledged
    : { by: '', at: acknowledged.at };
}

/** The cell with `timers`, or without any when they are what a cell without them means. */
export function withTimers(cell: RuleCell, timers: IncidentTimers): RuleCell {
  const plain =
    timers.stage === FIRST_STAGE &&
    timers.openedAt === cell.triggeredAt &&
    timers.lastRemindAt === undefined &&
    timers.acknowledged === undefined;
  if (!plain) return { ...cell, timers };
  const { timers: _dropped, ...rest } = cell;
  return rest;
}

/**
 * A reminder, escalation or acknowledgement of the incident `cell` has open on `network`: its id, rule, network,
 * when it opened and its stage; the rule as written and its condition when the rule is known (the texts name
 * its path and threshold), the value this cycle read when there is one.
 */
export function ruleIncidentAlert(
  event: RuleIncidentEvent,
  rule: Rule | { readonly name: string },
  network: string,
  cell: RuleCell,
  timers: IncidentTimers,
  at: string,
  value?: number | boolean,
): RuleIncidentAlert {
  const known = 'text' in rule ? rule : undefined;
  const condition: RuleCondition | undefined = known === undefined ? undefined : conditionOf(known);
  // What the value is compared with now (a baseline rule's window is frozen while its incident is open).
  const compared = known === undefined ? undefined : ruleKind(known).compare(known.threshold, cell.window);
  return {
    event,
    at,
    rule: rule.name,
    network,
    incident: cell.incident ?? '',
    openedAt: cell.triggeredAt ?? timers.openedAt,
    stage: timers.stage,
    ...(known === undefined ? {} : { ruleText: known.text }),
    ...(condition === undefined ? {} : { condition }),
    ...(compared === undefined ? {} : { threshold: compared.threshold }),
    ...(compared?.baseline === undefined ? {} : { baseline: compared.baseline }),
    ...(value === undefined ? {} : { value }),
  };
}

/** What {@link followRuleIncidents} did. */
export interface RuleIncidentsFollowed {
  readonly state: RuleState;
  /** Reminders and escalations due, in rule order, then network order. */
  readonly alerts: RuleIncidentAlert[];
  /** Cells with a follow-up due that did not fit `room`: followed by a later cycle. */
  readonly deferred: number;
}

/**
 * One cycle at `at` of the timers of every incident the cells have open (docs/acknowledge.md): a reminder every
 * `remindEveryMs`, an escalation once per stage, both only while unacknowledged ({@link followTimers}: the
 * same rules as every other incident, times a clock ahead wrote pulled back to `at`). At most `room` alerts: a
 * cell whose follow-up does not fit keeps its timers as they were, and is due again in the next cycle.
 */
export function followRuleIncidents(input: {
  readonly rules: readonly Rule[];
  readonly state: RuleState;
  readonly at: string;
  readonly observations?: readonly RuleNetworkObservation[];
  readonly settings: RuleIncidentSettings;
  readonly room: number;
  /** Which open cells are followed here (absent: every one). */
  readonly follows?: (rule: string, network: string, cell: RuleCell) => boolean;
}): RuleIncidentsFollowed {
  const { rules, state, at, settings } = input;
  const readings = new Map((input.observations ?? []).map((o) => [o.networkId, o.readings]));
  // Every open cell, in rule order then network order, as the one lifecycle follows it.
  const open: Array<FollowedIncident<RuleIncidentAlert> & { rule: Rule; network: string; cell: RuleCell }> =
    [];
  for (const rule of rules) {
    for (const [network, cell] of Object.entries(own(state.cells, rule.name) ?? {})) {
      const timers = cellTimers(cell);
      if (timers === undefined || cell.incident === undefined) continue;
      if (input.follows !== undefined && !input.follows(rule.name, network, cell)) continue;
      const reading = own(readings.get(network), rule.name);
      const value = reading?.kind === 'value' ? reading.value : undefined;
      open.push({
        id: cell.incident,
        timers,
        rule,
        network,
        cell,
        alert: (event, next) => ruleIncidentAlert(event, rule, network, cell, next, at, value),
      });
    }
  }
  const followed = followIncidents(open, at, settings, input.room);
  let cells = state.cells;
  for (const { id, rule, network, cell } of open) {
    const after = withTimers(cell, own(followed.timers, id) ?? cell.timers!);
    if (after.timers === cell.timers) continue;
    const row: Record<string, RuleCell> = { ...own(cells, rule.name) };
    // Defined as own properties: a network id may be `__proto__`.
    Object.defineProperty(row, network, {
      value: after,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    cells = { ...cells };
    Object.defineProperty(cells, rule.name, {
      value: row,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return {
    state: cells === state.cells ? state : { ...state, cells },
    alerts: followed.alerts,
    deferred: followed.deferred,
  };
}

/**
 * Whether `alert` is a reminder, escalation or acknowledgement of a per-network rule incident: an `incident.*`
 * record naming a rule and a network, with neither a rule incident's story nor a blind spot's members. Told by
 * the record's shape, as the other kinds' are (`alert-families/index.ts`).
 */
export function isRuleIncidentAlert(alert: Pick<AlertRecord, 'event'> & Partial<AlertRecord>): boolean {
  return (
    typeof alert.event === 'string' &&
    alert.event.startsWith('incident.') &&
    alert.story === undefined &&
    alert.members === undefined &&
    typeof alert.rule === 'string' &&
    typeof alert.network === 'string'
  );
}
