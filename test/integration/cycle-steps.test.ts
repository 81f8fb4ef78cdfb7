/**
 * The cycle's steps as they now are (issue 20.1, 20.7): snapshot batches written while requests go on, and a
 * request the operator stopped recorded with the failure kind `cut_short`, no evidence to any judge.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromSnapshotItem } from '../../lambda/adapters/dynamo-items.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { computeUptime } from '../../lambda/core/uptime.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

describe('the cycle’s steps (dynalite, loopback API)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  beforeEach(async () => {
    [api, dynamo] = await Promise.all([startFakeApi({ key: 'test-key-0123456789' }), startDynamo()]);
    api.filter = () => ({ body: { status: 'active' } });
  });
  afterEach(async () => {
    await Promise.all([api.close(), dynamo.close()]);
  });

  function monitor(networks: readonly string[]): Monitor {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: networks.join(','),
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TIMEOUT_MS: '5000',
      SHIELDWATCH_RETRIES: '0',
    };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
    });
  }

  it('writes each snapshot batch as it fills, while a slow request is still out: as many writes as before', async () => {
    // Prepare: 60 networks and the filter; the last network answers once two batches are stored, or after 2 s
    const networks = Array.from({ length: 60 }, (_, i) => `net-${i}`);
    const m = monitor(networks);
    const batchWrites = () => dynamo.operations.filter((op) => op === 'BatchWriteItem').length;
    let writtenBeforeLast = -1;
    api.network = async (networkId) => {
      if (networkId === 'net-59') {
        const until = Date.now() + 2000;
        while (batchWrites() < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        writtenBeforeLast = batchWrites();
      }
      return { body: { traffic: { in: { pps: 1 } } } };
    };
    dynamo.operations.length = 0;
    // Act
    const result = await runCycle(m.deps, m.settings, Date.now() + 20_000);
    // Assess: two full batches stored before the last answer, the third (11) after it; all 61 stored
    expect(writtenBeforeLast).toBe(2);
    expect(batchWrites()).toBe(3);
    expect(result.networks.every((n) => n.ok)).toBe(true);
    const stored = await Promise.all(
      networks.map((networkId) => m.store.querySnapshots({ kind: 'network', networkId }, {})),
    );
    expect(stored.map((s) => s.length)).toEqual(networks.map(() => 1));
    expect(await m.store.querySnapshots({ kind: 'filter' }, {})).toHaveLength(1);
  });

  it('a cycle the operator stopped records its requests as cut short, a kind no judge takes as evidence', async () => {
    // Prepare: a first cycle sets the baseline status; then the filter would read another status
    const m = monitor(['net-1']);
    api.network = () => ({ body: { traffic: { in: { pps: 1 } } } });
    await runCycle(m.deps, m.settings, Date.now() + 10_000);
    api.filter = () => ({ delayMs: 2000, body: { status: 'bypass' } });
    api.network = () => ({ delayMs: 2000, body: { traffic: { in: { pps: 1 } } } });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    // Act
    const result = await runCycle(m.deps, m.settings, Date.now() + 10_000, { signal: stop.signal });
    // Assess: both snapshots cut short, by kind; the status is unchanged and no alert is queued
    expect(result.cutShort).toBe(true);
    expect(result.filter).toMatchObject({ ok: false, errorKind: 'cut_short' });
    expect(result.filter?.error).toMatch(/^cut short: the monitor was stopped \(aborted/);
    expect(result.networks[0]).toMatchObject({ ok: false, errorKind: 'cut_short' });
    expect(result.queued).toEqual([]);
    expect(result.status).toBe('active');
    const history = await m.store.querySnapshots({ kind: 'filter' }, {});
    expect(history.map((s) => s.errorKind)).toEqual([undefined, 'cut_short']);
    const uptime = computeUptime(history, { untilMs: Date.now() + 1000 });
    expect(uptime.availability).toMatchObject({ cycles: 1, cutShort: 1 });
  });

  it.each([
    {
      error: 'cut short: the monitor was stopped (aborted after 812 ms)',
      errorKind: 'transport',
      kind: 'cut_short',
    },
    { error: 'cut short: the monitor was stopped after 20 ms', errorKind: 'transport', kind: 'cut_short' },
    { error: 'timed out after 5000 ms', errorKind: 'transport', kind: 'transport' },
    { error: 'cut short: the monitor was stopped (aborted)', errorKind: 'cut_short', kind: 'cut_short' },
    { error: 'cut short (body)', errorKind: 'contract', kind: 'contract' },
  ])('a snapshot stored as $errorKind "$error" reads as $kind', ({ error, errorKind, kind }) => {
    const snapshot = fromSnapshotItem({
      kind: 'filter',
      at: '2026-01-01T00:00:00.000Z',
      ok: false,
      error,
      errorKind,
    });
    expect(snapshot.errorKind).toBe(kind);
  });
});
