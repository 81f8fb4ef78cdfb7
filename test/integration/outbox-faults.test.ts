/**
 * Exactly one alert per transition when the store or SNS fail at the worst moment: a throttled removal of a
 * published alert, an SNS answer lost after SNS accepted the message, a deadline that leaves no room for a
 * publish, and snapshots that cannot be stored after the state was committed. Real parts on loopback: dynalite
 * behind a proxy that throttles or refuses chosen requests, a fake SNS endpoint, a fake protection API.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSnsClient } from '../../lambda/adapters/sns-client.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { CLAIM_GRACE_MS, type CycleLog, runCycle, StoreError } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import {
  type DynamoProxy,
  type FakeSns,
  isOutboxRemoval,
  type SnsMode,
  startDynamoProxy,
  startFakeSns,
} from '../fixtures/fake-aws.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

/** An SNS that accepts everything, through aws-sdk-client-mock. */
function mockedSns() {
  const client = new SNSClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const mock = mockClient(client);
  let ids = 0;
  mock.on(PublishCommand).callsFake(async () => ({ MessageId: `m-${++ids}` }));
  return { client, mock, published: () => mock.commandCalls(PublishCommand).length };
}

describe('exactly once under store and SNS faults', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let proxy: DynamoProxy;
  const clients: DynamoDBClient[] = [];
  /** The monitors' clock runs this far ahead of the real one (a later schedule tick). */
  let offset = 0;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'outbox-faults-key-0123' });
    dynamo = await startDynamo();
    proxy = await startDynamoProxy(dynamo.endpoint);
    offset = 0;
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await proxy.close();
    await api.close();
    await dynamo.close();
  });

  /** A monitor as one process builds it (a cold start), talking to DynamoDB through the proxy. */
  const monitor = (sns: SNSClient, extraEnv: Record<string, string> = {}): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: 'net-1',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '3000',
      SHIELDWATCH_RETRIES: '0',
      ...extraEnv,
    };
    const client = new DynamoDBClient({
      endpoint: proxy.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    clients.push(client);
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: client,
      sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: () => Date.now() + offset,
    });
  };
  const cycle = (m: Monitor, budgetMs = 4000) => runCycle(m.deps, m.settings, m.deps.now() + budgetMs);
  /** The next schedule tick: every claim of the cycles so far has expired. */
  const nextTick = () => {
    offset += 10_000 + CLAIM_GRACE_MS;
  };
  const removals = () => proxy.requests.filter((r) => isOutboxRemoval(r.operation, r.body));
  const marks = (op: string, body: Record<string, unknown>) =>
    op === 'UpdateItem' && String(body['UpdateExpression']).startsWith('SET messageId');

  describe('a published alert whose removal from the outbox DynamoDB throttles', () => {
    it('is retried with backoff within the cycle: removed by the same cycle once the throttling stops', async () => {
      // Prepare
      const sns = mockedSns();
      const m = monitor(sns.client);
      api.filter = () => ({ body: { status: 'A' } });
      await cycle(m);
      api.filter = () => ({ body: { status: 'B' } });
      let throttled = 0;
      proxy.fault = (op, body) => (isOutboxRemoval(op, body) && throttled++ < 4 ? 'throttle' : undefined);

      // Act: each removal call is tried three times by the SDK itself, with its own back-off.
      const result = await cycle(m, 8000);

      // Assess
      expect(result.delivered).toHaveLength(1);
      expect(removals().length).toBeGreaterThan(4);
      expect(removals().at(-1)?.fault).toBeUndefined();
      expect((await m.store.load()).outbox).toEqual([]);
      expect(sns.published()).toBe(1);
    });

    it('throttled until the deadline: the next cycle, even in a new process, removes it without sending it again', async () => {
      // Prepare
      const sns = mockedSns();
      const first = monitor(sns.client);
      api.filter = () => ({ body: { status: 'A' } });
      await cycle(first);
      api.filter = () => ({ body: { status: 'B' } });
      proxy.fault = (op, body) => (isOutboxRemoval(op, body) ? 'throttle' : undefined);

      // Act
      const started = Date.now();
      const publishing = await cycle(first, 4000);
      const elapsed = Date.now() - started;
      const stuck = (await first.store.load()).outbox;
      proxy.fault = () => undefined;
      nextTick();
      const coldStart = monitor(sns.client);
      const next = await cycle(coldStart);
      const later = await cycle(coldStart);

      // Assess
      expect(publishing.delivered).toHaveLength(1);
      expect(elapsed).toBeLessThan(4000 + 1000);
      expect(removals().filter((r) => r.fault === 'throttle').length).toBeGreaterThan(1);
      expect(stuck.map((e) => e.to)).toEqual(['B']);
      expect(next.delivered).toEqual([
        expect.objectContaining({ event: 'filter.status_changed', alreadyPublished: true }),
      ]);
      expect(next.delivered[0]?.messageId).toBe(publishing.delivered[0]?.messageId);
      expect(later.delivered).toEqual([]);
      expect((await coldStart.store.load()).outbox).toEqual([]);
      expect(sns.published()).toBe(1);
      expect((await coldStart.store.queryEvents({})).map((e) => e.to)).toEqual(['B']);
    });

    it('throttled, and the message id could not be recorded either: the same process remembers it', async () => {
      // Prepare
      const sns = mockedSns();
      const m = monitor(sns.client);
      api.filter = () => ({ body: { status: 'A' } });
      await cycle(m);
      api.filter = () => ({ body: { status: 'B' } });
      proxy.fault = (op, body) => (isOutboxRemoval(op, body) || marks(op, body) ? 'throttle' : undefined);

      // Act
      const publishing = await cycle(m, 4000);
      proxy.fault = () => undefined;
      nextTick();
      const warm = await cycle(m);

      // Assess
      expect(publishing.delivered).toHaveLength(1);
      expect(proxy.requests.some((r) => marks(r.operation, r.body) && r.fault === 'throttle')).toBe(true);
      expect(warm.delivered).toEqual([expect.objectContaining({ alreadyPublished: true })]);
      expect((await m.store.load()).outbox).toEqual([]);
      expect(sns.published()).toBe(1);
    });

    it('the window that remains (README): neither write lands and the next cycle runs in another process', async () => {
      // Prepare
      const sns = mockedSns();
      const first = monitor(sns.client);
      api.filter = () => ({ body: { status: 'A' } });
      await cycle(first);
      api.filter = () => ({ body: { status: 'B' } });
      proxy.fault = (op, body) => (isOutboxRemoval(op, body) || marks(op, body) ? 'throttle' : undefined);

      // Act
      await cycle(first, 4000);
      proxy.fault = () => undefined;
      nextTick();
      const next = await cycle(monitor(sns.client));

      // Assess: sent again rather than lost.
      expect(next.delivered).toEqual([expect.objectContaining({ event: 'filter.status_changed' })]);
      expect(next.delivered[0]?.alreadyPublished).toBeUndefined();
      expect(sns.published()).toBe(2);
    });
  });

  describe('a publish whose answer is lost after SNS accepted it (real SNS client, fake SNS endpoint)', () => {
    let fakeSns: FakeSns;
    beforeEach(async () => {
      fakeSns = await startFakeSns();
      // The SDK itself reads the endpoint from the environment, as on Lambda and the CLI.
      vi.stubEnv('AWS_ENDPOINT_URL_SNS', fakeSns.url);
    });
    afterEach(async () => {
      vi.unstubAllEnvs();
      await fakeSns.close();
    });

    it.each<SnsMode>(['accept-then-internal-error', 'accept-then-reset', 'accept-then-hang'])(
      '%s: one Publish request per cycle, never an SDK retry; the alert stays in the outbox for the next cycle',
      async (mode) => {
        // Prepare
        const client = createSnsClient(process.env);
        const m = monitor(client);
        api.filter = () => ({ body: { status: 'A' } });
        await cycle(m);
        api.filter = () => ({ body: { status: 'B' } });
        fakeSns.mode = mode;

        // Act
        const started = Date.now();
        const lost = await cycle(m, 4000);
        const elapsed = Date.now() - started;
        const requestsDuringLoss = fakeSns.requests.length;
        fakeSns.mode = 'ok';
        nextTick();
        const next = await cycle(m);
        client.destroy();

        // Assess
        expect(requestsDuringLoss).toBe(1);
        expect(lost.failed).toHaveLength(1);
        expect(lost.pending).toBe(1);
        expect(elapsed).toBeLessThan(4000 + 1000);
        expect(next.delivered).toHaveLength(1);
        expect(fakeSns.requests).toEqual(['Publish', 'Publish']);
        // SNS had accepted the first one: the duplicate docs/design/exactly-once.md names.
        expect(fakeSns.publishes.map((p) => p.attributes['to'])).toEqual(['B', 'B']);
      },
    );
  });

  it('does not start a publish with only a sliver of the deadline left, and hands the claim back at once', async () => {
    // Prepare: by the monitor's clock the state write answers 3.7 s late, leaving at most 0.3 s of a 4 s
    // budget (the floor is 0.5 s); the store's own deadline runs on real time and is not reached.
    const sns = mockedSns();
    const m = monitor(sns.client);
    api.filter = () => ({ body: { status: 'A' } });
    await cycle(m);
    api.filter = () => ({ body: { status: 'B' } });
    const slow = Object.create(m.store) as typeof m.store;
    slow.commit = async (...args) => {
      offset += 3700;
      return m.store.commit(...args);
    };

    // Act
    const late = await runCycle({ ...m.deps, state: slow }, m.settings, m.deps.now() + 4000);
    const right = await cycle(m);

    // Assess
    expect(late.queued).toHaveLength(1);
    expect(late.delivered).toEqual([]);
    expect(late.failed).toEqual([]);
    expect(late.pending).toBe(1);
    expect(right.delivered).toHaveLength(1);
    expect(sns.published()).toBe(1);
  });

  describe('snapshots that cannot be stored after the state was committed', () => {
    it('the cycle still sends its alert and fails saying what it committed', async () => {
      // Prepare
      const sns = mockedSns();
      const m = monitor(sns.client);
      api.filter = () => ({ body: { status: 'A' } });
      await cycle(m);
      api.filter = () => ({ body: { status: 'B' } });
      proxy.fault = (op) => (op === 'BatchWriteItem' ? 'refuse' : undefined);

      // Act
      const run = cycle(m);

      // Assess
      const error = await run.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).message).toMatch(
        /^cannot store snapshots: .*ValidationException.*; the cycle ran in part: the monitor state was committed \(filter status "B"; 1 new alert\(s\): filter\.status_changed "A" -> "B"; 1 sent, 0 waiting/,
      );
      expect((error as StoreError).committed).toMatchObject({
        status: 'B',
        queued: [expect.objectContaining({ from: 'A', to: 'B' })],
        delivered: 1,
        pending: 0,
      });
      expect(sns.published()).toBe(1);
      expect((await m.store.load()).state.status).toBe('B');
    });

    it('an alert it could not send is sent by the next cycle at once, without waiting for a claim to expire', async () => {
      // Prepare
      const sns = mockedSns();
      const m = monitor(sns.client);
      api.filter = () => ({ body: { status: 'A' } });
      await cycle(m);
      api.filter = () => ({ body: { status: 'B' } });
      proxy.fault = (op) => (op === 'BatchWriteItem' ? 'refuse' : undefined);
      sns.mock.on(PublishCommand).rejects(Object.assign(new Error('SNS down'), { name: 'InternalError' }));

      // Act
      const failed = (await cycle(m).catch((e: unknown) => e)) as StoreError;
      proxy.fault = () => undefined;
      sns.mock.on(PublishCommand).resolves({ MessageId: 'later' });
      const next = await cycle(m);

      // Assess
      expect(failed.committed).toMatchObject({ status: 'B', delivered: 0, pending: 1 });
      expect(next.queued).toEqual([]);
      expect(next.delivered).toEqual([expect.objectContaining({ messageId: 'later' })]);
    });

    it('when the state cannot be read either, nothing was committed and the error does not say otherwise', async () => {
      // Prepare
      const sns = mockedSns();
      const m = monitor(sns.client);
      proxy.fault = (op) => (op === 'BatchWriteItem' || op === 'GetItem' ? 'refuse' : undefined);

      // Act
      const error = (await cycle(m).catch((e: unknown) => e)) as StoreError;

      // Assess
      expect(error).toBeInstanceOf(StoreError);
      expect(error.committed).toBeUndefined();
      expect(error.message).not.toMatch(/ran in part/);
    });
  });
});
