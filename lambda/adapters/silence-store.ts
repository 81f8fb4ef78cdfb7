/**
 * Silences in the monitor's table (docs/silences.md): items of their own, pk `silence`, sk the id, each with a
 * TTL some days after it ends. The CLI writes them with the operator's credentials; the function only reads
 * them (a Query), and only in a cycle that has an alert to send.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
  | { readonly outcome: 'missing' };

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

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
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
   * Every stored silence (ended ones too, until their TTL removes them), strongly consistent so that a
   * silence just created counts in the next cycle. Items that are not silences are passed over.
   */
  async list(): Promise<Silence[]> {
    const silences: Silence[] = [];
    const conn = { doc: this.doc, table: this.table, stats: this.stats, signal: this.signal };
    for await (const item of queryItems(conn, { condition: 'pk = :pk', values: { ':pk': KEY.silence } })) {
      const silence = toSilence(item);
      if (silence !== undefined) silences.push(silence);
    }
    return silences;
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
    const silence = got.Item === undefined ? undefined : toSilence(got.Item);
    return silence === undefined ? { outcome: 'missing' } : { outcome: 'already-ended', silence };
  }
}
