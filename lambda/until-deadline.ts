/**
 * Stores bounded by the cycle's deadline: a store that does not answer must not hold the cycle past it (also
 * one that cannot abort its calls).
 */
import { StoreError } from './errors.ts';

/**
 * The same store, but every call fails with a {@link StoreError} once `deadline` aborts without an answer.
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

/** The store's view whose requests abort at `deadline` (when it has one), bounded by {@link untilDeadline}. */
export function boundStore<T extends { withSignal?(signal: AbortSignal): T }>(
  store: T,
  deadline: AbortSignal,
): T {
  return untilDeadline(store.withSignal?.(deadline) ?? store, deadline);
}
