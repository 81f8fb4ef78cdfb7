import type { CycleObservation, RequestOutcome } from './decide.ts';
import { extractStatus } from './status.ts';
import type { ApiResponse, Snapshot, Target } from './types.ts';

/** Where and when an answer was observed. */
export interface ObservationContext {
  readonly target: Target;
  /** When the request was sent, ISO-8601. */
  readonly at: string;
  readonly cycleId: string;
  /** Configured status path (filter only). */
  readonly statusPath?: string;
}

/**
 * Turns one API answer into the snapshot to store. A filter answer is `ok` only when a status could be
 * read from it; otherwise the snapshot says why (a 2xx answer without a readable status is `contract`).
 */
export function toSnapshot(response: ApiResponse, ctx: ObservationContext): Snapshot {
  const base = {
    target: ctx.target,
    at: ctx.at,
    cycleId: ctx.cycleId,
    ...(response.httpStatus === undefined ? {} : { httpStatus: response.httpStatus }),
    latencyMs: Math.round(response.latencyMs),
    ...(response.ok && response.text !== undefined ? { bodyText: response.text } : {}),
    ...(response.bodyBytes === undefined ? {} : { bodyBytes: response.bodyBytes }),
  };
  if (!response.ok) {
    return {
      ...base,
      ok: false,
      error: response.error ?? 'request failed',
      ...(response.errorKind === undefined ? {} : { errorKind: response.errorKind }),
    };
  }
  if (ctx.target.kind === 'network') return { ...base, ok: true };
  const reading = extractStatus(response.json, ctx.statusPath);
  return reading.ok
    ? { ...base, ok: true, status: reading.status, statusPath: reading.path }
    : { ...base, ok: false, error: reading.error, errorKind: 'contract' };
}

function outcome(snapshot: Snapshot): RequestOutcome {
  return {
    ok: snapshot.ok,
    ...(snapshot.errorKind === undefined ? {} : { errorKind: snapshot.errorKind }),
    ...(snapshot.error === undefined ? {} : { error: snapshot.error }),
    ...(snapshot.httpStatus === undefined ? {} : { httpStatus: snapshot.httpStatus }),
  };
}

/** Reduces a cycle's snapshots to what the decisions need. */
export function toCycleObservation(
  at: string,
  filter: Snapshot | undefined,
  networks: readonly Snapshot[],
): CycleObservation {
  const all = filter === undefined ? networks : [filter, ...networks];
  return {
    at,
    ...(filter === undefined
      ? {}
      : {
          filter:
            filter.ok && filter.status !== undefined
              ? { ok: true as const, status: filter.status }
              : {
                  ok: false as const,
                  error: filter.error ?? 'status unreadable',
                  ...(filter.errorKind === undefined ? {} : { errorKind: filter.errorKind }),
                  ...(filter.httpStatus === undefined ? {} : { httpStatus: filter.httpStatus }),
                },
        }),
    outcomes: all.map(outcome),
  };
}
