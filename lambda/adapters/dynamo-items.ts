/** How snapshots and alert events map to DynamoDB items and back (no I/O). */
import { fromStoredSince, SINCE_ATTRIBUTE, sinceOf, toStoredSince } from '../core/alerts/alert-since.ts';
import { MAX_STORED_BODY_BYTES } from '../core/detect/observation.ts';
import type { IncidentStory } from '../core/incidents/incidents.ts';
import { readCondition } from '../core/rules/rule-kinds/index.ts';
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
    errorKind: storedErrorKind(item),
  });
}

/**
 * A snapshot's failure kind as stored. Before `cut_short` was a kind, a request the operator stopped was
 * stored as a `transport` failure whose error began `cut short`: read as the kind it is.
 */
function storedErrorKind(item: Record<string, unknown>): FailureKind | undefined {
  const kind = str(item['errorKind']) as FailureKind | undefined;
  return kind === 'transport' && item['ok'] !== true && str(item['error'])?.startsWith('cut short') === true
    ? 'cut_short'
    : kind;
}

export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Attribute holding a rule alert's numbers as JSON text (DynamoDB numbers stop at 1e125; a reading may not). */
const RULE_VALUES = 'ruleValues';

/**
 * An alert as stored (an outbox entry, a spilled item, an event item): a rule alert's value, threshold,
 * baseline, values, parsed condition (whose threshold is a number too) and a resolve's peak as one JSON text in
 * {@link RULE_VALUES}, its family's time under `since` (`alert-since.ts`), every other field as it is.
 */
export function storedAlert<T extends AlertRecord>(alert: T): Record<string, unknown> {
  if (alert.story !== undefined) {
    // An incident alert's members and peaks (readings, which DynamoDB numbers may not hold) as JSON text.
    const { story, ...others } = alert;
    return { ...storedAlert(others as AlertRecord), [STORY]: JSON.stringify(story) };
  }
  if (alert.rule === undefined) return toStoredSince(alert);
  const { value, threshold, baseline, values, condition, peak, peakAt, ...rest } = alert;
  return toStoredSince({
    ...rest,
    // A resolve's peak is a reading too, and its time rides with it (a release without it ignores both).
    [RULE_VALUES]: JSON.stringify({ value, threshold, baseline, values, condition, peak, peakAt }),
  });
}

/** Attribute holding an incident alert's story as JSON text (docs/design/incidents.md). */
const STORY = 'story';

/** An incident alert's story as stored, or undefined when absent or unreadable. */
export function storyOf(stored: unknown): IncidentStory | undefined {
  if (typeof stored !== 'string') return undefined;
  try {
    const story = JSON.parse(stored) as IncidentStory;
    return typeof story === 'object' && story !== null && Array.isArray(story.members) ? story : undefined;
  } catch {
    return undefined;
  }
}

/** The fields of {@link storedAlert} back (`since` under its family's name); a damaged number text leaves the numbers out. */
export function fromStoredAlert(stored: Record<string, unknown>): Record<string, unknown> {
  const { [STORY]: storyText, ...item } = stored;
  const story = storyOf(storyText);
  const fields = fromStoredSince(fromAlertNumbers(item));
  return story === undefined ? fields : { ...fields, story };
}

function fromAlertNumbers(item: Record<string, unknown>): Record<string, unknown> {
  const { [RULE_VALUES]: text, ...rest } = item;
  if (typeof text !== 'string') return rest;
  try {
    const { value, threshold, baseline, values, condition, peak, peakAt } = JSON.parse(text) as Record<
      string,
      unknown
    >;
    const scalar = (v: unknown) => (typeof v === 'number' || typeof v === 'boolean' ? v : undefined);
    const peakValue = scalar(peak);
    return dropUndefined({
      ...rest,
      value: scalar(value),
      // A resolve's peak and when (docs/rules.md), only together.
      peak: typeof peakAt === 'string' ? peakValue : undefined,
      peakAt: peakValue !== undefined ? str(peakAt) : undefined,
      threshold: scalar(threshold),
      baseline: num(baseline),
      values: Array.isArray(values) ? values.filter((v) => scalar(v) !== undefined) : undefined,
      // A condition this version cannot read is left out: the texts then read the rule as written.
      condition: readCondition(condition),
    });
  } catch {
    return rest;
  }
}

/**
 * The kept record of an alert; written idempotently (its key is fixed by the alert and its scope: `scope` is
 * the rule item of a rule alert, whose sequence numbers are its own).
 */
export function eventItem(alert: AlertRecord, scope?: string): Record<string, unknown> {
  const rule =
    alert.rule === undefined
      ? {}
      : {
          rule: alert.rule,
          network: alert.network,
          ruleText: alert.ruleText,
          scope,
          [RULE_VALUES]: storedAlert(alert)[RULE_VALUES],
        };
  return {
    pk: KEY.event,
    sk: eventSortKey(alert, scope),
    ...rule,
    at: alert.at,
    event: alert.event,
    from: alert.from,
    to: alert.to,
    seq: alert.seq,
    // Every incident's id, not only a rule's: the report pairs an incident's start with its end by it.
    incident: alert.incident,
    previousSince: alert.previousSince,
    [SINCE_ATTRIBUTE]: sinceOf(alert),
    expected: alert.expected,
    severity: alert.severity,
    cycles: alert.cycles,
    detail: alert.detail,
    // An announcement at a silence's end (docs/silences.md): which silence, and what it held back.
    silence: alert.silence,
    heldEvent: alert.heldEvent,
    acknowledgedBy: alert.acknowledgedBy,
    // A network health alert (docs/alerts.md, Blind spots): its networks, those still failing, a rule's path.
    members: alert.members,
    remaining: alert.remaining,
    path: alert.path,
    // An incident alert's members, peaks and totals (incidents show reads them back).
    [STORY]: alert.story === undefined ? undefined : JSON.stringify(alert.story),
  };
}

/** `<at>#<seq>` for the monitor's alerts, `<at>#<scope>#<seq>` for a rule item's (12-digit sequence numbers). */
export function eventSortKey(alert: Pick<AlertRecord, 'at' | 'seq'>, scope?: string): string {
  const seq = String(alert.seq).padStart(12, '0');
  return scope === undefined ? `${alert.at}#${seq}` : `${alert.at}#${scope}#${seq}`;
}
