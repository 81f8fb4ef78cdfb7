/** How snapshots and alert events map to DynamoDB items and back (no I/O). */
import { MAX_STORED_BODY_BYTES } from '../core/observation.ts';
import type { AlertRecord, FailureKind, Snapshot, Target } from '../core/types.ts';
import { KEY, TTL_ATTRIBUTE, targetKey } from './table-schema.ts';

export function snapshotItem(snapshot: Snapshot, expiresAt: number): Record<string, unknown> {
  let bodyText = snapshot.bodyText;
  let error = snapshot.error;
  const bodyBytes = bodyText === undefined ? snapshot.bodyBytes : Buffer.byteLength(bodyText, 'utf8');
  if (bodyText !== undefined && (bodyBytes ?? 0) > MAX_STORED_BODY_BYTES) {
    bodyText = undefined;
    const note = `body too large to store (${bodyBytes} bytes, limit ${MAX_STORED_BODY_BYTES})`;
    error = error === undefined ? note : `${error}; ${note}`;
  }
  return {
    pk: targetKey(snapshot.target),
    sk: `${snapshot.at}#${snapshot.cycleId}`,
    kind: snapshot.target.kind,
    networkId: snapshot.target.kind === 'network' ? snapshot.target.networkId : undefined,
    at: snapshot.at,
    cycleId: snapshot.cycleId,
    ok: snapshot.ok,
    status: snapshot.status,
    statusPath: snapshot.statusPath,
    body: bodyText,
    bodyBytes,
    httpStatus: snapshot.httpStatus,
    latencyMs: snapshot.latencyMs,
    error,
    errorKind: snapshot.errorKind,
    [TTL_ATTRIBUTE]: expiresAt,
  };
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

export function fromSnapshotItem(item: Record<string, unknown>): Snapshot {
  const networkId = str(item['networkId']);
  const target: Target =
    item['kind'] === 'network' && networkId !== undefined
      ? { kind: 'network', networkId }
      : { kind: 'filter' };
  return dropUndefined({
    target,
    at: str(item['at']) ?? '',
    cycleId: str(item['cycleId']) ?? '',
    ok: item['ok'] === true,
    status: str(item['status']),
    statusPath: str(item['statusPath']),
    bodyText: str(item['body']),
    bodyBytes: num(item['bodyBytes']),
    httpStatus: num(item['httpStatus']),
    latencyMs: num(item['latencyMs']),
    error: str(item['error']),
    errorKind: str(item['errorKind']) as FailureKind | undefined,
  });
}

export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The kept record of an alert; written idempotently (its key is fixed by the alert). */
export function eventItem(alert: AlertRecord): Record<string, unknown> {
  return {
    pk: KEY.event,
    sk: eventSortKey(alert),
    at: alert.at,
    event: alert.event,
    from: alert.from,
    to: alert.to,
    seq: alert.seq,
    previousSince: alert.previousSince,
    since: alert.since,
    expected: alert.expected,
    severity: alert.severity,
    cycles: alert.cycles,
    detail: alert.detail,
  };
}

export function eventSortKey(alert: Pick<AlertRecord, 'at' | 'seq'>): string {
  return `${alert.at}#${String(alert.seq).padStart(12, '0')}`;
}
