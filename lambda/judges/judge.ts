/**
 * A judge of the poll cycle (docs/design: the cycle). The cycle observes once and hands the observations to
 * its judges, in order: the status judge (the filter status and the API's incidents, `decide`), then the rules
 * judge (traffic rules, `evaluateRules`). Each reads what it needs from the answers, decides purely over its
 * own state, names the state items it owns, commits them with one optimistic commit ({@link commitJudged}) and
 * sends their outboxes with one protocol (`drainOutbox`), after the judges before it. A new judge (incidents
 * grouped across networks) is one file beside these and one line in the cycle's list.
 */
import type { CommitClaim } from '../commit.ts';
import type { AlertRecord, Snapshot } from '../core/types.ts';
import type { StoreError } from '../errors.ts';
import type { DrainOptions, DrainResult } from '../outbox.ts';

/** What the cycle observed, as every judge receives it: evidence only (requests cut short are none). */
export interface Evidence {
  /** The cycle's observation time (the filter request's), ISO-8601. */
  readonly at: string;
  /** The filter's snapshot, when this cycle polled it and it is evidence. */
  readonly filter?: Snapshot;
  /** Each network's snapshot by its position in the cycle's networks; undefined: cut short, no evidence. */
  readonly networks: ReadonlyArray<Snapshot | undefined>;
  /** The claim the judges' commits put on the alerts they append. */
  readonly claim: CommitClaim;
}

/** A state item a judge could not read or write: its alerts wait, the other items' go out. */
export interface ItemFailure {
  readonly key: string;
  readonly error: StoreError;
}

/** What a judge decided and committed in one cycle. */
export interface Verdict {
  /** The alerts its commits appended to its outboxes, each numbered in its own. */
  readonly queued: readonly AlertRecord[];
  /**
   * True when a newer cycle had already been applied to its state; undefined when it has no say. The cycle
   * is stale by the first judge that has a say (the status judge on a shard that polls the filter).
   */
  readonly stale?: boolean;
  /** The confirmed filter status after this cycle (the status judge's). */
  readonly status?: string;
  /** Items it wrote, named in an error when another item failed. */
  readonly written: readonly string[];
  /** Items it could not read or write (the cycle runs in part). */
  readonly failures: readonly ItemFailure[];
  /** Sends its outboxes, in order, each alert once (after the judges before it). */
  send(options: Omit<DrainOptions, 'spillAbove'>): Promise<DrainResult>;
}

/** One judge, for one cycle: made before the requests, so it can read its state alongside them. */
export interface Judge {
  /** Takes what it needs from a network's answer (by its position in the cycle's networks) while it is alive. */
  read?(index: number, body: unknown): void;
  /**
   * Judges the evidence over its state and commits it. Throws a `StoreError` when the cycle cannot run
   * without it (the status judge's state); reports an item it can do without in `failures`.
   */
  judge(evidence: Evidence): Promise<Verdict>;
}
