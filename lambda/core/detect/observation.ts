import type { ApiResponse, Snapshot, Target } from '../types.ts';
import type { CycleObservation, RequestOutcome } from './decide.ts';
import { extractStatus } from './status.ts';

/** Where and when an answer was observed. */
export interface ObservationContext {
  readonly target: Target;
  /** When the request was sent, ISO-8601. */
  readonly at: string;
  readonly cycleId: string;
  /** Configured status path (filter only). */
  readonly statusPath?: string;
  /**
   * Body bytes this snapshot may still keep for storage within its cycle's budget; a larger body is stored
   * as a marker (its size and why it was left out). Default: no budget beyond {@link MAX_STORED_BODY_BYTES}.
   */
  readonly bodyBudgetBytes?: number;
}

/**
 * Largest body kept with a snapshot, in UTF-8 bytes: DynamoDB items are capped at 400 KB, so a larger body
 * is stored as a marker (`bodyBytes` and an `error` that says why), and the snapshot never carries it.
 */
export const MAX_STORED_BODY_BYTES = 300_000;

/**
 * Turns one API answer into the snapshot to store. A filter answer is `ok` only when a status could be
 * read from it; otherwise the snapshot says why (a 2xx answer without a readable status is `contract`).
 */
export function toSnapshot(response: ApiResponse, ctx: ObservationContext): Snapshot {
  const body = response.ok ? storedBody(response.text, ctx.bodyBudgetBytes) : {};
  const base = {
    target: ctx.target,
    at: ctx.at,
    cycleId: ctx.cycleId,
    ...(response.httpStatus === undefined ? {} : { httpStatus: response.httpStatus }),
    latencyMs: Math.round(response.latencyMs),
    ...(body.text === undefined ? {} : { bodyText: body.text }),
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
  const note = body.note === undefined ? {} : { error: body.note };
  if (ctx.target.kind === 'network') return { ...base, ok: true, ...note };
  const reading = extractStatus(response.json, ctx.statusPath, response.text);
  return reading.ok
    ? { ...base, ok: true, status: reading.status, statusPath: reading.path, ...note }
    : {
        ...base,
        ok: false,
        error: body.note === undefined ? reading.error : `${reading.error}; ${body.note}`,
        errorKind: 'contract',
      };
}

/** UTF-8 size of the body text a snapshot keeps (0 when it keeps none): what it takes from a cycle's budget. */
export function storedBodyBytes(snapshot: Snapshot): number {
  return snapshot.bodyText === undefined ? 0 : Buffer.byteLength(snapshot.bodyText);
}

/** The body text to keep, or the marker that says why none is kept. */
function storedBody(
  text: string | undefined,
  budget = Number.POSITIVE_INFINITY,
): { text?: string; note?: string } {
  if (text === undefined) return {};
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_STORED_BODY_BYTES) {
    return { note: `body too large to store (${bytes} bytes, limit ${MAX_STORED_BODY_BYTES})` };
  }
  if (bytes > budget) {
    return { note: `body not stored (${bytes} bytes): this cycle's budget for stored bodies is spent` };
  }
  return { text };
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
