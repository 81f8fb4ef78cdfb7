import { displayStatus } from './core/detect/status.ts';
import type { AlertRecord } from './core/types.ts';

/**
 * What a cycle had already made durable when it failed: its state write went through, so its decision
 * stands (a later cycle does not take it again) and its alerts are in the outbox.
 */
export interface CommittedWork {
  /** The confirmed filter status the cycle wrote. */
  readonly status?: string;
  /** Alerts the state write added to the outbox. */
  readonly queued: readonly AlertRecord[];
  /** Alerts published by the failing cycle all the same. */
  readonly delivered: number;
  /** Alerts still waiting in the outbox; they are not held by the failed cycle. */
  readonly pending: number;
  /**
   * Set when a judge's item (a rule item, an incident item, the health item) could not be read or written: the
   * state items this cycle wrote, whichever judge's (their alerts are in `queued` and were sent like any other),
   * and those it could not. The items are independent.
   */
  readonly ruleItems?: { readonly committed: readonly string[]; readonly failed: readonly string[] };
}

/** Options of {@link StoreError}. */
export interface StoreErrorOptions extends ErrorOptions {
  /** Set when the monitor state was committed before the store failed. */
  readonly committed?: CommittedWork;
}

/**
 * Thrown when the store cannot be written or read: the cycle has not run, or, when {@link committed} is set,
 * has run only in part (its state write and alerts stand, its snapshots are missing).
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  /** What the cycle committed before the store failed; absent when nothing was committed. */
  readonly committed?: CommittedWork;

  constructor(message: string, options: StoreErrorOptions = {}) {
    super(
      options.committed === undefined ? message : `${message}; ${describeCommitted(options.committed)}`,
      options,
    );
    if (options.committed !== undefined) this.committed = options.committed;
  }
}

/**
 * Thrown when the protection API's key cannot be had (its secret is missing, empty or unreadable), so no
 * request was made: the cycle has not run.
 */
export class ApiKeyUnavailableError extends Error {
  override readonly name = 'ApiKeyUnavailableError';
}

/** `Name: message` of an error, for logs and error texts. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** One sentence on what a failed cycle committed, for people. */
export function describeCommitted(work: CommittedWork): string {
  const status =
    work.status === undefined
      ? 'no status yet'
      : `filter status ${JSON.stringify(displayStatus(work.status))}`;
  const alerts =
    work.queued.length === 0
      ? 'no new alert'
      : `${work.queued.length} new alert(s): ${work.queued.map(describeAlert).join(', ')}`;
  // `state items`, not rule items: the health and incident items are written alongside them and named too.
  const rules =
    work.ruleItems === undefined
      ? ''
      : `; state items written: ${work.ruleItems.committed.join(', ') || 'none'}; ` +
        `not written: ${work.ruleItems.failed.join(', ')} (this cycle's readings are no evidence for them)`;
  return (
    `the cycle ran in part: the monitor state was committed (${status}; ${alerts}; ` +
    `${work.delivered} sent, ${work.pending} waiting in the outbox for the next cycle)${rules}`
  );
}

function describeAlert(alert: AlertRecord): string {
  if (alert.from === undefined && alert.to === undefined) return alert.event;
  const show = (s: string | undefined) =>
    s === undefined ? '-' : JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : displayStatus(s));
  return `${alert.event} ${show(alert.from)} -> ${show(alert.to)}`;
}
