/**
 * Pieces of the poll cycle that are not its steps: stores bounded by the cycle's deadline, the metrics of its
 * observations, and the figures taken from a body.
 */
import { extractFigures } from './core/figures.ts';
import type { Silence } from './core/silence.ts';
import type { Snapshot } from './core/types.ts';
import { StoreError } from './errors.ts';
import type { CycleMetrics, SilenceStore } from './ports.ts';

/** A longer figure path is no metric dimension (at most 1024 characters); it is kept only this long. */
const MAX_FIGURE_PATH = 1025;

/**
 * The same store, but every call fails with a {@link StoreError} once `deadline` aborts without an answer: a
 * store that does not answer must not hold the cycle past its deadline (also one that cannot abort its calls).
 */
export function untilDeadline<T extends object>(store: T, deadline: AbortSignal): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const late = () =>
          new StoreError(`the store did not answer (${String(property)}) before the cycle's deadline`);
        if (deadline.aborted) return Promise.reject(late());
        const work = Promise.resolve(value.apply(target, args));
        let onAbort: (() => void) | undefined;
        const cut = new Promise<never>((_, reject) => {
          onAbort = () => reject(late());
          deadline.addEventListener('abort', onAbort, { once: true });
        });
        // The loser of the race must not surface as an unhandled rejection.
        work.catch(() => undefined);
        return Promise.race([work, cut]).finally(() => deadline.removeEventListener('abort', onAbort!));
      };
    },
  });
}

/**
 * The silences of one cycle: read at most once, and only when an outbox has an alert to send
 * (docs/silences.md: one Query in a cycle that has an alert to send, none otherwise), ended by the deadline. Without a
 * silence store nothing is silenced.
 */
export function silencesOnce(store: SilenceStore | undefined, deadline: AbortSignal): SilenceStore {
  if (store === undefined) return { list: async () => [] };
  const bounded = untilDeadline(store.withSignal?.(deadline) ?? store, deadline);
  let read: Promise<Silence[]> | undefined;
  return { list: () => (read ??= bounded.list()) };
}

export function recordMetrics(
  metrics: CycleMetrics | undefined,
  all: readonly Snapshot[],
  networks: ReadonlyArray<{
    readonly snapshot: Snapshot;
    readonly chosen: ReadonlyArray<readonly [string, number]>;
  }>,
) {
  if (metrics === undefined) return;
  for (const snapshot of all) {
    if (snapshot.latencyMs !== undefined) metrics.latency(snapshot.target, snapshot.latencyMs);
    if (snapshot.errorKind !== undefined) metrics.apiFailure(snapshot.errorKind);
  }
  for (const { snapshot, chosen } of networks) {
    if (snapshot.ok && snapshot.target.kind === 'network' && chosen.length > 0) {
      metrics.figures(snapshot.target.networkId, chosen);
    }
  }
}

/**
 * The first `count` figures of a body (body order, so the first N of them are what a cap of N finds). A path
 * longer than a metric dimension may be is cut to {@link MAX_FIGURE_PATH} characters as a fresh copy: the
 * full path (or a slice of it, which V8 keeps as a view) could hold a hostile key of nearly the whole body.
 */
export function takeFigures(body: unknown, count: number): Array<[string, number]> {
  return extractFigures(body, count).map(([path, value]) => [
    path.length > MAX_FIGURE_PATH
      ? Buffer.from(path.slice(0, MAX_FIGURE_PATH), 'utf16le').toString('utf16le')
      : path,
    value,
  ]);
}
