/**
 * The silences of one cycle: read at most once, and only when an outbox has an alert to send (docs/silences.md:
 * one Query in a cycle that has an alert to send, none otherwise), ended by the deadline.
 */
import type { Silence } from './core/silences/silence.ts';
import type { SilenceStore } from './ports.ts';
import { boundStore } from './until-deadline.ts';

/** The silences, read once at most; without a silence store nothing is silenced. */
export function silencesOnce(store: SilenceStore | undefined, deadline: AbortSignal): SilenceStore {
  if (store === undefined) return { list: async () => [] };
  const bounded = boundStore(store, deadline);
  let read: Promise<Silence[]> | undefined;
  return { list: () => (read ??= bounded.list()) };
}
