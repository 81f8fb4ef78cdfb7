/**
 * The time budget of a poll cycle, in one place (docs/design: the cycle): from the entry's deadline (the
 * Lambda's remaining time, `poll`'s `cycleTimeoutMs` setting, `run`'s interval) to the moments the
 * cycle's steps go by. Pure: every time comes in as a parameter, never from the clock.
 *
 * ```
 * start ───── requests ─────┤ requestDeadline ── store and SNS (storeReserve) ──┤ deadline ── grace ──┤ claimUntil
 *                                  a publish starts only before deadline − publishFloor,
 *                                  and ends by deadline − handBack, leaving time to hand its claim back
 * ```
 */

/**
 * A cycle holds the alerts it sends until its deadline plus this margin; every publish ends by the
 * deadline, so the next scheduled cycle always finds the claims of a cycle that died expired.
 */
export const CLAIM_GRACE_MS = 5000;
/** Time kept back from the Lambda's remaining time, so the cycle ends and its logs flush before the kill. */
export const LAMBDA_MARGIN_MS = 3000;
/** Time kept after a `poll` cycle's deadline to print the summary and close the clients. */
export const POLL_EXIT_MARGIN_MS = 500;
/** Most time a publish leaves before the deadline to hand its claim back when it fails. */
export const MAX_HAND_BACK_MS = 1000;
/** The store reserve's bounds and share of the cycle's budget. */
const RESERVE_MIN_MS = 300;
const RESERVE_MAX_MS = 5000;
const RESERVE_SHARE = 0.25;
/** `run`: a cycle's deadline is its interval (at least this), at most the `cycleTimeoutMs` setting. */
const RUN_MIN_CYCLE_MS = 2000;

/** The moments of one cycle, epoch ms, and the spans between them, ms. */
export interface CycleBudget {
  /** When the cycle started. */
  readonly startMs: number;
  /** Nothing of the cycle goes on past it: every store call and publish ends by then. */
  readonly deadlineMs: number;
  /** Time kept for the store and SNS after the API requests: a quarter of the budget, 0.3 to 5 s. */
  readonly storeReserveMs: number;
  /** The API requests end by then: the deadline less the store reserve. */
  readonly requestDeadlineMs: number;
  /**
   * A publish starts only with at least this long left before the deadline (half the store reserve, 2.5 s on
   * the Lambda and the CLI's default budget): a publish cut off by the deadline may have been accepted all
   * the same, and would then be sent again by a later cycle.
   */
  readonly publishFloorMs: number;
  /** A publish ends this long before the deadline, to hand its claim back when it fails: half the floor, ≤ 1 s. */
  readonly handBackMs: number;
  /** The alerts a cycle commits or claims are its own until then: the deadline plus {@link CLAIM_GRACE_MS}. */
  readonly claimUntilMs: number;
}

/** The budget of a cycle that starts at `startMs` and must be done by `deadlineMs`. */
export function cycleBudget(startMs: number, deadlineMs: number): CycleBudget {
  const storeReserveMs = Math.min(
    RESERVE_MAX_MS,
    Math.max(RESERVE_MIN_MS, Math.floor((deadlineMs - startMs) * RESERVE_SHARE)),
  );
  const publishFloorMs = Math.floor(storeReserveMs / 2);
  return {
    startMs,
    deadlineMs,
    storeReserveMs,
    requestDeadlineMs: deadlineMs - storeReserveMs,
    publishFloorMs,
    handBackMs: Math.min(MAX_HAND_BACK_MS, Math.floor(publishFloorMs / 2)),
    claimUntilMs: deadlineMs + CLAIM_GRACE_MS,
  };
}

/** The Lambda's cycle deadline: its remaining time less {@link LAMBDA_MARGIN_MS}. */
export function lambdaDeadline(nowMs: number, remainingMs: number): number {
  return nowMs + remainingMs - LAMBDA_MARGIN_MS;
}

/**
 * `poll`'s deadlines. The budget counts from the process start (start-up and the store come out of it), less
 * {@link POLL_EXIT_MARGIN_MS} to print and close, so `poll` as a whole ends within
 * the `cycleTimeoutMs` setting; but opening the store and the cycle itself always keep at least half of it,
 * however slow the start was.
 */
export function pollDeadlines(
  processStartMs: number,
  cycleTimeoutMs: number,
): {
  /** How long opening the store and checking its clock may take, asked at `nowMs`. */
  readonly openingMs: (nowMs: number) => number;
  /** The cycle's deadline, for a cycle starting at `nowMs`. */
  readonly cycleDeadline: (nowMs: number) => number;
} {
  const processDeadline = processStartMs + cycleTimeoutMs - POLL_EXIT_MARGIN_MS;
  return {
    openingMs: (nowMs) => Math.floor(Math.max(processDeadline - nowMs, cycleTimeoutMs / 2)),
    cycleDeadline: (nowMs) => Math.max(nowMs + cycleTimeoutMs / 2, processDeadline),
  };
}

/** `run`'s cycle deadline: its interval (at least 2 s), at most the `cycleTimeoutMs` setting. */
export function runCycleDeadline(nowMs: number, cycleTimeoutMs: number, everyMs: number): number {
  return nowMs + Math.min(cycleTimeoutMs, Math.max(everyMs, RUN_MIN_CYCLE_MS));
}
