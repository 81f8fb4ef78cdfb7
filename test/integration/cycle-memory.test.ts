/**
 * A cycle's memory is bounded (issue 15.1): a real `shieldwatch poll` in a child Node process with a heap
 * smaller than the 256 MB function's, against a loopback API that answers every one of 50 networks with a
 * body just under the 1 MiB cap, shaped to cost as much heap as possible once parsed. The cycle must finish,
 * store every snapshot and publish the status change that happened meanwhile.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_STORED_BODY_BYTES } from '../../lambda/adapters/dynamo-store.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { CYCLE_BODY_BUDGET_BYTES, type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { describeRun, dumpTable, runCli, startWorld, type World } from '../cli/helpers.ts';
import { nearCapBody } from '../fixtures/big-bodies.ts';
import { startDynamo } from '../fixtures/dynalite.ts';
import { startFakeApi } from '../fixtures/fake-api.ts';
import { bySize } from '../scale.ts';

/**
 * 50 networks: their near-cap bodies parse to about 50 x 25 MB, far past the child's heap, had the cycle kept
 * them; and, at about 290 KB each, 14.5 MB of storable bodies, past the per-cycle budget of 8 MiB.
 */
const NETWORKS = Array.from({ length: 50 }, (_, i) => `net-${i}`);
/**
 * The networks of the near-cap case: all 50 in `npm run test:slow`; 12 in `npm test`, still about 300 MB parsed had
 * the cycle kept them, over twice the child's heap, with more networks than requests in flight (10).
 */
const NEAR_CAP_NETWORKS = NETWORKS.slice(0, bySize(12, NETWORKS.length));
const CAP = 1024 * 1024;
/** The old-space heap of the child, in MB: well under the 256 MB function, loader and SDK included. */
const HEAP_MB = 128;

let world: World | undefined;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await world?.close();
  world = undefined;
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

describe('memory per cycle', () => {
  it(`stores every snapshot and publishes the change with ${NEAR_CAP_NETWORKS.length} near-cap bodies under a ${HEAP_MB} MB heap`, {
    timeout: 180_000,
  }, async () => {
    // Prepare: a baseline status from small bodies, then every network answers near the cap
    world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: NEAR_CAP_NETWORKS.join(','),
        SHIELDWATCH_CONCURRENCY: '10',
        SHIELDWATCH_TIMEOUT_MS: '10000',
        SHIELDWATCH_CYCLE_TIMEOUT_MS: '120000',
      },
    });
    const api = world.api;
    api.filter = () => ({ body: { status: 'on' } });
    const baseline = await runCli(['poll'], world.env, { timeoutMs: 120_000 });
    expect(baseline.code, describeRun(baseline)).toBe(0);
    const big = nearCapBody(CAP);
    expect(big.length).toBeGreaterThan(CAP - 4);
    api.network = () => ({ body: big });
    api.filter = () => ({ body: { status: 'off' } });

    // Act
    const run = await runCli(['poll'], world.env, {
      nodeArgs: [`--max-old-space-size=${HEAP_MB}`],
      timeoutMs: 150_000,
    });

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(world.sns.publishes.map((p) => p.attributes['event'])).toEqual(['filter.status_changed']);
    const items = JSON.parse(await dumpTable(world.dynamo)) as Array<
      Record<string, { S?: string; N?: string }>
    >;
    const second = items.filter(
      (item) => item['pk']?.S?.startsWith('network#') && item['body'] === undefined,
    );
    expect(new Set(second.map((item) => item['networkId']?.S))).toEqual(new Set(NEAR_CAP_NETWORKS));
    // A request may still fail on a busy machine (it is retried); every answered one is stored as a marker.
    const answered = second.filter((item) => item['httpStatus']?.N === '200');
    expect(answered.length).toBeGreaterThan(NEAR_CAP_NETWORKS.length / 2);
    for (const item of answered) {
      expect(Number(item['bodyBytes']?.N), JSON.stringify(item)).toBe(big.length);
      expect(item['error']?.S).toMatch(/body too large to store/);
    }
    expect(big.length).toBeGreaterThan(MAX_STORED_BODY_BYTES);
  });

  it('keeps network bodies for storage up to the per-cycle budget, then stores their size only', async () => {
    // Prepare: every network's body storable on its own, together far over the budget
    const body = nearCapBody(MAX_STORED_BODY_BYTES - 10_000);
    const api = await startFakeApi({ key: 'budget-test-key-0123', network: () => ({ body }) });
    const dynamo = await startDynamo();
    cleanups.push(
      () => api.close(),
      () => dynamo.close(),
    );
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: NETWORKS.join(','),
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_RETRIES: '0',
    };
    const monitor = buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
    });
    cleanups.push(() => monitor.close());

    // Act
    const result = await runCycle(monitor.deps, monitor.settings, Date.now() + 60_000);

    // Assess: the bodies kept fill the budget and no more; every other snapshot says why it has none
    const kept = result.networks.filter((s) => s.bodyText !== undefined);
    expect(kept.length).toBe(Math.floor(CYCLE_BODY_BUDGET_BYTES / body.length));
    const left = result.networks.filter((s) => s.bodyText === undefined);
    expect(left.length).toBe(NETWORKS.length - kept.length);
    for (const snapshot of left) {
      expect(snapshot).toMatchObject({ ok: true, bodyBytes: body.length });
      expect(snapshot.error).toMatch(
        /body not stored \(\d+ bytes\): this cycle's budget for stored bodies is spent/,
      );
    }
    const items = JSON.parse(await dumpTable(dynamo)) as Array<Record<string, { S?: string; N?: string }>>;
    const stored = items.filter((item) => item['pk']?.S?.startsWith('network#'));
    expect(stored).toHaveLength(NETWORKS.length);
    expect(stored.filter((item) => item['body'] !== undefined)).toHaveLength(kept.length);
    expect(result.filter?.bodyText).toBe('{"status":"active"}');
  }, 60_000);
});
