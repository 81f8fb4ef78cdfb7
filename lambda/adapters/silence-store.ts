/**
 * Silences in the monitor's table (docs/silences.md): items of their own, pk `silence`, sk the id, each with a
 * TTL some days after it ends. The CLI writes them with the operator's credentials; the function only reads
 * them (a Query), and only in a cycle that has an alert to send.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { declaredWindows } from '../core/silences/maintenance-config.ts';
import {
  currentOccurrence,
  lastEndMs,
  type MaintenanceWindow,
  type Occurrence,
  toWindow,
  type WindowRequest,
  windowSilences,
  withOccurrenceEnded,
} from '../core/silences/maintenance-window.ts';
import { MAX_SILENCE_MS, type Silence, toSilence } from '../core/silences/silence-window.ts';
import type { SilenceStore } from '../ports.ts';
import { isConditionFailure, queryItems } from './scope-store.ts';
import { KEY, TTL_ATTRIBUTE } from './table-schema.ts';

/** How long a silence's item is kept after it ends (its TTL), so `silence list` can show recent ones. */
export const SILENCE_KEPT_MS = 7 * 86_400_000;

/** What ending a silence did. */
export type EndResult =
  | { readonly outcome: 'ended'; readonly silence: Silence }
  | { readonly outcome: 'already-ended'; readonly silence: Silence }
  | { readonly outcome: 'missing' }
  /** A maintenance window's current occurrence was ended; the window and its later occurrences stay. */
  | {
      readonly outcome: 'occurrence-ended';
      readonly window: MaintenanceWindow;
      readonly occurrence: Occurrence;
    }
  /** A maintenance window with no occurrence active now: nothing changed. */
  | { readonly outcome: 'no-occurrence'; readonly window: MaintenanceWindow };

/** The item kind of a maintenance window under pk `silence` (a silence's item has none). */
export const WINDOW_KIND = 'window';

/** Everything under pk `silence`, for `silence list`: silences, windows, and items that are neither. */
export interface StoredSilences {
  readonly silences: Silence[];
  /** Stored windows, then those declared in context (the function's configuration). */
  readonly windows: MaintenanceWindow[];
  /** Items that are no valid silence nor window (a hand edit, another tool): read as absent. */
  readonly invalid: Array<{ readonly id: string; readonly problem: string }>;
}

/** What the store needs beside its table. */
export interface SilenceStoreOptions {
  /** The clock by which window occurrences are expanded in {@link DynamoSilenceStore.list}. @default Date.now */
  readonly now?: () => number;
  /**
   * Windows declared in the stack's context `maintenance` (the function's configuration, checked by
   * `parseMaintenance`), expanded with the store's clock. @default []
   */
  readonly windows?: readonly WindowRequest[];
}

/** Epoch seconds at which a silence's item may go. */
function expiresAt(silence: Pick<Silence, 'endsAt'>): number {
  return Math.floor((Date.parse(silence.endsAt) + SILENCE_KEPT_MS) / 1000);
}

/** Silences in one DynamoDB table. */
export class DynamoSilenceStore implements SilenceStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly signal: AbortSignal | undefined;

  /** Counts requests sent, for tests (a cycle without alerts reads no silence). */
  readonly stats = { writes: 0, reads: 0 };

  private readonly now: () => number;
  private readonly declared: readonly WindowRequest[];

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
    options: SilenceStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.declared = options.windows ?? [];
    this.doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }

  /** The same store (client, table, counters), each of its requests aborted once `signal` aborts. */
  withSignal(signal: AbortSignal): DynamoSilenceStore {
    return Object.assign(Object.create(this) as DynamoSilenceStore, { signal });
  }

  private get http(): { abortSignal: AbortSignal } | undefined {
    return this.signal === undefined ? undefined : { abortSignal: this.signal };
  }

  /**
   * Every stored silence (ended ones too, until their TTL removes them) and, for each maintenance window (stored
   * or declared in context), its occurrences of the last 8 days up to now and its next one, each as a silence
   * with the window's id (`maintenance-window.ts` windowSilences). Strongly consistent, so that a silence just
   * created counts in the next cycle. Items that are neither silences nor valid windows are passed over.
   */
  async list(): Promise<Silence[]> {
    const all = await this.listAll();
    return [...all.silences, ...windowSilences(all.windows, this.now())];
  }

  /** Every item under pk `silence` as what it is, and the declared windows: one Query (paged). */
  async listAll(): Promise<StoredSilences> {
    const silences: Silence[] = [];
    const windows: MaintenanceWindow[] = [];
    const invalid: Array<{ id: string; problem: string }> = [];
    const conn = { doc: this.doc, table: this.table, stats: this.stats, signal: this.signal };
    for await (const item of queryItems(conn, { condition: 'pk = :pk', values: { ':pk': KEY.silence } })) {
      if (item['kind'] === WINDOW_KIND) {
        const read = toWindow(item);
        if (read.ok && read.window.source === undefined) windows.push(read.window);
        else
          invalid.push({
            id: read.ok ? read.window.id : read.id,
            problem: read.ok ? 'claims to be declared in context' : read.problem,
          });
        continue;
      }
      const silence = toSilence(item);
      if (silence !== undefined) silences.push(silence);
      else
        invalid.push({
          id: typeof item['sk'] === 'string' ? item['sk'] : '?',
          problem: 'not a silence: a field is missing or of the wrong type',
        });
    }
    return { silences, windows: [...windows, ...this.declaredWindows()], invalid };
  }

  /** The windows declared in configuration, as they stand by the store's clock. */
  declaredWindows(): MaintenanceWindow[] {
    return this.declared.length === 0 ? [] : declaredWindows(this.declared, this.now());
  }

  /** Stores a new maintenance window; false when its id is taken already. */
  async putWindow(window: MaintenanceWindow): Promise<boolean> {
    this.stats.writes++;
    const last = lastEndMs(window);
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: KEY.silence,
            sk: window.id,
            kind: WINDOW_KIND,
            ...window,
            ...(last === undefined ? {} : { [TTL_ATTRIBUTE]: Math.floor((last + SILENCE_KEPT_MS) / 1000) }),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
        this.http,
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Removes a silence or a window and its future occurrences; false when there is none. */
  async cancel(id: string): Promise<boolean> {
    this.stats.writes++;
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { pk: KEY.silence, sk: id },
          ConditionExpression: 'attribute_exists(pk)',
        }),
        this.http,
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Ends a window's occurrence active at `nowMs` (only that one), conditioned on the item being unchanged. */
  private async endOccurrence(item: Record<string, unknown>, nowMs: number): Promise<EndResult> {
    const read = toWindow(item);
    if (!read.ok) return { outcome: 'missing' };
    const window = read.window;
    const occurrence = currentOccurrence(window, nowMs);
    if (occurrence === undefined) return { outcome: 'no-occurrence', window };
    const ended = withOccurrenceEnded(window, occurrence.startMs, nowMs);
    this.stats.writes++;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: KEY.silence, sk: window.id },
          UpdateExpression: 'SET #ended = :ended',
          ExpressionAttributeNames: { '#ended': 'ended' },
          // Another `end` meanwhile: read again by the caller's next try (rare; the answer says it changed).
          ConditionExpression:
            item['ended'] === undefined
              ? 'attribute_exists(pk) AND attribute_not_exists(#ended)'
              : 'attribute_exists(pk) AND #ended = :was',
          ExpressionAttributeValues: {
            ':ended': ended,
            ...(item['ended'] === undefined ? {} : { ':was': item['ended'] }),
          },
        }),
        this.http,
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { outcome: 'missing' };
    }
    return {
      outcome: 'occurrence-ended',
      window: { ...window, ended },
      occurrence: { startMs: occurrence.startMs, endMs: nowMs },
    };
  }

  /** Stores a new silence; false when its id is taken already (the caller picks another). */
  async put(silence: Silence): Promise<boolean> {
    this.stats.writes++;
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: KEY.silence, sk: silence.id, ...silence, [TTL_ATTRIBUTE]: expiresAt(silence) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
        this.http,
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Ends a silence now (`endsAt` moved to `nowMs`), only if it exists and has not ended yet: not at its stored
   * end, nor at the 7-day cap that reading applies (a start more than 7 days ago).
   */
  async end(id: string, nowMs: number): Promise<EndResult> {
    const endsAt = new Date(nowMs).toISOString();
    const earliest = new Date(nowMs - MAX_SILENCE_MS).toISOString();
    this.stats.writes++;
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: KEY.silence, sk: id },
          UpdateExpression: 'SET endsAt = :now, #ttl = :ttl',
          ConditionExpression: 'attribute_exists(pk) AND endsAt > :now AND startsAt > :earliest',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':now': endsAt, ':earliest': earliest, ':ttl': expiresAt({ endsAt }) },
          ReturnValues: 'ALL_NEW',
        }),
        this.http,
      );
      const silence = toSilence(out.Attributes ?? {});
      if (silence !== undefined) return { outcome: 'ended', silence };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    // Which condition failed: dynalite cannot return the item with the failure, so it is read.
    this.stats.reads++;
    const got = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: KEY.silence, sk: id }, ConsistentRead: true }),
      this.http,
    );
    if (got.Item?.['kind'] === WINDOW_KIND) return this.endOccurrence(got.Item, nowMs);
    const silence = got.Item === undefined ? undefined : toSilence(got.Item);
    return silence === undefined ? { outcome: 'missing' } : { outcome: 'already-ended', silence };
  }
}
