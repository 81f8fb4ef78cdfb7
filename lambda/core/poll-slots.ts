/**
 * Detection in seconds (CONTRACT §18; docs/design/performance.md, Polling every 10 s): the schedule invokes the
 * function once a minute per shard (EventBridge's floor), and the invocation runs one cycle in each slot of
 * `pollEvery` seconds of its minute: at `10s`, slots at 0, 10, ..., 50 s after the scheduled time. A slot is
 * run once: its cycle must end before the next slot starts (its deadline), a slot already passed when the
 * invocation gets there (a late or retried invocation, a cycle that overran) is skipped, and each slot is
 * claimed in the table first, so a duplicated invocation runs none twice. Pure: the plan; `poll-loop.ts`
 * runs it.
 */

import { parseDuration } from './duration.ts';

/** The shortest and longest `pollEvery`, and its default: one cycle per scheduled minute. */
export const POLL_EVERY_MIN_MS = 10_000;
export const POLL_EVERY_MAX_MS = 60_000;
export const POLL_EVERY_DEFAULT_MS = 60_000;
/** The window one invocation covers: the schedule's minute. */
export const SCHEDULE_WINDOW_MS = 60_000;
/** Time kept between a slot's cycle's deadline and the next slot: the cycle ends and logs before it. */
export const SLOT_GAP_MS = 1000;

/** `pollEvery` read: `10s` to `60s`, a divisor of a minute (so every minute's slots are the same). */
export function parsePollEvery(
  text: string,
): { readonly ok: true; readonly everyMs: number } | { readonly ok: false; readonly problem: string } {
  const ms = parseDuration(text.trim(), ['s', 'm']);
  const shown = JSON.stringify(text.slice(0, 20));
  if (ms === undefined) return { ok: false, problem: `${shown} is not a duration like 10s, 30s or 1m` };
  if (ms < POLL_EVERY_MIN_MS || ms > POLL_EVERY_MAX_MS) {
    return { ok: false, problem: `${shown} is outside 10s to 60s` };
  }
  if (ms % 1000 !== 0 || SCHEDULE_WINDOW_MS % ms !== 0) {
    return {
      ok: false,
      problem: `${shown} does not divide a minute: use 10s, 12s, 15s, 20s, 30s or 60s`,
    };
  }
  return { ok: true, everyMs: ms };
}

/** One slot of an invocation: when its cycle starts and by when it must be done, epoch ms. */
export interface Slot {
  readonly startMs: number;
  readonly deadlineMs: number;
}

/**
 * The slots of the invocation for the minute scheduled at `scheduledMs` (the event's `time`; the invocation's
 * own start when it has none), as seen at `nowMs`: every `everyMs` from the scheduled time to the minute's end,
 * each due by the next one's start less {@link SLOT_GAP_MS} and by `endByMs` (the function's deadline). A slot
 * whose deadline has passed is not planned: its time is gone. At `60s`, the one slot is the whole invocation,
 * as before.
 */
export function planSlots(input: {
  readonly scheduledMs: number;
  readonly nowMs: number;
  readonly everyMs: number;
  readonly endByMs: number;
}): Slot[] {
  const { scheduledMs, nowMs, everyMs, endByMs } = input;
  if (everyMs >= SCHEDULE_WINDOW_MS) return [{ startMs: nowMs, deadlineMs: endByMs }];
  const slots: Slot[] = [];
  for (let startMs = scheduledMs; startMs < scheduledMs + SCHEDULE_WINDOW_MS; startMs += everyMs) {
    const deadlineMs = Math.min(startMs + everyMs - SLOT_GAP_MS, endByMs);
    // Less than half a slot left: too little for a cycle; the next slot (or minute) takes over.
    if (deadlineMs - Math.max(startMs, nowMs) < everyMs / 2) continue;
    slots.push({ startMs, deadlineMs });
  }
  return slots;
}

/** The slot id a claim names: the shard and the slot's start. */
export function slotId(shard: number, startMs: number): string {
  return `${shard}#${new Date(startMs).toISOString()}`;
}
