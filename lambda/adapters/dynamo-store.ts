import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { INITIAL_STATE, type MonitorState } from '../core/decide.ts';
import type { AlertEvent, AlertRecord, Snapshot, Target } from '../core/types.ts';
import type {
  HistoryQuery,
  OutboxEntry,
  OutboxRef,
  SnapshotStore,
  StateStore,
  StoredEvent,
  VersionedState,
} from '../ports.ts';
import {
  dropUndefined,
  eventItem,
  eventSortKey,
  fromSnapshotItem,
  num,
  snapshotItem,
  str,
} from './dynamo-items.ts';
import { KEY, targetKey } from './table-schema.ts';

export { MAX_STORED_BODY_BYTES } from '../core/observation.ts';
export { ensureTable } from './dynamo-table.ts';
export { KEY, TTL_ATTRIBUTE, targetKey } from './table-schema.ts';

const BATCH_SIZE = 25;
const BATCH_ATTEMPTS = 8;

const seqKey = (seq: number): string => `a${seq}`;
const outboxSortKey = (seq: number): string => String(seq).padStart(12, '0');

/** The item and the attribute path of one outbox alert. */
interface Location {
  readonly key: Record<string, string>;
  /** Prefix of the alert's attributes: `#outbox.#a.` inside the state item, empty in an item of its own. */
  readonly path: string;
  /** Condition that the alert is still there. */
  readonly exists: string;
  readonly names?: Record<string, string>;
}

function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

/** Snapshots, events and the monitor state in one DynamoDB table. */
export class DynamoStore implements SnapshotStore, StateStore {
  private readonly doc: DynamoDBDocumentClient;
  /** Aborts every request of this view of the store (see {@link withSignal}). */
  private readonly signal: AbortSignal | undefined;

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

  /**
   * The same store (client, table, counters), each of its requests aborted once `signal` aborts, so a store
   * that does not answer cannot hold a cycle (or the SDK's retries a process) past its deadline.
   */
  withSignal(signal: AbortSignal): DynamoStore {
    return Object.assign(Object.create(this) as DynamoStore, { signal });
  }

  /** Per-request options: this view's abort signal. */
  private get http(): { abortSignal: AbortSignal } | undefined {
    return this.signal === undefined ? undefined : { abortSignal: this.signal };
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
      const out = await this.doc.send(
        new BatchWriteCommand({ RequestItems: { [this.table]: pending } }),
        this.http,
      );
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
      const out = await this.doc.send(new QueryCommand(input), this.http);
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
      this.http,
    );
    const item = out.Item;
    if (item === undefined) return { state: INITIAL_STATE, version: 0, outbox: [] };
    const inState = Object.values((item['outbox'] ?? {}) as Record<string, OutboxEntry>);
    const spilled = item['spilled'] === true ? await this.loadSpilled(num(item['spillGen']) ?? 0) : [];
    // While a spill is under way an alert can be in both places; the state item's copy is the one that counts.
    const held = new Set(inState.map((e) => e.seq));
    const outbox = [...inState, ...spilled.filter((e) => !held.has(e.seq))].sort((a, b) => a.seq - b.seq);
    return { state: item['state'] as MonitorState, version: num(item['version']) ?? 0, outbox };
  }

  /** Alerts moved out of the state item; when none is left, the state item stops saying there are. */
  private async loadSpilled(spillGen: number): Promise<OutboxEntry[]> {
    const entries: OutboxEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      this.stats.reads++;
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': KEY.outbox },
          ConsistentRead: true,
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        }),
        this.http,
      );
      for (const item of out.Items ?? []) {
        const { pk: _pk, sk: _sk, ...entry } = item;
        entries.push({ ...(entry as OutboxEntry), spilled: true });
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined);
    if (entries.length === 0) {
      // Only if no spill happened since (spillGen unchanged); otherwise the next load finds its alerts.
      this.stats.writes++;
      await this.doc
        .send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: KEY.state, sk: KEY.stateSort },
            UpdateExpression: 'REMOVE spilled',
            ConditionExpression: 'spillGen = :gen',
            ExpressionAttributeValues: { ':gen': spillGen },
          }),
          this.http,
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
    }
    return entries;
  }

  async spill(entries: readonly OutboxEntry[], nowMs: number): Promise<boolean> {
    if (entries.length === 0) return false;
    const puts = entries.map(({ claimedBy: _by, claimUntil: _until, spilled: _spilled, ...alert }) => ({
      PutRequest: { Item: { pk: KEY.outbox, sk: outboxSortKey(alert.seq), ...alert } },
    }));
    for (let i = 0; i < puts.length; i += BATCH_SIZE) await this.writeChunk(puts.slice(i, i + BATCH_SIZE));
    const names: Record<string, string> = { '#outbox': 'outbox' };
    const removes: string[] = [];
    const conditions: string[] = [];
    entries.forEach((entry, i) => {
      names[`#a${i}`] = seqKey(entry.seq);
      removes.push(`#outbox.#a${i}`);
      conditions.push(
        `(attribute_exists(#outbox.#a${i}) AND (attribute_not_exists(#outbox.#a${i}.claimUntil) OR #outbox.#a${i}.claimUntil < :now))`,
      );
    });
    this.stats.writes++;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: KEY.state, sk: KEY.stateSort },
          UpdateExpression: `SET spilled = :yes, spillGen = if_not_exists(spillGen, :zero) + :one REMOVE ${removes.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':yes': true, ':zero': 0, ':one': 1, ':now': nowMs },
        }),
        this.http,
      );
      return true;
    } catch (error) {
      // The copies written above stay behind the state item's own until a later spill overwrites them.
      if (isConditionFailure(error)) return false;
      throw error;
    }
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
          this.http,
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
        this.http,
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async claim(entry: OutboxRef, claimant: string, nowMs: number, untilMs: number): Promise<boolean> {
    const at = this.locate(entry);
    return this.conditionalUpdate(at, {
      update: `SET ${at.path}claimedBy = :me, ${at.path}claimUntil = :until`,
      condition: `${at.exists} AND (attribute_not_exists(${at.path}claimUntil) OR ${at.path}claimUntil < :now)`,
      values: { ':me': claimant, ':until': untilMs, ':now': nowMs },
    });
  }

  async recordEvent(alert: AlertRecord): Promise<string | undefined> {
    // An update rather than a put: it keeps a message id recorded by markPublished, and returns it.
    const fields = Object.entries(eventItem(alert)).filter(
      ([name, value]) => value !== undefined && name !== 'pk' && name !== 'sk',
    );
    this.stats.writes++;
    const out = await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: KEY.event, sk: eventSortKey(alert) },
        UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:f${i}`, value])),
        ReturnValues: 'ALL_OLD',
      }),
      this.http,
    );
    return str(out.Attributes?.['messageId']);
  }

  async markPublished(alert: AlertRecord, messageId: string): Promise<void> {
    this.stats.writes++;
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: KEY.event, sk: eventSortKey(alert) },
        UpdateExpression: 'SET messageId = :id',
        ExpressionAttributeValues: { ':id': messageId },
      }),
      this.http,
    );
  }

  async complete(entry: OutboxRef, claimant: string): Promise<void> {
    const at = this.locate(entry);
    if (entry.spilled !== true) {
      await this.conditionalUpdate(at, {
        update: 'REMOVE #outbox.#a',
        condition: '#outbox.#a.claimedBy = :me',
        values: { ':me': claimant },
      });
      return;
    }
    this.stats.writes++;
    await this.doc
      .send(
        new DeleteCommand({
          TableName: this.table,
          Key: at.key,
          ConditionExpression: 'claimedBy = :me',
          ExpressionAttributeValues: { ':me': claimant },
        }),
        this.http,
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  async release(entry: OutboxRef, claimant: string, error?: string): Promise<void> {
    const at = this.locate(entry);
    const unclaim = `REMOVE ${at.path}claimedBy, ${at.path}claimUntil`;
    await this.conditionalUpdate(
      at,
      error === undefined
        ? { update: unclaim, condition: `${at.path}claimedBy = :me`, values: { ':me': claimant } }
        : {
            update: `SET ${at.path}failures = if_not_exists(${at.path}failures, :zero) + :one, ${at.path}lastError = :error ${unclaim}`,
            condition: `${at.path}claimedBy = :me`,
            values: { ':me': claimant, ':zero': 0, ':one': 1, ':error': error.slice(0, 500) },
          },
    );
  }

  /** Where an outbox alert lives: inside the state item, or in an item of its own after a spill. */
  private locate(entry: OutboxRef): Location {
    return entry.spilled === true
      ? { key: { pk: KEY.outbox, sk: outboxSortKey(entry.seq) }, path: '', exists: 'attribute_exists(pk)' }
      : {
          key: { pk: KEY.state, sk: KEY.stateSort },
          path: '#outbox.#a.',
          exists: 'attribute_exists(#outbox.#a)',
          names: { '#outbox': 'outbox', '#a': seqKey(entry.seq) },
        };
  }

  private async conditionalUpdate(
    at: Location,
    expression: { update: string; condition: string; values: Record<string, unknown> },
  ): Promise<boolean> {
    this.stats.writes++;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: at.key,
          UpdateExpression: expression.update,
          ConditionExpression: expression.condition,
          ...(at.names === undefined ? {} : { ExpressionAttributeNames: at.names }),
          ExpressionAttributeValues: expression.values,
        }),
        this.http,
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
