/**
 * The shapes of traffic rules (docs/rules.md): what the parser makes of the rules setting, what the
 * evaluator keeps between cycles, and what a rule alert carries. Shared by the parser and evaluator
 * (`rules.ts`, `rule-eval.ts`), the rule state store, the cycle and `shieldwatch backtest`.
 * Pure types: no clock, no environment.
 */

/** Comparison operators of a rule. */
export type RuleOp = '>' | '>=' | '<' | '<=' | '==' | '!=';

import type { IncidentTimers } from '../incidents/escalation.ts';
import type { RuleCondition, RuleThreshold } from './rule-kinds/index.ts';

/** What a rule compares the field with: one kind's threshold (`rule-kinds/`, one file per kind). */
export type { RuleCondition, RuleThreshold };

/** One parsed rule. */
export interface Rule {
  /** 1 to 40 of `A-Z a-z 0-9 _ -`, unique among the rules. */
  readonly name: string;
  /** Dot path into a network's real-time body (the same lookup as the status path). */
  readonly path: string;
  readonly op: RuleOp;
  readonly threshold: RuleThreshold;
  /** Cycles in a row to trigger, and to resolve (1 to 100). */
  readonly forCycles: number;
  /** Only these networks; undefined: every configured network. */
  readonly networks?: readonly string[];
  /** The rule as written (trimmed), for the email. */
  readonly text: string;
}

/** A rule's reading of one network in one cycle. */
export type RuleReading =
  /** The value at the rule's path: a finite number, or a boolean. */
  | { readonly kind: 'value'; readonly value: number | boolean }
  /** The request failed, the body was unreadable, or the path is missing or of the wrong type: no evidence. */
  | { readonly kind: 'none' };

/** One network in one cycle, as the rules see it: each rule's reading, by rule name. */
export interface RuleNetworkObservation {
  readonly networkId: string;
  /** When the network was observed, ISO-8601. */
  readonly at: string;
  readonly readings: Readonly<Record<string, RuleReading>>;
}

/** The evaluator's memory of one rule on one network. */
export interface RuleCell {
  /** True while the rule is triggered (an incident is open). */
  readonly open: boolean;
  /** Cycles in a row with evidence against the current state (holding while closed, failing while open). */
  readonly run: number;
  /** The values of that run, oldest first (at most `forCycles`), for the email. */
  readonly values: readonly (number | boolean)[];
  /**
   * The memory of the rule's kind (a baseline rule's window: the last readable values of the field, oldest
   * first, at most 30); absent for a kind without memory.
   */
  readonly window?: readonly number[];
  /** When the open incident was triggered, ISO-8601. */
  readonly triggeredAt?: string;
  /** Stable id of the open incident (shared by its trigger and its resolve alerts). */
  readonly incident?: string;
  /**
   * A trigger or resolve this cell made that the per-item alert cap held back
   * (docs/design/rule-state.md): the cell has changed already, the alert goes out in a later cycle. While a transition is
   * held, the cell takes no evidence (a reading neither grows nor resets its count), so it holds at most one.
   * A held resolve keeps the incident's `triggeredAt` and `incident` on the (closed) cell.
   */
  readonly held?: HeldTransition;
  /**
   * The timers of the open incident (`rule-incidents.ts`): its stage, its last reminder, its acknowledgement,
   * and when it opened once a clock ahead made that differ from `triggeredAt`. Absent (a cell written before
   * they were kept, or one that has not reminded, escalated or been acknowledged yet): opened at
   * `triggeredAt`, stage 1.
   */
  readonly timers?: IncidentTimers;
  /**
   * The open incident's peak on this network and when it was read (CONTRACT §13: the most extreme reading
   * while open, as a member of an incident across networks keeps it, `worse` in `incidents.ts`): the trigger's
   * value, then each reading past it. Kept by a closed cell whose resolve the alert cap holds back, for that
   * alert. Absent in a cell written before it was kept: the first reading after sets it.
   */
  readonly peak?: RulePeak;
}

/** An incident's most extreme reading on one network and when it was read (ISO-8601). */
export interface RulePeak {
  readonly value: number | boolean;
  readonly at: string;
}

/** A transition held back by the alert cap: what its alert needs beyond the cell and the rule. */
export interface HeldTransition {
  readonly event: RuleAlertEvent;
  /** The observation time of the cycle that made it, ISO-8601. */
  readonly at: string;
  /** The values of its run, oldest first; the last is the alert's value. */
  readonly values: readonly (number | boolean)[];
  /** The reference its threshold came from (a baseline rule's median). */
  readonly baseline?: number;
  /** A held resolve: the stage its incident reached (absent: 1). */
  readonly stage?: number;
}

/** All rule memory of one scope (a shard's networks): cells by rule name, then network id. */
export interface RuleState {
  /** The observation time of the last cycle applied; an older or equal one is stale (a duplicate). */
  readonly lastAt?: string;
  readonly cells: Readonly<Record<string, Readonly<Record<string, RuleCell>>>>;
  /**
   * The generation of each network's cells in `cells` (absent: 0): it grows by one each time the cells move
   * to another rule item, so that of two records of a network the newer one is known
   * (docs/design/rule-state.md, Editing the rules or the networks).
   */
  readonly gens?: Readonly<Record<string, number>>;
  /** The networks whose cells this item handed to another item, by network id (not judged here any more). */
  readonly moved?: Readonly<Record<string, MovedCells>>;
}

/** A network's cells handed to another rule item, by a conditional write on this one. */
export interface MovedCells {
  /** The sort key of the item they were handed to: only it may take them. */
  readonly to: string;
  /** Their generation there (one more than here). */
  readonly gen: number;
  /** The `lastAt` of the item that judged them last, ISO-8601: evidence no newer than this is not applied. */
  readonly asOf: string;
  /**
   * The cells, by rule, while the item they were handed to may not hold them yet; absent once it (or a later
   * item) holds this generation or a newer one: only the generation is kept, so a stale read never hands the
   * same cells over twice.
   */
  readonly cells?: Readonly<Record<string, RuleCell>>;
}

/** The fields a rule alert adds to an alert record. */
export interface RuleAlertFields {
  readonly rule: string;
  readonly network: string;
  /** The value observed in the cycle that triggered or resolved it. */
  readonly value: number | boolean;
  /** The threshold it was compared with (for a baseline rule, K x the baseline). */
  readonly threshold: number | boolean;
  /** Baseline rules: the median the threshold came from. */
  readonly baseline?: number;
  /** The rule as written. */
  readonly ruleText: string;
  /**
   * The rule's path, operator and parsed threshold, so the alert's texts never parse `ruleText`
   * (docs/rules.md). Set once the alert enters an outbox; absent on a record stored before it was carried.
   */
  readonly condition?: RuleCondition;
  /** The values of the last `forCycles` cycles, oldest first. */
  readonly values: readonly (number | boolean)[];
  /** Stable id shared by an incident's trigger and its resolve. */
  readonly incident: string;
  /** When the incident was triggered, ISO-8601 (on a resolve: how long it lasted is `at` minus this). */
  readonly triggeredAt?: string;
  /**
   * A resolve: the incident's peak on the network (its most extreme reading while open) and when, ISO-8601.
   * Absent on a trigger, and on a resolve whose cell kept no peak or stored before it was carried.
   */
  readonly peak?: number | boolean;
  readonly peakAt?: string;
}

/** The events of a rule alert. */
export type RuleAlertEvent = 'network.rule_triggered' | 'network.rule_resolved';

/**
 * A rule alert as the evaluator makes it; the rule state store gives it its sequence number. A resolve carries
 * the stage its incident reached (absent: 1).
 */
export type RuleAlert = {
  readonly event: RuleAlertEvent;
  readonly at: string;
  readonly stage?: number;
} & RuleAlertFields;
