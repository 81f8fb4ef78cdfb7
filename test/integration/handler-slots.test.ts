import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { lambdaContext } from '../fixtures/lambda-context.ts';

/**
 * The deployed handler polling every 10 s (CONTRACT §18), invoked as EventBridge invokes it: once for the
 * minute, sometimes twice. The event's time is set 39.5 s in the past, so the invocation's remaining slots
 * are at 40 s and 50 s of its minute: the test takes about 11 s of real time.
 */
const KEY = 'handler-slots-key-8c1d2e';

describe('the handler at pollEvery 10s', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  const sns = mockClient(SNSClient);

  beforeAll(async () => {
    api = await startFakeApi({ key: KEY });
    dynamo = await startDynamo();
    vi.stubEnv('SHIELDWATCH_API_URL', api.url);
    vi.stubEnv('SHIELDWATCH_API_KEY', KEY);
    vi.stubEnv('SHIELDWATCH_NETWORKS', 'edge-1');
    vi.stubEnv('SHIELDWATCH_TABLE', dynamo.table);
    vi.stubEnv('SHIELDWATCH_TOPIC_ARN', 'arn:aws:sns:us-east-1:123456789012:alerts');
    vi.stubEnv('SHIELDWATCH_POLL_EVERY', '10s');
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'Shieldwatch');
    sns.on(PublishCommand).resolves({ MessageId: 'mid-1' });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await api.close();
    await dynamo.close();
  });

  it('runs one cycle per slot of its minute; a duplicated invocation runs none of them again; a change in between alerts once', async () => {
    // Prepare: the status changes between the two slots
    const { handler } = await import('../../lambda/handler.ts');
    const scheduledMs = Date.now() - 39_500;
    const event = {
      'detail-type': 'Scheduled Event' as const,
      source: 'aws.events' as const,
      time: new Date(scheduledMs).toISOString(),
      detail: {},
    };
    let calls = 0;
    api.filter = () => ({ body: { status: calls++ === 0 ? 'active' : 'under_attack' } });

    // Act: EventBridge delivers the minute's event twice
    const [a, b] = (await Promise.all([
      handler(event, lambdaContext(70_000, 'inv-a')),
      handler(event, lambdaContext(70_000, 'inv-b')),
    ])) as Array<{ slots: Array<{ at: string; outcome: string; status?: string }> }>;

    // Assess: each of the two slots ran once, in one invocation or the other
    const ran = [...a!.slots, ...b!.slots].filter((s) => s.outcome === 'ran');
    expect(ran.map((s) => Date.parse(s.at) - scheduledMs).sort((x, y) => x - y)).toEqual([40_000, 50_000]);
    expect(ran.map((s) => s.status).sort()).toEqual(['active', 'under_attack']);
    expect(calls).toBe(2);
    expect(sns.commandCalls(PublishCommand)).toHaveLength(1);
    const claim = (
      await DynamoDBDocumentClient.from(dynamo.client).send(
        new GetCommand({ TableName: dynamo.table, Key: { pk: 'state', sk: 'slot#0' }, ConsistentRead: true }),
      )
    ).Item;
    expect(claim).toMatchObject({ slot: scheduledMs + 50_000 });
  }, 40_000);

  it('a 429 slows the shard down: the next slot of the minute is not run, and the slow-down is kept for the next invocation', async () => {
    // Prepare: the API rate limits every request
    const { handler } = await import('../../lambda/handler.ts');
    const scheduledMs = Date.now() - 39_500;
    const event = {
      'detail-type': 'Scheduled Event' as const,
      source: 'aws.events' as const,
      time: new Date(scheduledMs).toISOString(),
      detail: {},
    };
    const before = api.requests.length;
    api.filter = () => ({ status: 429, headers: { 'retry-after': '1' }, body: { error: 'slow down' } });

    // Act
    const run = (await handler(event, lambdaContext(70_000, 'inv-c'))) as {
      slots: Array<{ outcome: string; rateLimited?: boolean }>;
    };

    // Assess
    expect(run.slots.map((s) => s.outcome)).toEqual(['ran', 'slowed']);
    expect(run.slots[0]?.rateLimited).toBe(true);
    const filterRequests = api.requests.slice(before).filter((r) => r.url.includes('filter')).length;
    // One cycle's attempts (the first and its retries), not two cycles'.
    expect(filterRequests).toBeGreaterThanOrEqual(1);
    expect(filterRequests).toBeLessThanOrEqual(3);
    const claim = (
      await DynamoDBDocumentClient.from(dynamo.client).send(
        new GetCommand({ TableName: dynamo.table, Key: { pk: 'state', sk: 'slot#0' }, ConsistentRead: true }),
      )
    ).Item;
    expect(claim?.['slowUntil']).toBeGreaterThan(Date.now() + 4 * 60_000);
  }, 40_000);
});
