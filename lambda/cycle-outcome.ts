/**
 * What a cycle's verdicts come to: their outboxes sent judge after judge, and, when a state item or the
 * snapshots could not be written, the error that says what was committed all the same (CONTRACT §4.5: if the
 * store cannot be written the cycle has not run; what it committed stands and was sent).
 */
import type { AlertRecord } from './core/types.ts';
import { type CommittedWork, StoreError } from './errors.ts';
import type { Verdict } from './judges/judge.ts';
import type { DrainOptions, DrainResult } from './outbox.ts';
import type { CycleLog, CycleMetrics } from './ports.ts';

/** Sends each verdict's outboxes, in the judges' order (a status change goes out first). */
export async function sendInOrder(
  verdicts: readonly Verdict[],
  options: Omit<DrainOptions, 'spillAbove'>,
): Promise<DrainResult> {
  const total: DrainResult = { delivered: [], failed: [], suppressed: [], pending: 0 };
  let pending = 0;
  for (const verdict of verdicts) {
    const sent = await verdict.send(options);
    total.delivered.push(...sent.delivered);
    total.failed.push(...sent.failed);
    total.suppressed.push(...sent.suppressed);
    pending += sent.pending;
  }
  return { ...total, pending };
}

/** Logs each alert the judges queued (and counts a status change). */
export function noteQueued(
  deps: { readonly log: CycleLog; readonly metrics?: CycleMetrics },
  cycleId: string,
  queued: readonly AlertRecord[],
): void {
  for (const alert of queued) {
    if (alert.event === 'filter.status_changed') deps.metrics?.statusChanged();
    deps.log.info('alert queued', {
      cycleId,
      seq: alert.seq,
      event: alert.event,
      from: alert.from,
      to: alert.to,
      rule: alert.rule,
      network: alert.network,
    });
  }
}

/**
 * The error a cycle ends with, or undefined when everything was written. A state item that could not be read
 * or written, or snapshots that could not be stored: the cycle has not run as a whole. When it committed
 * something (an alert queued or sent, another item written), the error says what (`committed`); otherwise the
 * cycle has not run at all.
 */
export function cycleFailure(
  verdicts: readonly Verdict[],
  storing: PromiseSettledResult<void>,
  sent: { readonly status?: string; readonly queued: readonly AlertRecord[]; readonly delivery: DrainResult },
): StoreError | Error | undefined {
  const failures = verdicts.flatMap((v) => v.failures);
  const unstored = storing.status === 'rejected' ? (storing.reason as Error) : undefined;
  const failure =
    failures.length === 0
      ? unstored
      : new StoreError(failures.map((f) => f.error.message).join('; '), {
          cause: failures[0]!.error.cause ?? failures[0]!.error,
        });
  if (failure === undefined) return undefined;
  const { status, queued, delivery } = sent;
  if (queued.length === 0 && delivery.delivered.length === 0 && failures.length === 0) return failure;
  const committed: CommittedWork = {
    ...(status === undefined ? {} : { status }),
    queued,
    delivered: delivery.delivered.length,
    pending: delivery.pending,
    ...(failures.length === 0
      ? {}
      : {
          ruleItems: {
            committed: verdicts.flatMap((v) => v.written),
            failed: failures.map((f) => f.key),
          },
        }),
  };
  return new StoreError(failure.message, { cause: failure.cause ?? failure, committed });
}
