/**
 * The exactly-once protocol of one outbox scope (docs/design/exactly-once.md): a state item with a version and its
 * outbox, changed only by conditional writes; alerts moved to items of their own during a long SNS outage;
 * each alert recorded as an event before it is published. One implementation for the monitor state item and
 * for every rule item: a {@link ScopeLayout} says where a scope's items are and how its state is stored.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { fullJitterMs } from '../core/backoff.ts';
import { type HeldChanges, toHeldChanges } from '../core/silences/silence-window.ts';
import type { AlertRecord, NewAlertRecord } from '../core/types.ts';
import type { OutboxEntry, OutboxRef, StateStore, VersionedState } from '../ports.ts';
import { eventItem, eventSortKey, fromStoredAlert, num, storedAlert, str } from './dynamo-items.ts';
import { KEY } from './table-schema.ts';

const BATCH_SIZE = 25;
const BATCH_ATTEMPTS = 8;

/** Where one scope's items live and how its state is stored. */
export interface ScopeLayout<S> {
  /** Sort key of the state item under pk `state`. */
  readonly stateSort: string;
  /** Sort key of a spilled alert under pk `outbox`. */
  readonly spillSort: (seq: number) => string;
  /** Key condition (besides `pk = :pk`) that finds this scope's spilled alerts and no other scope's. */
  readonly spillRange: { readonly condition: string; readonly values: Record<string, string> };
  /** The rule item's name in its event items' keys; undefined for the monitor (keys as before rule items). */
  readonly eventScope?: string;
  readonly initial: S;
  readonly encode: (state: S) => unknown;
  readonly decode: (stored: unknown) => S;
}

/** The DynamoDB side a scope store shares with the store that made it. */
export interface ScopeConnection {
  readonly doc: DynamoDBDocumentClient;
  readonly table: string;
  /** Counts requests sent, for benchmarks and tests. */
  readonly stats: { writes: number; reads: number };
  readonly signal?: AbortSignal;
}

const seqKey = (seq: number): string => `a${seq}`;

/** DynamoDB refuses expression values an expression does not use. */
const omit = (values: Record<string, unknown>, name: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(values).filter(([key]) => key !== name));

/** The item and the attribute path of one outbox alert. */
interface Location {
  readonly key: Record<string, string>;
  /** Prefix of the alert's attributes: `#outbox.#a.` inside the state item, empty in an item of its own. */
  readonly path: string;
  /** Condition that the alert is still there. */
  readonly exists: string;
  readonly names?: Record<string, string>;
}

export function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

/** A key condition of a Query and the values it names (`:pk` among them). */
export interface KeyRange {
  readonly condition: string;
  readonly values: Record<string, unknown>;
}

/**
 * Every item of a strongly consistent Query, page by page (DynamoDB returns at most 1 MB a page), each page
 * counted as a read. A page is read only when the caller has taken the previous one's items, so what the caller
 * reads meanwhile (a rule item's spilled alerts) comes in between, as it would in a loop of its own.
 */
export async function* queryItems(
  conn: ScopeConnection,
  range: KeyRange,
): AsyncGenerator<Record<string, unknown>, void, undefined> {
  let startKey: Record<string, unknown> | undefined;
  do {
    conn.stats.reads++;
    const out = await conn.doc.send(
      new QueryCommand({
        TableName: conn.table,
        KeyConditionExpression: range.condition,
        ExpressionAttributeValues: range.values,
        ConsistentRead: true,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
      conn.signal === undefined ? undefined : { abortSignal: conn.signal },
    );
    yield* (out.Items ?? []) as Record<string, unknown>[];
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined);
}

/** Writes items in one batch, retrying what DynamoDB leaves unprocessed (throttling) with backoff. */
export async function writeBatch(
  conn: ScopeConnection,
  chunk: ReadonlyArray<{ PutRequest: { Item: Record<string, unknown> } }>,
  what = 'snapshot(s)',
): Promise<void> {
  let pending = [...chunk];
  for (let attempt = 1; pending.length > 0; attempt++) {
    conn.stats.writes++;
    const out = await conn.doc.send(
      new BatchWriteCommand({ RequestItems: { [conn.table]: pending } }),
      conn.signal === undefined ? undefined : { abortSignal: conn.signal },
    );
    pending = (out.UnprocessedItems?.[conn.table] ?? []) as typeof pending;
    if (pending.length === 0) return;
    if (attempt >= BATCH_ATTEMPTS) {
      throw new Error(`DynamoDB left ${pending.length} ${what} unprocessed after ${attempt} attempts`);
    }
    // Throttled: back off with full jitter, as the SDK does for its own retries.
    await sleep(fullJitterMs(attempt, 50, 2000));
  }
}

/** One outbox scope's state and alerts in the table. */
export class DynamoScopeStore<S> implements StateStore<S> {
  constructor(
    private readonly conn: ScopeConnection,
    private readonly layout: ScopeLayout<S>,
  ) {}

  /** The same scope, each of its requests aborted once `signal` aborts (a view: what it overrides, it keeps). */
  withSignal(signal: AbortSignal): DynamoScopeStore<S> {
    return Object.assign(Object.create(this) as DynamoScopeStore<S>, { conn: { ...this.conn, signal } });
  }

  private get http(): { abortSignal: AbortSignal } | undefined {
    return this.conn.signal === undefined ? undefined : { abortSignal: this.conn.signal };
  }

  private get stateKey(): Record<string, string> {
    return { pk: KEY.state, sk: this.layout.stateSort };
  }

  /** Counts a request about to be sent. */
  private tally(write: boolean): DynamoDBDocumentClient {
    if (write) this.conn.stats.writes++;
    else this.conn.stats.reads++;
    return this.conn.doc;
  }

  async load(): Promise<VersionedState<S>> {
    const out = await this.tally(false).send(
      new GetCommand({ TableName: this.conn.table, Key: this.stateKey, ConsistentRead: true }),
      this.http,
    );
    return this.fromItem(out.Item);
  }

  /** The scope's state item as read (by {@link load}, or by a Query over several rule items at once). */
  async fromItem(item: Record<string, unknown> | undefined): Promise<VersionedState<S>> {
    if (item === undefined) return { state: this.layout.initial, version: 0, outbox: [] };
    const inState = Object.values((item['outbox'] ?? {}) as Record<string, Record<string, unknown>>).map(
      (entry) => fromStoredAlert(entry) as unknown as OutboxEntry,
    );
    const spilled = item['spilled'] === true ? await this.loadSpilled(num(item['spillGen']) ?? 0) : [];
    // While a spill is under way an alert can be in both places; the state item's copy is the one that counts.
    const held = new Set(inState.map((e) => e.seq));
    const outbox = [...inState, ...spilled.filter((e) => !held.has(e.seq))].sort((a, b) => a.seq - b.seq);
    const heldRev = num(item['heldRev']) ?? 0;
    return {
      state: this.layout.decode(item['state']),
      version: num(item['version']) ?? 0,
      outbox,
      ...(heldRev === 0 ? {} : { held: toHeldChanges(item['held']), heldRev }),
    };
  }

  /** Alerts moved out of the state item; when none is left, the state item stops saying there are. */
  private async loadSpilled(spillGen: number): Promise<OutboxEntry[]> {
    const entries: OutboxEntry[] = [];
    const range: KeyRange = {
      condition: `pk = :pk AND ${this.layout.spillRange.condition}`,
      values: { ':pk': KEY.outbox, ...this.layout.spillRange.values },
    };
    for await (const item of queryItems(this.conn, range)) {
      const { pk: _pk, sk: _sk, ...entry } = item;
      entries.push({ ...(fromStoredAlert(entry) as unknown as OutboxEntry), spilled: true });
    }
    if (entries.length === 0) {
      // Only if no spill happened since (spillGen unchanged); otherwise the next load finds its alerts.
      await this.tally(true)
        .send(
          new UpdateCommand({
            TableName: this.conn.table,
            Key: this.stateKey,
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
      PutRequest: { Item: { pk: KEY.outbox, sk: this.layout.spillSort(alert.seq), ...storedAlert(alert) } },
    }));
    for (let i = 0; i < puts.length; i += BATCH_SIZE) {
      await writeBatch(this.conn, puts.slice(i, i + BATCH_SIZE), 'alert(s)');
    }
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
    try {
      await this.tally(true).send(
        new UpdateCommand({
          TableName: this.conn.table,
          Key: this.stateKey,
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
    next: S,
    expectedVersion: number,
    alerts: readonly AlertRecord[],
    claim?: { readonly claimant: string; readonly untilMs: number },
  ): Promise<boolean> {
    const entries = alerts.map((a) =>
      storedAlert(claim === undefined ? a : { ...a, claimedBy: claim.claimant, claimUntil: claim.untilMs }),
    );
    const state = this.layout.encode(next);
    try {
      if (expectedVersion === 0) {
        await this.tally(true).send(
          new PutCommand({
            TableName: this.conn.table,
            Item: {
              ...this.stateKey,
              version: 1,
              state,
              outbox: Object.fromEntries(entries.map((a, i) => [seqKey(alerts[i]!.seq), a])),
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
        ':next': state,
        ':version': expectedVersion + 1,
        ':expected': expectedVersion,
      };
      const sets = ['#state = :next', 'version = :version'];
      entries.forEach((alert, i) => {
        names[`#a${i}`] = seqKey(alerts[i]!.seq);
        values[`:a${i}`] = alert;
        sets.push(`#outbox.#a${i} = :a${i}`);
      });
      await this.tally(true).send(
        new UpdateCommand({
          TableName: this.conn.table,
          Key: this.stateKey,
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
    const fields = Object.entries(eventItem(alert, this.layout.eventScope)).filter(
      ([name, value]) => value !== undefined && name !== 'pk' && name !== 'sk',
    );
    const out = await this.tally(true).send(
      new UpdateCommand({
        TableName: this.conn.table,
        Key: { pk: KEY.event, sk: eventSortKey(alert, this.layout.eventScope) },
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
    await this.tally(true).send(
      new UpdateCommand({
        TableName: this.conn.table,
        Key: { pk: KEY.event, sk: eventSortKey(alert, this.layout.eventScope) },
        UpdateExpression: 'SET messageId = :id',
        ExpressionAttributeValues: { ':id': messageId },
      }),
      this.http,
    );
  }

  async markSuppressed(alert: AlertRecord, silenceId: string): Promise<void> {
    await this.tally(true).send(
      new UpdateCommand({
        TableName: this.conn.table,
        Key: { pk: KEY.event, sk: eventSortKey(alert, this.layout.eventScope) },
        UpdateExpression: 'SET suppressedBy = :id',
        ExpressionAttributeValues: { ':id': silenceId },
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
    await this.tally(true)
      .send(
        new DeleteCommand({
          TableName: this.conn.table,
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

  async settle(entry: OutboxRef, claimant: string, held: HeldChanges, heldRev: number): Promise<boolean> {
    const names = { '#held': 'held', '#rev': 'heldRev' };
    const values = omit(
      { ':held': held, ':rev': heldRev, ':next': heldRev + 1 },
      heldRev === 0 ? ':rev' : '',
    );
    const unchanged = heldRev === 0 ? 'attribute_not_exists(#rev)' : '#rev = :rev';
    if (entry.spilled !== true) {
      // The alert's removal and what is held back after it, in one write: a crash cannot split them.
      return this.conditionalUpdate(
        { ...this.locate(entry), names: { ...this.locate(entry).names, ...names } },
        {
          update: 'REMOVE #outbox.#a SET #held = :held, #rev = :next',
          condition: `#outbox.#a.claimedBy = :me AND ${unchanged}`,
          values: { ...values, ':me': claimant },
        },
      );
    }
    // A spilled alert lives in an item of its own: `held` first; a cycle that finds the alert again decides
    // the same from it (see afterAlert), and then removes it.
    const written = await this.conditionalUpdate(
      { key: this.stateKey, path: '', exists: 'attribute_exists(pk)', names },
      {
        update: 'SET #held = :held, #rev = :next',
        condition: `attribute_exists(pk) AND ${unchanged}`,
        values,
      },
    );
    if (written) await this.complete(entry, claimant);
    return written;
  }

  async announce(
    loaded: VersionedState<S>,
    alerts: ReadonlyArray<NewAlertRecord>,
    held: HeldChanges,
    claim: { readonly claimant: string; readonly untilMs: number },
  ): Promise<AlertRecord[] | undefined> {
    // Both states number their alerts with `nextSeq` (the monitor's and a rule item's).
    const first = (loaded.state as { readonly nextSeq?: unknown }).nextSeq;
    if (typeof first !== 'number' || !Number.isSafeInteger(first) || loaded.version === 0) return undefined;
    const records = alerts.map((alert, i) => ({ ...alert, seq: first + i }) as AlertRecord);
    const heldRev = loaded.heldRev ?? 0;
    const names: Record<string, string> = { '#state': 'state', '#held': 'held', '#rev': 'heldRev' };
    const values: Record<string, unknown> = {
      ':next': this.layout.encode({ ...loaded.state, nextSeq: first + records.length }),
      ':version': loaded.version + 1,
      ':expected': loaded.version,
      ':held': held,
      ':rev': heldRev,
      ':nextRev': heldRev + 1,
    };
    const sets = ['#state = :next', 'version = :version', '#held = :held', '#rev = :nextRev'];
    if (records.length > 0) names['#outbox'] = 'outbox';
    records.forEach((alert, i) => {
      names[`#a${i}`] = seqKey(alert.seq);
      values[`:a${i}`] = storedAlert({ ...alert, claimedBy: claim.claimant, claimUntil: claim.untilMs });
      sets.push(`#outbox.#a${i} = :a${i}`);
    });
    try {
      await this.tally(true).send(
        new UpdateCommand({
          TableName: this.conn.table,
          Key: this.stateKey,
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `version = :expected AND ${heldRev === 0 ? 'attribute_not_exists(#rev)' : '#rev = :rev'}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: heldRev === 0 ? omit(values, ':rev') : values,
        }),
        this.http,
      );
      return records;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
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
      ? {
          key: { pk: KEY.outbox, sk: this.layout.spillSort(entry.seq) },
          path: '',
          exists: 'attribute_exists(pk)',
        }
      : {
          key: this.stateKey,
          path: '#outbox.#a.',
          exists: 'attribute_exists(#outbox.#a)',
          names: { '#outbox': 'outbox', '#a': seqKey(entry.seq) },
        };
  }

  private async conditionalUpdate(
    at: Location,
    expression: { update: string; condition: string; values: Record<string, unknown> },
  ): Promise<boolean> {
    try {
      await this.tally(true).send(
        new UpdateCommand({
          TableName: this.conn.table,
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
