/**
 * Clocks (docs/design/cycle.md, Clocks): how far the clocks of the processes that run cycles against one table may
 * disagree, and how a cycle time written by a clock far ahead is recognized so that it cannot blind the
 * cycles after it. Pure: every time is handed in.
 *
 * Cycles are ordered by their observation time: a cycle not newer than the last one applied is stale and
 * changes nothing, which keeps a duplicate or late concurrent cycle from applying a transition twice or out
 * of order. A clock far ahead would turn that guard against every later cycle (all of them look older), so
 * the CLI refuses to run a cycle while its clock is off the store's by more than {@link CLOCK_SKEW_TOLERANCE_MS}
 * (the Lambda's clock is trusted), and a stored time that no tolerated clock could have written yet is
 * disregarded ({@link isTimeFromClockAhead}).
 */

/** Largest difference between a CLI's clock and the store's that the CLI runs a cycle with: one minute. */
export const CLOCK_SKEW_TOLERANCE_MS = 60_000;

/**
 * Longest a cycle may take from its observation to its decision: the CLI's largest cycle budget
 * (the cycle-timeout setting at most 15 minutes; the Lambda's timeout is at most two). Used when a caller
 * does not say by when it decides.
 */
export const MAX_CYCLE_MS = 900_000;

/**
 * Why a cycle must not run with a clock `offsetMs` behind the store's (the store's time minus this
 * machine's; negative when this machine is ahead), or undefined when the offset is tolerated.
 */
export function clockSkewProblem(offsetMs: number): string | undefined {
  if (!Number.isFinite(offsetMs) || Math.abs(offsetMs) <= CLOCK_SKEW_TOLERANCE_MS) return undefined;
  const way = offsetMs < 0 ? 'ahead of' : 'behind';
  return (
    `this machine's clock is ${describeOffset(Math.abs(offsetMs))} ${way} the store's (more than the ` +
    `${CLOCK_SKEW_TOLERANCE_MS / 1000} s tolerated): the cycle did not run and nothing was stored. A cycle ` +
    'from a clock ahead would make the cycles after it look older than one already applied (docs/design/cycle.md, Clocks). ' +
    'Set the clock right (enable NTP, e.g. `timedatectl set-ntp true`) and run again'
  );
}

/** An offset as people read it: `1 h 0 min 3 s`, `4 min 10 s`, `75 s`. */
function describeOffset(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  return [hours > 0 ? `${hours} h` : '', `${minutes} min`, rest > 0 ? `${rest} s` : '']
    .filter((part) => part !== '')
    .join(' ');
}

/**
 * True when `storedAt`, the time of the last cycle applied, lies further ahead than any tolerated clock could
 * have written it before this cycle decides: a clock ahead wrote it, and it must not make this cycle stale.
 *
 * A cycle writes its time before its own decision deadline; so a stored time written by a clock within the
 * tolerance is at most `decideByMs` (this cycle's latest decision) plus twice the tolerance (the writer's clock
 * ahead, this one's behind). `decideByMs` defaults to the observation time plus {@link MAX_CYCLE_MS}.
 */
export function isTimeFromClockAhead(storedAt: string, at: string, decideByMs?: number): boolean {
  const stored = Date.parse(storedAt);
  const bound = decideByMs ?? Date.parse(at) + MAX_CYCLE_MS;
  return Number.isFinite(stored) && Number.isFinite(bound) && stored > bound + 2 * CLOCK_SKEW_TOLERANCE_MS;
}

/**
 * How a cycle observed at `at` stands against the last applied cycle's time `lastAt`: `fresh` when newer (or
 * none was applied), `stale` when not newer (a duplicate or a late concurrent cycle: it changes nothing),
 * `after-clock-ahead` when `lastAt` came from a clock ahead ({@link isTimeFromClockAhead}): it is disregarded
 * and the cycle applies. Times are compared as instants, not text (ISO strings with and without milliseconds
 * do not sort alike).
 */
export function cycleOrder(
  lastAt: string | undefined,
  at: string,
  decideByMs?: number,
): 'fresh' | 'stale' | 'after-clock-ahead' {
  // An unreadable stored time orders nothing: the cycle applies.
  if (lastAt === undefined || !(Date.parse(at) <= Date.parse(lastAt))) return 'fresh';
  return isTimeFromClockAhead(lastAt, at, decideByMs) ? 'after-clock-ahead' : 'stale';
}
