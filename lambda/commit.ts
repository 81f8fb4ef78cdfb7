/**
 * The optimistic commit every state item of a cycle goes through (the monitor's state, each rule item): judge
 * the item as last read, write the judgement conditioned on that read's version, and when another cycle wrote
 * first, read again and judge again on the newer state. So a duplicate or concurrent cycle never applies the
 * same transition twice, and never sends an alert twice.
 */
import type { AlertRecord } from './core/types.ts';
import { describeError, StoreError } from './errors.ts';
import type { StateStore, VersionedState } from './ports.ts';

/** Reads and judgements of one item a cycle tries before it gives up (the item kept changing under it). */
export const COMMIT_ATTEMPTS = 8;

/** The claim a cycle's commit puts on the alerts it appends: they are its own to send until `untilMs`. */
export interface CommitClaim {
  readonly claimant: string;
  readonly untilMs: number;
}

/** What a judge decided over one item as read: nothing (a newer cycle was applied), or its next state and alerts. */
export type Judgement<S> =
  | { readonly stale: true }
  | { readonly stale: false; readonly state: S; readonly alerts: readonly AlertRecord[] };

/** One item after its commit. */
export interface Committed<S> {
  /** The item as this cycle last read it (its outbox, before this cycle's alerts). */
  readonly loaded: VersionedState<S>;
  /** The alerts appended, as judged (none when stale). */
  readonly queued: readonly AlertRecord[];
  /** True when a newer cycle had already been applied to the item: nothing was written. */
  readonly stale: boolean;
  /** The item's state after this cycle: what it wrote, or what it read when it wrote nothing. */
  readonly state: S;
}

/**
 * Judges the item and commits the judgement with optimistic locking, at most {@link COMMIT_ATTEMPTS} times.
 * `what` names the item in errors (`the monitor state`, `the rule state (rules#0)`): a read or write that
 * fails, or an item that keeps changing, is a {@link StoreError} saying which.
 */
export async function commitJudged<S>(
  store: StateStore<S>,
  what: string,
  first: VersionedState<S>,
  claim: CommitClaim,
  judge: (loaded: VersionedState<S>) => Judgement<S>,
): Promise<Committed<S>> {
  let loaded = first;
  for (let attempt = 1; attempt <= COMMIT_ATTEMPTS; attempt++) {
    const judgement = judge(loaded);
    if (judgement.stale) return { loaded, queued: [], stale: true, state: loaded.state };
    let committed: boolean;
    try {
      committed = await store.commit(judgement.state, loaded.version, judgement.alerts, claim);
    } catch (error) {
      throw new StoreError(`cannot write ${what}: ${describeError(error)}`, { cause: error });
    }
    if (committed) return { loaded, queued: judgement.alerts, stale: false, state: judgement.state };
    try {
      loaded = await store.load();
    } catch (error) {
      throw new StoreError(`cannot read ${what}: ${describeError(error)}`, { cause: error });
    }
  }
  throw new StoreError(`${what} kept changing under this cycle (${COMMIT_ATTEMPTS} attempts)`);
}
