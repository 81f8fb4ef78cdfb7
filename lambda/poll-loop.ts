/**
 * The invocation's cycles at `pollEvery` (CONTRACT §18; `core/poll-slots.ts` plans them): for each slot, wait
 * for its start, claim it in the table (a duplicated invocation, or a retry, finds it taken and skips it), run
 * one cycle bounded by the slot's deadline, and go on to the next slot whatever the cycle did. A slot whose
 * time passed while an earlier cycle ran is skipped, so the shard never runs two cycles at once. The first
 * failure is thrown at the end when no slot ran, so the invocation counts as failed (its alarm, its retry). While
 * the API asks the shard to slow down (429), only the minute's first slot runs.
 */

import type { Slot } from './core/poll-slots.ts';

/** Claims a slot for this invocation: true when it is ours, false when another invocation took it. */
export type SlotClaimer = (slot: Slot) => Promise<boolean>;

/** What one invocation's slots did. */
export interface SlotsRun<R> {
  /** Each slot's outcome, in order. */
  readonly slots: ReadonlyArray<
    | { readonly startMs: number; readonly outcome: 'ran'; readonly result: R }
    | { readonly startMs: number; readonly outcome: 'failed'; readonly error: unknown }
    | { readonly startMs: number; readonly outcome: 'claimed-elsewhere' | 'passed' | 'slowed' }
  >;
}

/** Runs `cycle` once in each of `slots`; see the module's comment. */
export async function runSlots<R>(input: {
  readonly slots: readonly Slot[];
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Undefined: slots are not claimed (one slot a minute: the invocation is the slot, as before). */
  readonly claim?: SlotClaimer;
  readonly cycle: (slot: Slot) => Promise<R>;
  /**
   * Until when the shard polls slowly (epoch ms; the API answered 429): meanwhile only the minute's first slot
   * runs, one cycle a minute as at `60s`. Asked before each slot.
   */
  readonly slowUntil?: () => number;
}): Promise<SlotsRun<R>> {
  const done: Array<SlotsRun<R>['slots'][number]> = [];
  let firstError: { error: unknown } | undefined;
  for (const [index, slot] of input.slots.entries()) {
    if (index > 0 && slot.startMs < (input.slowUntil?.() ?? 0)) {
      done.push({ startMs: slot.startMs, outcome: 'slowed' });
      continue;
    }
    const wait = slot.startMs - input.now();
    if (wait > 0) await input.sleep(wait);
    // An earlier cycle ran into this slot's time: less than half of it is left, skip it.
    if (slot.deadlineMs - input.now() < (slot.deadlineMs - slot.startMs) / 2) {
      done.push({ startMs: slot.startMs, outcome: 'passed' });
      continue;
    }
    try {
      if (input.claim !== undefined && !(await input.claim(slot))) {
        done.push({ startMs: slot.startMs, outcome: 'claimed-elsewhere' });
        continue;
      }
      done.push({ startMs: slot.startMs, outcome: 'ran', result: await input.cycle(slot) });
    } catch (error) {
      firstError ??= { error };
      done.push({ startMs: slot.startMs, outcome: 'failed', error });
    }
  }
  if (firstError !== undefined && !done.some((d) => d.outcome === 'ran')) throw firstError.error;
  return { slots: done };
}
