import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LiveMonitorConflict, liveGuard } from '../../cli/live-monitor.ts';
import { createApiKeyProvider } from '../../lambda/adapters/api-key.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { startDynamoProxy } from '../fixtures/fake-aws.ts';
import { lambdaContext } from '../fixtures/lambda-context.ts';

const KEY = 'handler-test-key-5f2a9c';

const scheduled = {
  'detail-type': 'Scheduled Event' as const,
  source: 'aws.events' as const,
  time: new Date().toISOString(),
  detail: {},
};

describe('the Lambda handler', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  const sns = mockClient(SNSClient);
  const output: string[] = [];

  beforeAll(async () => {
    api = await startFakeApi({ key: KEY });
    dynamo = await startDynamo();
    vi.stubEnv('SHIELDWATCH_API_URL', api.url);
    vi.stubEnv('SHIELDWATCH_API_KEY', KEY);
    vi.stubEnv('SHIELDWATCH_NETWORKS', 'edge-1');
    vi.stubEnv('SHIELDWATCH_TABLE', dynamo.table);
    vi.stubEnv('SHIELDWATCH_TOPIC_ARN', 'arn:aws:sns:us-east-1:123456789012:alerts');
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'Shieldwatch');
    sns.on(PublishCommand).resolves({ MessageId: 'mid-1' });
    // Powertools writes INFO to stdout and ERROR to stderr: collect both.
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
        output.push(String(chunk));
        return write(chunk, ...(rest as []));
      });
    }
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    await api.close();
    await dynamo.close();
  });

  it('runs one cycle per scheduled event, alerts on a change, logs JSON and emits metrics, never the key', async () => {
    // Prepare
    const { handler } = await import('../../lambda/handler.ts');
    api.filter = () => ({ body: { status: 'active' } });

    // Act
    const first = await handler(scheduled, lambdaContext(20_000));
    api.filter = () => ({ body: { status: 'under_attack' } });
    const second = await handler(scheduled, lambdaContext(20_000));

    // Assess
    expect(first).toMatchObject({ status: 'active', alertsQueued: 0, networksOk: 1 });
    expect(second).toMatchObject({
      status: 'under_attack',
      alertsQueued: 1,
      alertsPublished: 1,
      alertsPending: 0,
    });
    expect(sns.commandCalls(PublishCommand)).toHaveLength(1);
    const logs = output.join('');
    expect(logs).toContain('"message":"cycle completed"');
    expect(logs).toContain('"CyclesCompleted"');
    expect(logs).toContain('"StatusChanges"');
    expect(logs).not.toContain(KEY);
  });

  it('takes a shard slice of networks from the event', async () => {
    // Prepare
    const { handler } = await import('../../lambda/handler.ts');
    const before = api.requests.length;

    // Act
    const result = await handler(
      { ...scheduled, networks: ['edge-7', 'edge-8'], pollFilter: false },
      lambdaContext(20_000),
    );

    // Assess
    const paths = api.requests.slice(before).map((r) => r.url);
    expect(paths.sort()).toEqual(['/api/networks/edge-7/realtime', '/api/networks/edge-8/realtime']);
    expect(result).toMatchObject({ networksOk: 2, filterOk: undefined });
  });

  it("records the deployed monitor's heartbeat: a CLI cycle with other settings on its table is refused, the same settings go on (issue 32.1)", async () => {
    // Prepare
    const { handler } = await import('../../lambda/handler.ts');

    // Act
    await handler(scheduled, lambdaContext(20_000));

    // Assess: the item, which holds no value
    const item = (
      await DynamoDBDocumentClient.from(dynamo.client).send(
        new GetCommand({
          TableName: dynamo.table,
          Key: { pk: 'state', sk: 'heartbeat' },
          ConsistentRead: true,
        }),
      )
    ).Item;
    expect(item).toMatchObject({ everyMs: 60_000, owner: { kind: 'lambda' } });
    expect(JSON.stringify(item)).not.toContain(KEY);
    // A CLI on the same table: what `poll` runs before its cycle
    const guard = (env: Record<string, string | undefined>) => {
      const config = loadConfig(env);
      return liveGuard({
        command: 'poll',
        config,
        store: { client: dynamo.client, description: 'the deployed table' },
        keys: createApiKeyProvider(config.apiKey, env),
        now: Date.now,
        takeOver: false,
      });
    };
    await expect(guard(process.env).check()).resolves.toBeUndefined();
    const refused = guard({ ...process.env, SHIELDWATCH_RULES: 'pps: traffic.in.pps > 300k' }).check();
    await expect(refused).rejects.toBeInstanceOf(LiveMonitorConflict);
    await expect(refused).rejects.toThrow(
      /live monitor {2}the deployed schedule[\s\S]*differs {7}SHIELDWATCH_RULES[\s\S]*npx cdk deploy/,
    );
  });

  it('throws when the store cannot be written, so the platform retries', async () => {
    // Prepare
    vi.resetModules();
    vi.stubEnv('SHIELDWATCH_TABLE', 'missing-table');
    const { handler } = await import('../../lambda/handler.ts');

    // Act
    const run = handler(scheduled, lambdaContext(20_000));

    // Assess
    await expect(run).rejects.toThrow(/cannot (store snapshots|read the monitor state)/);
    expect(output.join('')).toMatch(/"level":"ERROR","message":"cycle failed"/);
  });

  it('a cycle whose snapshots fail after its state write: throws, and logs what it committed', async () => {
    // Prepare
    vi.resetModules();
    const proxy = await startDynamoProxy(dynamo.endpoint);
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', proxy.url);
    vi.stubEnv('SHIELDWATCH_TABLE', dynamo.table);
    const { handler } = await import('../../lambda/handler.ts');
    api.filter = () => ({ body: { status: 'calm' } });
    await handler(scheduled, lambdaContext(20_000));
    api.filter = () => ({ body: { status: 'storm' } });
    proxy.fault = (operation) => (operation === 'BatchWriteItem' ? 'refuse' : undefined);
    output.length = 0;

    try {
      // Act
      const run = handler(scheduled, lambdaContext(20_000));

      // Assess
      await expect(run).rejects.toThrow(/cannot store snapshots: .*; the cycle ran in part/);
      const failed = output.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(failed.find((line) => line['message'] === 'cycle failed')).toMatchObject({
        level: 'ERROR',
        committed: { status: 'storm', delivered: 1, pending: 0, queued: [{ from: 'calm', to: 'storm' }] },
      });
    } finally {
      vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
      await proxy.close();
    }
  });

  it('throws a configuration error naming every bad variable', async () => {
    // Prepare
    vi.resetModules();
    vi.stubEnv('SHIELDWATCH_API_URL', 'http://api.example.com');
    vi.stubEnv('SHIELDWATCH_CONCURRENCY', 'many');
    const { handler } = await import('../../lambda/handler.ts');

    // Act
    const run = handler(scheduled, lambdaContext(20_000));

    // Assess
    await expect(run).rejects.toThrow(/SHIELDWATCH_API_URL[\s\S]*SHIELDWATCH_CONCURRENCY/);
  });
});
