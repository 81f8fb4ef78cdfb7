/**
 * Escalation by time (docs/acknowledge.md, Escalation): the `escalateAfter` setting (also a context key)
 * lists the ages of an open, unacknowledged incident at which it goes up one stage, e.g. `10m,30m`: stage 1
 * from its opening, stage 2 at 10 minutes, stage 3 at 30. Each stage is published once, as `incident.escalated`,
 * and every incident alert carries its incident's stage as the message attribute `stage`, so subscriptions
 * choose their stage by filter policy. Pure: the schedule, the incident and the time are parameters.
 */
import { parseDuration } from '../duration.ts';
import type { Acknowledgement } from './incidents.ts';

/** Shortest age of a stage: one poll cycle at the default schedule. */
export const ESCALATE_MIN_MS = 60_000;
/** Longest age of a stage: as long as an acknowledge link lives. */
export const ESCALATE_MAX_MS = 7 * 86_400_000;
/** Most stages after the first. */
export const ESCALATE_MAX_STAGES = 10;

/** The stage of an incident that has not escalated. */
export const FIRST_STAGE = 1;

/** The parsed setting: the age of each stage from 2 on, in milliseconds, strictly increasing. */
export type EscalationSchedule = readonly number[];

/** A parsed schedule, or what is wrong with the text (without the setting's name: the caller adds it). */
export type ParsedSchedule =
  | { readonly ok: true; readonly schedule: EscalationSchedule }
  | { readonly ok: false; readonly problem: string };

/**
 * Parses `10m,30m,2h`: comma-separated durations (units `m`, `h`, `d`), each from 1m to 7d, strictly
 * increasing, at most {@link ESCALATE_MAX_STAGES}. Empty text is no escalation.
 */
export function parseEscalateAfter(text: string): ParsedSchedule {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, schedule: [] };
  const parts = trimmed.split(',').map((part) => part.trim());
  if (parts.length > ESCALATE_MAX_STAGES) {
    return { ok: false, problem: `at most ${ESCALATE_MAX_STAGES} stages, got ${parts.length}` };
  }
  const schedule: number[] = [];
  for (const part of parts) {
    const ms = parseDuration(part, ['m', 'h', 'd']);
    const shown = JSON.stringify(part.slice(0, 20));
    if (ms === undefined) {
      return { ok: false, problem: `${shown} is not a duration like 10m, 2h or 1d` };
    }
    if (ms < ESCALATE_MIN_MS || ms > ESCALATE_MAX_MS) {
      return { ok: false, problem: `${shown} is outside 1m to 7d` };
    }
    const before = schedule.at(-1);
    if (before !== undefined && ms <= before) {
      return {
        ok: false,
        problem: `${shown} is not later than the stage before it: list the ages in increasing order`,
      };
    }
    schedule.push(ms);
  }
  return { ok: true, schedule };
}

/** What escalation needs to know of an incident. */
export interface EscalationView {
  readonly openedAtMs: number;
  /** Its stage now: {@link FIRST_STAGE} until the first escalation was published. */
  readonly stage: number;
  readonly acknowledged: boolean;
  readonly resolved: boolean;
}

/**
 * The stage to publish now as `incident.escalated`, or undefined: the highest stage whose age the incident has
 * reached, when it is above the incident's stage and the incident is open and unacknowledged. After a gap (no
 * cycle for a while, or an acknowledgement withdrawn late) the incident goes straight to the highest stage
 * due, in one alert: subscriptions match "this stage or later" (docs/acknowledge.md), so the skipped stages'
 * subscribers get it too.
 */
export function dueEscalation(
  incident: EscalationView,
  schedule: EscalationSchedule,
  nowMs: number,
): number | undefined {
  if (incident.resolved || incident.acknowledged) return undefined;
  const age = nowMs - incident.openedAtMs;
  let due = FIRST_STAGE;
  for (const [index, afterMs] of schedule.entries()) {
    if (age >= afterMs) due = FIRST_STAGE + index + 1;
  }
  return due > incident.stage ? due : undefined;
}

/** The `stage` message attribute of an incident alert: its incident's stage as text (`1` by default). */
export function stageAttribute(stage: number | undefined): string {
  return String(
    stage !== undefined && Number.isSafeInteger(stage) && stage >= FIRST_STAGE ? stage : FIRST_STAGE,
  );
}

/**
 * The timers an open incident keeps beside its state where no incident item holds it (a blind spot's in its
 * health item, the monitor's own in the monitor item): when it opened, its stage, its last reminder, its
 * acknowledgement.
 */
export interface IncidentTimers {
  /** When the incident opened, ISO-8601: escalation ages (and reminders before the first) count from it. */
  readonly openedAt: string;
  /** Escalation stage: {@link FIRST_STAGE} until the first `incident.escalated`. */
  readonly stage: number;
  /** The last `incident.reminder`. */
  readonly lastRemindAt?: string;
  /** Set by `shieldwatch ack` or the link: no reminders, no escalations. */
  readonly acknowledged?: Acknowledgement;
  /** Bumped by every ack/unack. */
  readonly ackRev?: number;
}

/** What one cycle does with an open incident's timers. */
export interface TimersFollowed<T extends IncidentTimers> {
  /** The timers after the cycle. */
  readonly timers: T;
  /** The timers as a reminder due now tells them (its stage before any escalation of this cycle); none due: undefined. */
  readonly reminded?: T;
  /** The timers as an escalation due now tells them (the stage reached); none due: undefined. */
  readonly escalated?: T;
}

/**
 * One cycle at `at` of an open incident's timers (docs/acknowledge.md): a reminder every `remindEveryMs` (when
 * the incident reminds this way at all), an escalation once per stage of `escalateAfterMs`, both only while
 * unacknowledged; the reminder first. Times ahead of the cycle (a clock ahead wrote them: docs/design/cycle.md,
 * Clocks) are pulled back to it, else no age would count until real time caught up with that clock. Pure.
 */
export function followTimers<T extends IncidentTimers>(
  timers: T,
  at: string,
  settings: { readonly remindEveryMs?: number; readonly escalateAfterMs?: EscalationSchedule },
): TimersFollowed<T> {
  const nowMs = Date.parse(at);
  let state = timers;
  if (!(Date.parse(state.openedAt) <= nowMs)) state = { ...state, openedAt: at };
  if (state.lastRemindAt !== undefined && !(Date.parse(state.lastRemindAt) <= nowMs)) {
    state = { ...state, lastRemindAt: at };
  }
  let reminded: T | undefined;
  const remindFrom = Date.parse(state.lastRemindAt ?? state.openedAt);
  if (
    settings.remindEveryMs !== undefined &&
    state.acknowledged === undefined &&
    nowMs - remindFrom >= settings.remindEveryMs
  ) {
    state = { ...state, lastRemindAt: at };
    reminded = state;
  }
  const stage = dueEscalation(
    {
      openedAtMs: Date.parse(state.openedAt),
      stage: state.stage,
      acknowledged: state.acknowledged !== undefined,
      resolved: false,
    },
    settings.escalateAfterMs ?? [],
    nowMs,
  );
  let escalated: T | undefined;
  if (stage !== undefined) {
    state = { ...state, stage };
    escalated = state;
  }
  return {
    timers: state,
    ...(reminded === undefined ? {} : { reminded }),
    ...(escalated === undefined ? {} : { escalated }),
  };
}
