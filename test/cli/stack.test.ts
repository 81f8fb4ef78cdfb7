/**
 * The CLI reaches a deployed stack by name (docs/deploy.md, The CLI and the deployed stack): `--stack NAME` or `SHIELDWATCH_STACK`
 * takes the table, topic and region from the stack's outputs (CloudFormation DescribeStacks on a loopback
 * moto_server, the stack made there from a small template with the real stack's output keys), and the
 * commands that write name the store they wrote to. A silence with no store named and none here is refused.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient, ListTablesCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApi } from '../fixtures/fake-api.ts';
import { type MotoServer, startMoto } from '../fixtures/moto-server.ts';
import { describeRun, parseJsonOutput, runCli } from './helpers.ts';

/** Not us-east-1 (the default for a loopback endpoint): the region must come from the stack. */
const REGION = 'eu-west-2';

const TEMPLATE = {
  Resources: {
    SnapshotTable: {
      Type: 'AWS::DynamoDB::Table',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      },
    },
    AlertTopic: { Type: 'AWS::SNS::Topic' },
  },
  Outputs: {
    TableName: { Value: { Ref: 'SnapshotTable' } },
    TopicArn: { Value: { Ref: 'AlertTopic' } },
  },
};

describe('the CLI on a deployed stack, by name', () => {
  let moto: MotoServer;
  let table: string;
  let dynamo: DynamoDBClient;
  /** A directory with no embedded store and no settings file. */
  let empty: string;
  /** The environment of a user with AWS credentials and the stack's region, nothing else. */
  let aws: Record<string, string>;

  beforeAll(async () => {
    moto = await startMoto();
    aws = { ...moto.env, AWS_DEFAULT_REGION: REGION };
    const cfn = new CloudFormationClient({ ...clientOf(moto) });
    await cfn.send(
      new CreateStackCommand({ StackName: 'Shieldwatch', TemplateBody: JSON.stringify(TEMPLATE) }),
    );
    await cfn.send(
      new CreateStackCommand({
        StackName: 'Elsewhere',
        TemplateBody: JSON.stringify({ Resources: { T: { Type: 'AWS::SNS::Topic' } } }),
      }),
    );
    cfn.destroy();
    dynamo = new DynamoDBClient(clientOf(moto));
    const names = (await dynamo.send(new ListTablesCommand({}))).TableNames ?? [];
    expect(names).toHaveLength(1);
    table = names[0]!;
    // One transition in the deployed history, for events to list.
    await dynamo.send(
      new PutItemCommand({
        TableName: table,
        Item: {
          pk: { S: 'event' },
          sk: { S: '2026-01-05T10:00:00.000Z#000000000001' },
          event: { S: 'filter.status_changed' },
          at: { S: '2026-01-05T10:00:00.000Z' },
          seq: { N: '1' },
          from: { S: 'active' },
          to: { S: 'mitigating' },
        },
      }),
    );
    empty = mkdtempSync(join(tmpdir(), 'sw-stack-'));
  }, 60_000);

  afterAll(async () => {
    dynamo?.destroy();
    await moto?.stop();
    if (empty !== undefined) rmSync(empty, { recursive: true, force: true });
  });

  function clientOf(server: MotoServer) {
    return {
      region: REGION,
      endpoint: server.endpoint,
      credentials: { accessKeyId: 'stacktest', secretAccessKey: 'stacktest' },
    };
  }

  it("status --stack reads the stack's table in the stack's region and names it", async () => {
    // Act
    const run = await runCli(['status', '--stack', 'Shieldwatch'], aws, { cwd: empty });

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toContain(
      `store          DynamoDB table ${table} (${REGION} at ${moto.endpoint}, stack Shieldwatch)`,
    );
    expect(existsSync(join(empty, '.shieldwatch'))).toBe(false);
  });

  it('SHIELDWATCH_STACK does the same: events lists the deployed history', async () => {
    // Act
    const run = await runCli(
      ['events', '--format', 'json'],
      { ...aws, SHIELDWATCH_STACK: 'Shieldwatch' },
      {
        cwd: empty,
      },
    );

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(parseJsonOutput<{ event: string; to?: string }[]>(run)).toEqual([
      expect.objectContaining({ event: 'filter.status_changed', from: 'active', to: 'mitigating' }),
    ]);
  });

  it("silence --stack writes the silence into the stack's table and says so", async () => {
    // Act
    const run = await runCli(
      ['silence', '--for', '2h', '--reason', 'planned work', '--stack', 'Shieldwatch'],
      aws,
      {
        cwd: empty,
      },
    );

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toContain(
      `store: DynamoDB table ${table} (${REGION} at ${moto.endpoint}, stack Shieldwatch)`,
    );
    expect(run.stdout).toMatch(/silence end s-[a-z0-9]+ --stack Shieldwatch/);
    const items = await dynamo.send(new ScanCommand({ TableName: table }));
    expect(items.Items?.filter((item) => item['pk']?.S === 'silence')).toHaveLength(1);
    const listed = await runCli(
      ['silence', 'list', '--format', 'json'],
      { ...aws, SHIELDWATCH_STACK: 'Shieldwatch' },
      {
        cwd: empty,
      },
    );
    expect(listed.code, describeRun(listed)).toBe(0);
    expect(parseJsonOutput<{ reason: string }[]>(listed).map((s) => s.reason)).toEqual(['planned work']);
    expect(existsSync(join(empty, '.shieldwatch'))).toBe(false);
  });

  it("poll --stack writes its cycle into the stack's table and names it", async () => {
    // Prepare
    const api = await startFakeApi({ key: 'stack-test-key' });
    try {
      // Act
      const run = await runCli(
        ['poll', '--stack', 'Shieldwatch'],
        { ...aws, SHIELDWATCH_API_URL: api.url, SHIELDWATCH_API_KEY: 'stack-test-key' },
        { cwd: empty },
      );

      // Assess
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toContain(
        `store: DynamoDB table ${table} (${REGION} at ${moto.endpoint}, stack Shieldwatch)`,
      );
      const items = await dynamo.send(new ScanCommand({ TableName: table }));
      expect(items.Items?.filter((item) => item['pk']?.S === 'filter')).toHaveLength(1);
    } finally {
      await api.close();
    }
  });

  it("test-alert --stack publishes to the stack's topic and names it", async () => {
    // Act
    const run = await runCli(['test-alert', '--stack', 'Shieldwatch'], aws, { cwd: empty });

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^test alert published to arn:aws:sns:${REGION}:\\d{12}:\\S+ \\(stack Shieldwatch\\)`, 'm'),
    );
  });

  it('--stack wins over SHIELDWATCH_TABLE and says it ignored it', async () => {
    // Act
    const run = await runCli(
      ['status', '--stack', 'Shieldwatch'],
      { ...aws, SHIELDWATCH_TABLE: 'other' },
      {
        cwd: empty,
      },
    );

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stderr).toContain(`SHIELDWATCH_TABLE (other) ignored: the stack Shieldwatch gives ${table}`);
  });

  it('an unknown stack is a clear error naming it and the region, exit 2', async () => {
    // Act
    const run = await runCli(['status', '--stack', 'Shieldwach'], aws, { cwd: empty });

    // Assess
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toContain(`no stack named "Shieldwach" in ${REGION}`);
    expect(run.stderr).not.toContain('    at ');
  });

  it('a stack without the outputs is named with the outputs it lacks, exit 2', async () => {
    // Act
    const run = await runCli(['events', '--stack', 'Elsewhere'], aws, { cwd: empty });

    // Assess
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toContain('has no output TableName or TopicArn');
  });

  it('without a region it says to set one, exit 2, before any request', async () => {
    // Act: credentials but no region and no endpoint (nothing is sent: the region is needed first).
    const run = await runCli(
      ['status', '--stack', 'Shieldwatch'],
      { AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y', AWS_EC2_METADATA_DISABLED: 'true' },
      { cwd: empty },
    );

    // Assess
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toContain('--stack Shieldwatch: no AWS region: set AWS_REGION');
  });

  it('a name that cannot be a stack is a usage error', async () => {
    // Act
    const run = await runCli(['status', '--stack', 'my stack'], aws, { cwd: empty });

    // Assess
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.stderr).toContain('--stack must be a stack name');
  });

  it('every command that uses the history lists --stack in its help', async () => {
    // Act
    const runs = await Promise.all(
      ['status', 'events', 'silence', 'poll', 'test-alert'].map((name) => runCli([name, '--help'])),
    );

    // Assess
    for (const run of runs) expect(run.stdout).toMatch(/^ {2}--stack NAME {2,}the deployed stack whose/m);
  });
});

describe('a silence with no store named', () => {
  it('is refused in a directory without a store, saying how to name one, and creates nothing', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'sw-nostore-'));
    try {
      // Act
      const run = await runCli(['silence', '--for', '1h'], {}, { cwd: dir });

      // Assess
      expect(run.code, describeRun(run)).toBe(1);
      expect(run.stderr).toContain('nothing was written');
      expect(run.stderr).toContain('--stack NAME');
      expect(run.stdout).not.toContain('active until');
      expect(existsSync(join(dir, '.shieldwatch'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
