/**
 * A cycle from a clock ahead (issue 19.3, docs/design/cycle.md, Clocks): whole cycles against dynalite and a loopback API,
 * one of them run with a clock an hour ahead, and the CLI's check of its clock against the store's.
 */
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { ClockSkewError, StoreClock } from '../../lambda/adapters/store-clock.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const HOUR = 3_600_000;

describe('a cycle from a clock 1 h ahead against the same table (issue 19.3)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let sns: SNSClient;
  let accepted: PublishCommandInput[];
  let warnings: string[];
  let status: string;
  let pps: number;

  beforeEach(async () => {
    [api, dynamo] = await Promise.all([startFakeApi({ key: 'test-key-0123456789' }), startDynamo()]);
    sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const snsMock = mockClient(sns);
    accepted = [];
    warnings = [];
    snsMock.on(PublishCommand).callsFake(async (input: PublishCommandInput) => {
      accepted.push(input);
      return { MessageId: `m-${accepted.length}` };
    });
    status = 'active';
    pps = 100;
    api.filter = () => ({ body: { status } });
    api.network = () => ({ body: { traffic: { in: { pps } } } });
  });
  afterEach(async () => {
    sns.destroy();
    await api.close();
    await dynamo.close();
  });

  /** A monitor whose clock is `aheadMs` ahead of the real one. */
  function monitor(aheadMs: number): Monitor {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: 'net-1',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '1000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_CONFIRMATIONS: '1',
      SHIELDWATCH_RULES: 'attack: traffic.in.pps > 1000',
      SHIELDWATCH_GROUP_BY: 'none',
    };
    const log: CycleLog = { info: () => {}, warn: (message) => warnings.push(message), error: () => {} };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      log,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: () => Date.now() + aheadMs,
    });
  }

  /** One cycle of `m`, with the CLI's default budget. */
  const cycle = (m: Monitor) => runCycle(m.deps, m.settings, m.deps.now() + 30_000);

  it('the cycles after it still see a status change and an attack', async () => {
    // Prepare: a baseline on a correct clock, then one cycle from a machine an hour ahead.
    const honest = monitor(0);
    const ahead = monitor(HOUR);
    const baseline = await cycle(honest);
    const skewed = await cycle(ahead);

    // Act: correct clocks again; the status changes and an attack begins.
    status = 'paused';
    pps = 5000;
    const next = await cycle(honest);

    // Assess
    expect(baseline.stale).toBe(false);
    expect(skewed.stale).toBe(false);
    expect(next.stale).toBe(false);
    expect(next.status).toBe('paused');
    expect(next.queued.map((a) => a.event).sort()).toStrictEqual([
      'filter.status_changed',
      'network.rule_triggered',
    ]);
    expect(accepted.map((p) => p.MessageAttributes?.['event']?.StringValue).sort()).toStrictEqual([
      'filter.status_changed',
      'network.rule_triggered',
    ]);
    expect(warnings.some((w) => w.includes('clock ahead'))).toBe(true);
  });

  it('a duplicate of an applied cycle is still stale', async () => {
    // Prepare
    const honest = monitor(0);
    await cycle(honest);
    status = 'paused';
    pps = 5000;
    const fixed = Date.now();
    const replayed = { ...honest, deps: { ...honest.deps, now: () => fixed } };
    const first = await runCycle(replayed.deps, replayed.settings, fixed + 30_000);

    // Act: the same cycle time again (a retried invocation).
    const again = await runCycle(replayed.deps, replayed.settings, fixed + 30_000);

    // Assess
    expect(first.queued).toHaveLength(2);
    expect(again.stale).toBe(true);
    expect(again.queued).toStrictEqual([]);
    expect(accepted).toHaveLength(2);
  });
});

describe("the CLI's clock check against the store's Date header (issue 19.3)", () => {
  let dynamo: LocalDynamo;
  beforeEach(async () => {
    dynamo = await startDynamo();
  });
  afterEach(async () => {
    await dynamo.close();
  });

  it('measures a correct clock within a couple of seconds and lets it run', async () => {
    const clock = new StoreClock(dynamo.client, dynamo.table, Date.now);
    const offset = await clock.offsetMs();
    expect(offset).toBeDefined();
    expect(Math.abs(offset!)).toBeLessThan(2000);
    await expect(clock.check()).resolves.toBeUndefined();
  });

  it('refuses a clock 1 h ahead, naming the offset, and writes nothing', async () => {
    const clock = new StoreClock(dynamo.client, dynamo.table, () => Date.now() + HOUR);
    const error = await clock.check().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClockSkewError);
    expect(Math.abs((error as ClockSkewError).offsetMs + HOUR)).toBeLessThan(2000);
    expect((error as Error).message).toMatch(/clock is 1 h 0 min( \d+ s)? ahead of the store's/);
    expect(dynamo.operations).toStrictEqual(['GetItem']);
  });
});
