/**
 * Full-jitter exponential backoff (AWS Architecture Blog, "Exponential Backoff And Jitter"): the wait before a
 * retry is uniform between 0 and an exponential ceiling, so clients that failed together do not retry
 * together. One formula for every retry of the project: API requests, batch writes, outbox removals.
 */

/**
 * The wait before retry number `attempt`: uniform in [0, min(capMs, baseMs × 2^attempt)). `random` is
 * `Math.random` unless a test fixes it.
 */
export function fullJitterMs(
  attempt: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  return random() * Math.min(capMs, baseMs * 2 ** attempt);
}
