/** The silence store against dynalite: put, list, end (conditional); and the suppression note on an event. */
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { DynamoSilenceStore, SILENCE_KEPT_MS } from '../../lambda/adapters/silence-store.ts';
import type { Silence } from '../../lambda/core/silences/silence.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function silence(id: string, minutes = 60): Silence {
  return {
    id,
    startsAt: iso(T0),
    endsAt: iso(T0 + minutes * 60_000),
    pattern: 'network.*',
    reason: 'router swap',
    createdAt: iso(T0),
    createdBy: 'ops@host',
  };
}

describe('DynamoSilenceStore', () => {
  let dynamo: LocalDynamo;
  let store: DynamoSilenceStore;
  beforeEach(async () => {
    dynamo = await startDynamo();
    store = new DynamoSilenceStore(dynamo.client, dynamo.table);
  });
  afterEach(async () => {
    await dynamo.close();
  });

  const item = async (pk: string, sk: string) =>
    (
      await DynamoDBDocumentClient.from(dynamo.client).send(
        new GetCommand({ TableName: dynamo.table, Key: { pk, sk } }),
      )
    ).Item;

  it('stores a silence under pk silence, sk its id, with a TTL a week after it ends, and lists it', async () => {
    // Prepare
    const s = silence('s-aaaaaaaa');
    // Act
    expect(await store.put(s)).toBe(true);
    // Assess
    expect(await store.list()).toEqual([s]);
    const stored = await item('silence', 's-aaaaaaaa');
    expect(stored?.['expiresAt']).toBe(Math.floor((T0 + 3_600_000 + SILENCE_KEPT_MS) / 1000));
  });

  it('refuses an id that is taken, keeping the first silence', async () => {
    await store.put(silence('s-aaaaaaaa', 60));
    expect(await store.put(silence('s-aaaaaaaa', 120))).toBe(false);
    expect((await store.list())[0]?.endsAt).toBe(iso(T0 + 3_600_000));
  });

  it('lists nothing on an empty table, and passes over an item that is not a silence', async () => {
    expect(await store.list()).toEqual([]);
    await DynamoDBDocumentClient.from(dynamo.client).send(
      new PutCommand({
        TableName: dynamo.table,
        Item: { pk: 'silence', sk: 's-broken00', pattern: '*' },
      }),
    );
    await store.put(silence('s-bbbbbbbb'));
    expect((await store.list()).map((s) => s.id)).toEqual(['s-bbbbbbbb']);
  });

  it('ends a silence now, once: a second end says it had ended, an unknown id says missing', async () => {
    await store.put(silence('s-aaaaaaaa'));
    const now = T0 + 10 * 60_000;
    const ended = await store.end('s-aaaaaaaa', now);
    expect(ended).toEqual({ outcome: 'ended', silence: { ...silence('s-aaaaaaaa'), endsAt: iso(now) } });
    expect((await item('silence', 's-aaaaaaaa'))?.['expiresAt']).toBe(
      Math.floor((now + SILENCE_KEPT_MS) / 1000),
    );
    const again = await store.end('s-aaaaaaaa', now + 1000);
    expect(again.outcome).toBe('already-ended');
    expect((await store.list())[0]?.endsAt).toBe(iso(now));
    expect(await store.end('s-zzzzzzzz', now)).toEqual({ outcome: 'missing' });
    expect(await item('silence', 's-zzzzzzzz')).toBeUndefined();
  });

  it("the state store notes the silence on the alert's event item, kept with it and read back by queryEvents", async () => {
    const events = new DynamoStore(dynamo.client, dynamo.table);
    const alert = { seq: 3, event: 'filter.status_changed' as const, at: iso(T0 + 1000), from: 'a', to: 'b' };
    await events.recordEvent(alert);
    await events.markSuppressed(alert, 's-aaaaaaaa');
    const stored = await item('event', `${alert.at}#000000000003`);
    expect(stored?.['suppressedBy']).toBe('s-aaaaaaaa');
    expect(stored?.['to']).toBe('b');
    expect(await events.queryEvents({})).toEqual([
      expect.objectContaining({ seq: 3, to: 'b', suppressedBy: 's-aaaaaaaa' }),
    ]);
  });

  it('honours an abort signal', async () => {
    const abort = new AbortController();
    abort.abort();
    await expect(store.withSignal(abort.signal).list()).rejects.toThrow();
    expect(store.stats.reads).toBe(1);
  });
});
