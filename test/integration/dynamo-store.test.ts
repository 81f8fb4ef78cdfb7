import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStore, MAX_STORED_BODY_BYTES } from '../../lambda/adapters/dynamo-store.ts';
import { INITIAL_STATE, type MonitorState } from '../../lambda/core/detect/decide.ts';
import type { AlertRecord, Snapshot } from '../../lambda/core/types.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';

const change = (seq: number, from: string, to: string): AlertRecord => ({
  seq,
  event: 'filter.status_changed',
  at: `2026-11-22T10:00:0${seq}.000Z`,
  from,
  to,
});

describe('DynamoStore on dynalite', () => {
  let dynamo: LocalDynamo;
  let store: DynamoStore;

  beforeAll(async () => {
    dynamo = await startDynamo();
    store = new DynamoStore(dynamo.client, dynamo.table);
  });
  afterAll(async () => dynamo.close());

  it('writes snapshots in batches of 25 and reads them back oldest first, with since/until/limit', async () => {
    // Prepare
    const snapshots: Snapshot[] = Array.from({ length: 60 }, (_, i) => ({
      target: { kind: 'network', networkId: 'net/1' },
      at: new Date(Date.UTC(2026, 10, 22, 10, 0, i)).toISOString(),
      cycleId: `c${i}`,
      ok: true,
      bodyText: JSON.stringify({ pps: i }),
      httpStatus: 200,
      latencyMs: 5,
    }));
    dynamo.operations.length = 0;

    // Act
    await store.putSnapshots(snapshots, 1_900_000_000);
    const all = await store.querySnapshots({ kind: 'network', networkId: 'net/1' }, {});
    const window = await store.querySnapshots(
      { kind: 'network', networkId: 'net/1' },
      { since: '2026-11-22T10:00:10.000Z', until: '2026-11-22T10:00:19.000Z' },
    );
    const latest = await store.querySnapshots({ kind: 'network', networkId: 'net/1' }, { limit: 5 });

    // Assess
    expect(dynamo.operations.filter((op) => op === 'BatchWriteItem')).toHaveLength(3);
    expect(all).toHaveLength(60);
    expect(all[0]).toMatchObject({
      ok: true,
      bodyText: '{"pps":0}',
      httpStatus: 200,
      target: { networkId: 'net/1' },
    });
    expect(window.map((s) => s.cycleId)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i + 10}`));
    expect(latest.map((s) => s.cycleId)).toEqual(['c55', 'c56', 'c57', 'c58', 'c59']);
    expect(await store.querySnapshots({ kind: 'network', networkId: 'net' }, {})).toEqual([]);
  });

  it('leaves out a body too large for an item and says so', async () => {
    // Prepare
    const big = JSON.stringify({ blob: 'x'.repeat(MAX_STORED_BODY_BYTES + 10) });

    // Act
    await store.putSnapshots(
      [
        {
          target: { kind: 'network', networkId: 'big' },
          at: '2026-11-22T10:00:00.000Z',
          cycleId: 'c',
          ok: true,
          bodyText: big,
        },
      ],
      1_900_000_000,
    );
    const [stored] = await store.querySnapshots({ kind: 'network', networkId: 'big' }, {});

    // Assess
    expect(stored?.bodyText).toBeUndefined();
    expect(stored?.bodyBytes).toBe(big.length);
    expect(stored?.error).toMatch(/too large to store/);
  });

  it('commits state conditionally, claims each outbox alert once, and records events idempotently', async () => {
    // Prepare
    const fresh = await store.load();
    const s1: MonitorState = {
      ...INITIAL_STATE,
      status: '',
      statusSince: '2026-11-22T10:00:00.000Z',
      nextSeq: 3,
    };

    // Act
    const first = await store.commit(s1, fresh.version, [change(1, 'a', 'b'), change(2, 'b', '')]);
    const duplicate = await store.commit(s1, fresh.version, [change(1, 'a', 'b')]);
    const loaded = await store.load();
    const claimA = await store.claim({ seq: 1 }, 'cycle-a', 1000, 61_000);
    const claimB = await store.claim({ seq: 1 }, 'cycle-b', 2000, 62_000);
    const takeover = await store.claim({ seq: 1 }, 'cycle-b', 61_001, 121_001);
    await store.release({ seq: 1 }, 'cycle-b', 'SNS down');
    const afterRelease = await store.load();
    const claimC = await store.claim({ seq: 1 }, 'cycle-c', 70_000, 130_000);
    await store.recordEvent(change(1, 'a', 'b'));
    await store.recordEvent(change(1, 'a', 'b'));
    await store.complete({ seq: 1 }, 'cycle-c');
    const afterComplete = await store.load();
    const events = await store.queryEvents({});

    // Assess
    expect(first).toBe(true);
    expect(duplicate).toBe(false);
    expect(loaded.version).toBe(1);
    expect(loaded.state.status).toBe('');
    expect(loaded.outbox.map((e) => e.seq)).toEqual([1, 2]);
    expect([claimA, claimB, takeover, claimC]).toEqual([true, false, true, true]);
    expect(afterRelease.outbox[0]).toMatchObject({ seq: 1, failures: 1, lastError: 'SNS down' });
    expect(afterRelease.outbox[0]?.claimedBy).toBeUndefined();
    expect(afterComplete.outbox.map((e) => e.seq)).toEqual([2]);
    expect(events).toEqual([
      { at: '2026-11-22T10:00:01.000Z', event: 'filter.status_changed', from: 'a', to: 'b', seq: 1 },
    ]);
  });

  it('records the message id of a published alert with its event, and returns it when the alert is recorded again', async () => {
    // Prepare
    const alert = change(7, 'x', 'y');

    // Act
    const first = await store.recordEvent(alert);
    await store.markPublished(alert, 'sns-message-7');
    const again = await store.recordEvent(alert);
    const stillThere = await store.recordEvent(alert);
    const events = await store.queryEvents({ since: alert.at, until: alert.at });

    // Assess
    expect(first).toBeUndefined();
    expect(again).toBe('sns-message-7');
    expect(stillThere).toBe('sns-message-7');
    expect(events).toEqual([{ at: alert.at, event: 'filter.status_changed', from: 'x', to: 'y', seq: 7 }]);
  });

  it('withSignal: the same store, its requests aborted once the signal aborts', async () => {
    // Prepare
    const abort = new AbortController();
    const bound = store.withSignal(abort.signal);
    const before = await bound.load();

    // Act
    abort.abort();
    // The rejection is awaited below; handle it from the start so it never counts as unhandled.
    const after = expect(bound.load()).rejects.toThrow(/abort/i);

    // Assess
    expect(before.version).toBe((await store.load()).version);
    await after;
    expect(bound.stats).toBe(store.stats);
  });

  it('appends to the outbox on a versioned update and refuses a stale version', async () => {
    // Prepare
    const current = await store.load();

    // Act
    const ok = await store.commit(current.state, current.version, [change(3, '', 'c')]);
    const stale = await store.commit(current.state, current.version, [change(4, 'c', 'd')]);
    const after = await store.load();

    // Assess
    expect(ok).toBe(true);
    expect(stale).toBe(false);
    expect(after.version).toBe(current.version + 1);
    expect(after.outbox.map((e) => e.seq)).toEqual([2, 3]);
  });

  it('spills unclaimed outbox alerts into items of their own, keeps the order, and sends them from there', async () => {
    // Prepare: a fresh state with five waiting alerts, the second one claimed by a live cycle
    const spillStore = new DynamoStore(dynamo.client, `${dynamo.table}`);
    const current = await spillStore.load();
    const waiting = [10, 11, 12, 13, 14]
      .map((seq) => change(seq % 10, `s${seq}`, `s${seq + 1}`))
      .map((a, i) => ({ ...a, seq: 10 + i }));
    await spillStore.commit(current.state, current.version, waiting);
    await spillStore.claim({ seq: 11 }, 'live-cycle', 1000, 999_999);
    const loaded = await spillStore.load();

    // Act
    const refused = await spillStore.spill(
      loaded.outbox.filter((e) => e.seq <= 12),
      2000,
    );
    const moved = await spillStore.spill(
      loaded.outbox.filter((e) => e.seq === 10 || e.seq === 12),
      2000,
    );
    const after = await spillStore.load();
    const claimSpilled = await spillStore.claim({ seq: 12, spilled: true }, 'me', 3000, 9000);
    const claimAgain = await spillStore.claim({ seq: 12, spilled: true }, 'other', 3001, 9001);
    await spillStore.complete({ seq: 12, spilled: true }, 'me');
    const end = await spillStore.load();

    // Assess
    expect(refused).toBe(false);
    expect(moved).toBe(true);
    const seqs = (outbox: readonly { seq: number }[]) => outbox.filter((e) => e.seq >= 10).map((e) => e.seq);
    expect(seqs(after.outbox)).toEqual([10, 11, 12, 13, 14]);
    expect(after.outbox.filter((e) => e.spilled).map((e) => e.seq)).toEqual([10, 12]);
    expect(after.outbox.find((e) => e.seq === 12)).toMatchObject({ from: 's12', to: 's13' });
    expect([claimSpilled, claimAgain]).toEqual([true, false]);
    expect(seqs(end.outbox)).toEqual([10, 11, 13, 14]);
  });

  it('rule items are outbox scopes of their own: the same sequence numbers never meet the monitor or another item', async () => {
    // Prepare: a fresh table; the monitor, rules#1 and rules#1#0 each with alert 1 at the same time, all spilled.
    const own = await startDynamo();
    const scoped = new DynamoStore(own.client, own.table);
    const rule = (network: string): AlertRecord => ({
      seq: 1,
      event: 'network.rule_triggered',
      at: '2026-11-22T10:00:01.000Z',
      rule: 'flood',
      network,
      value: 1e200,
      threshold: 5e4,
      ruleText: 'flood: pps > 50k',
      values: [1e200],
      incident: `flood/${network}/2026-11-22T10:00:01.000Z`,
    });
    const scopes = [scoped.ruleScope('rules#1'), scoped.ruleScope('rules#1#0')];
    await scoped.commit(INITIAL_STATE, 0, [change(1, 'a', 'b')]);
    await scopes[0]!.commit({ rules: { cells: {} }, nextSeq: 2 }, 0, [rule('net-a')]);
    await scopes[1]!.commit({ rules: { cells: {} }, nextSeq: 2 }, 0, [rule('net-b')]);

    // Act
    for (const store of [scoped, ...scopes]) {
      const { outbox } = await store.load();
      expect(await store.spill(outbox, Date.now())).toBe(true);
      await store.recordEvent(outbox[0]!);
    }
    const loaded = await Promise.all([scoped.load(), ...scopes.map((s) => s.load())]);
    await scopes[0]!.claim({ seq: 1, spilled: true }, 'me', Date.now(), Date.now() + 10_000);
    await scopes[0]!.complete({ seq: 1, spilled: true }, 'me');
    const afterComplete = await Promise.all([scoped.load(), ...scopes.map((s) => s.load())]);
    const events = await scoped.queryEvents({});
    await own.close();

    // Assess: each scope sees its own alert only, numbers beyond DynamoDB's range intact.
    expect(loaded.map((l) => l.outbox.map((e) => e.network ?? e.to))).toEqual([['b'], ['net-a'], ['net-b']]);
    expect(loaded[1]!.outbox[0]).toMatchObject({ value: 1e200, values: [1e200], spilled: true });
    expect(afterComplete.map((l) => l.outbox.length)).toEqual([1, 0, 1]);
    expect(events.map((e) => e.network ?? e.to).sort()).toEqual(['b', 'net-a', 'net-b']);
    expect(events.find((e) => e.network === 'net-a')).toMatchObject({
      rule: 'flood',
      value: 1e200,
      threshold: 5e4,
    });
  });
});
