import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { INITIAL_STATE, type MonitorState } from '../core/decide.ts';
import type { AlertEvent, AlertRecord, FailureKind, Snapshot, Target } from '../core/types.ts';
import type {
  HistoryQuery,
  OutboxEntry,
  SnapshotStore,
  StateStore,
  StoredEvent,
  VersionedState,
} from '../ports.ts';

/**
 * Table layout (one table, `pk` + `sk`, both strings):
 * - snapshots: pk `filter` or `network#<id>`, sk `<at ISO>#<cycleId>`, TTL `expiresAt` (epoch seconds);
 * - alert events: pk `event`, sk `<at ISO>#<seq, 12 digits>`, no TTL;
 * - the monitor state and its outbox: pk `state`, sk `monitor`.
 */
export const KEY = {
  filter: 'filter',
  networkPrefix: 'network#',
  event: 'event',
  state: 'state',
  stateSort: 'monitor',
} as const;

/** TTL attribute of snapshot items. */
export const TTL_ATTRIBUTE = 'expiresAt';

/**
 * Largest body stored with a snapshot, in UTF-8 bytes. DynamoDB items are capped at 400 KB; a larger body
 * is left out and the snapshot says so.
 */
export const MAX_STORED_BODY_BYTES = 300_000;

const BATCH_SIZE = 25;
const BATCH_ATTEMPTS = 8;

/** Partition key of a target's snapshots. */
export function targetKey(target: Target): string {
  return target.kind === 'filter' ? KEY.filter : `${KEY.networkPrefix}${target.networkId}`;
}

function snapshotItem(snapshot: Snapshot, expiresAt: number): Record<string, unknown> {
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

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function fromSnapshotItem(item: Record<string, unknown>): Snapshot {
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

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const seqKey = (seq: number): string => `a${seq}`;

/** The kept record of an alert; written idempotently (its key is fixed by the alert). */
function eventItem(alert: AlertRecord): Record<string, unknown> {
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

function eventSortKey(alert: Pick<AlertRecord, 'at' | 'seq'>): string {
  return `${alert.at}#${String(alert.seq).padStart(12, '0')}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

/** Snapshots, events and the monitor state in one DynamoDB table. */
export class DynamoStore implements SnapshotStore, StateStore {
  private readonly doc: DynamoDBDocumentClient;

  /** Counts requests sent, for benchmarks and tests. */
  readonly stats = { writes: 0, reads: 0 };

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }

  async putSnapshots(snapshots: readonly Snapshot[], expiresAt: number): Promise<void> {
    const requests = snapshots.map((s) => ({ PutRequest: { Item: snapshotItem(s, expiresAt) } }));
    const chunks: (typeof requests)[] = [];
    for (let i = 0; i < requests.length; i += BATCH_SIZE) chunks.push(requests.slice(i, i + BATCH_SIZE));
    await Promise.all(chunks.map((chunk) => this.writeChunk(chunk)));
  }

  private async writeChunk(chunk: ReadonlyArray<{ PutRequest: { Item: Record<string, unknown> } }>) {
    let pending = [...chunk];
    for (let attempt = 1; pending.length > 0; attempt++) {
      this.stats.writes++;
      const out = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.table]: pending } }));
      pending = (out.UnprocessedItems?.[this.table] ?? []) as typeof pending;
      if (pending.length === 0) return;
      if (attempt >= BATCH_ATTEMPTS) {
        throw new Error(`DynamoDB left ${pending.length} snapshot(s) unprocessed after ${attempt} attempts`);
      }
      // Throttled: back off with full jitter, as the SDK does for its own retries.
      await sleep(Math.random() * Math.min(2000, 50 * 2 ** attempt));
    }
  }

  async querySnapshots(target: Target, query: HistoryQuery): Promise<Snapshot[]> {
    const items = await this.queryRange(targetKey(target), query);
    return items.map(fromSnapshotItem);
  }

  async queryEvents(query: HistoryQuery): Promise<StoredEvent[]> {
    const items = await this.queryRange(KEY.event, query);
    return items.map((item) =>
      dropUndefined({
        at: str(item['at']) ?? '',
        event: str(item['event']) as AlertEvent,
        from: str(item['from']),
        to: str(item['to']),
        seq: num(item['seq']) ?? 0,
        detail: str(item['detail']),
      }),
    );
  }

  /** Reads a key range page by page (DynamoDB returns at most 1 MB a page), oldest first. */
  private async queryRange(pk: string, query: HistoryQuery): Promise<Record<string, unknown>[]> {
    const newestFirst = query.limit !== undefined;
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const input: QueryCommandInput = {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':lo': query.since ?? '0',
          // '~' sorts after every character of an ISO timestamp and '#', so `until` is inclusive.
          ':hi': `${query.until ?? '9999'}~`,
        },
        ScanIndexForward: !newestFirst,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        ...(query.limit === undefined ? {} : { Limit: Math.min(1000, query.limit - items.length) }),
      };
      this.stats.reads++;
      const out = await this.doc.send(new QueryCommand(input));
      items.push(...((out.Items ?? []) as Record<string, unknown>[]));
      startKey = out.LastEvaluatedKey;
      query.onPage?.(items.length);
    } while (startKey !== undefined && (query.limit === undefined || items.length < query.limit));
    return newestFirst ? items.reverse() : items;
  }

  async load(): Promise<VersionedState> {
    this.stats.reads++;
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: KEY.state, sk: KEY.stateSort },
        ConsistentRead: true,
      }),
    );
    const item = out.Item;
    if (item === undefined) return { state: INITIAL_STATE, version: 0, outbox: [] };
    const outbox = Object.values((item['outbox'] ?? {}) as Record<string, OutboxEntry>).sort(
      (a, b) => a.seq - b.seq,
    );
    return { state: item['state'] as MonitorState, version: num(item['version']) ?? 0, outbox };
  }

  async commit(
    next: MonitorState,
    expectedVersion: number,
    alerts: readonly AlertRecord[],
    claim?: { readonly claimant: string; readonly untilMs: number },
  ): Promise<boolean> {
    this.stats.writes++;
    const entries = alerts.map((a) =>
      claim === undefined ? a : { ...a, claimedBy: claim.claimant, claimUntil: claim.untilMs },
    );
    try {
      if (expectedVersion === 0) {
        await this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              pk: KEY.state,
              sk: KEY.stateSort,
              version: 1,
              state: next,
              outbox: Object.fromEntries(entries.map((a) => [seqKey(a.seq), a])),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      }
      const names: Record<string, string> = { '#state': 'state' };
      if (alerts.length > 0) names['#outbox'] = 'outbox';
      const values: Record<string, unknown> = {
        ':next': next,
        ':version': expectedVersion + 1,
        ':expected': expectedVersion,
      };
      const sets = ['#state = :next', 'version = :version'];
      entries.forEach((alert, i) => {
        names[`#a${i}`] = seqKey(alert.seq);
        values[`:a${i}`] = alert;
        sets.push(`#outbox.#a${i} = :a${i}`);
      });
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: KEY.state, sk: KEY.stateSort },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'version = :expected',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async claim(seq: number, claimant: string, nowMs: number, untilMs: number): Promise<boolean> {
    return this.conditionalUpdate(seq, {
      update: 'SET #outbox.#a.claimedBy = :me, #outbox.#a.claimUntil = :until',
      condition:
        'attribute_exists(#outbox.#a) AND (attribute_not_exists(#outbox.#a.claimUntil) OR #outbox.#a.claimUntil < :now)',
      values: { ':me': claimant, ':until': untilMs, ':now': nowMs },
    });
  }

  async recordEvent(alert: AlertRecord): Promise<void> {
    this.stats.writes++;
    await this.doc.send(new PutCommand({ TableName: this.table, Item: eventItem(alert) }));
  }

  async complete(seq: number, claimant: string): Promise<void> {
    await this.conditionalUpdate(seq, {
      update: 'REMOVE #outbox.#a',
      condition: '#outbox.#a.claimedBy = :me',
      values: { ':me': claimant },
    });
  }

  async release(seq: number, claimant: string, error?: string): Promise<void> {
    if (error === undefined) {
      await this.conditionalUpdate(seq, {
        update: 'REMOVE #outbox.#a.claimedBy, #outbox.#a.claimUntil',
        condition: '#outbox.#a.claimedBy = :me',
        values: { ':me': claimant },
      });
      return;
    }
    await this.conditionalUpdate(seq, {
      update:
        'SET #outbox.#a.failures = if_not_exists(#outbox.#a.failures, :zero) + :one, #outbox.#a.lastError = :error REMOVE #outbox.#a.claimedBy, #outbox.#a.claimUntil',
      condition: '#outbox.#a.claimedBy = :me',
      values: { ':me': claimant, ':zero': 0, ':one': 1, ':error': error.slice(0, 500) },
    });
  }

  private async conditionalUpdate(
    seq: number,
    expression: { update: string; condition: string; values: Record<string, unknown> },
  ): Promise<boolean> {
    this.stats.writes++;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: KEY.state, sk: KEY.stateSort },
          UpdateExpression: expression.update,
          ConditionExpression: expression.condition,
          ExpressionAttributeNames: { '#outbox': 'outbox', '#a': seqKey(seq) },
          ExpressionAttributeValues: expression.values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/**
 * Creates the table (on-demand, `pk`/`sk`, TTL on `expiresAt`) if it does not exist, and waits until it is
 * active. For local endpoints and the embedded store only: on AWS the stack owns the table.
 */
export async function ensureTable(client: DynamoDBClient, table: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: table }));
    return false;
  } catch (error) {
    if (
      !(error instanceof ResourceNotFoundException || (error as Error).name === 'ResourceNotFoundException')
    ) {
      throw error;
    }
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
  } catch (error) {
    // Another process created it at the same moment.
    if ((error as Error).name !== 'ResourceInUseException') throw error;
  }
  for (let i = 0; i < 100; i++) {
    const out = await client.send(new DescribeTableCommand({ TableName: table }));
    if (out.Table?.TableStatus === 'ACTIVE') break;
    await sleep(100);
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: table,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
  } catch {
    // dynalite has no UpdateTimeToLive; local stores do not expire items, which is harmless.
  }
  return true;
}
