/**
 * `cdk synth` as CI and a user run it (the CLI, offline, quiet), and the bundled function taken out of the
 * assembly and run as Lambda would: the template's environment and scheduled event, against dynalite, a fake
 * protection API and loopback SNS and Secrets Manager.
 */
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planShards } from '../../lib/shards.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import {
  type FakeSecretsManager,
  type FakeSns,
  startFakeSecretsManager,
  startFakeSns,
} from '../fixtures/fake-aws.ts';
import { projectRoot } from './synth.ts';

const run = promisify(execFile);
const cdk = join(projectRoot, 'node_modules', '.bin', 'cdk');
const quietEnv = { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', NO_COLOR: '1' };

/** Runs the CDK CLI in the project root; never throws, returns exit code and output. */
async function cdkCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(cdk, args, { cwd: projectRoot, env: quietEnv, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('cdk synth with invalid context', () => {
  it('without apiUrl (cdk.json has no sample) fails naming it, and says how to give it', async () => {
    // Prepare
    const outdir = mkdtempSync(join(tmpdir(), 'shieldwatch-no-url-synth-'));

    // Act
    const result = await cdkCli(['synth', '-q', '-o', outdir]);

    // Assess
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Invalid shieldwatch context');
    expect(result.stderr).toMatch(
      /- apiUrl: required: the base URL of the protection API, e\.g\. -c apiUrl=https:\/\//,
    );
    expect(readdirSync(outdir).filter((file) => file.endsWith('.template.json'))).toEqual([]);
    rmSync(outdir, { recursive: true, force: true });
  });

  it('fails with one message that names every bad key and says what is expected', async () => {
    // Prepare
    const outdir = mkdtempSync(join(tmpdir(), 'shieldwatch-bad-synth-'));

    // Act
    const result = await cdkCli([
      'synth',
      '-q',
      '-o',
      outdir,
      '-c',
      'apiUrl=http://api.example.com',
      '-c',
      'schedule=rate(1 minutes)',
      '-c',
      'alertEmail=ops.example.com',
    ]);

    // Assess
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Invalid shieldwatch context');
    expect(result.stderr).toMatch(/- apiUrl: expected an https:\/\/ URL/);
    expect(result.stderr).toMatch(/- schedule: "rate\(1 minutes\)": write rate\(1 minute\)/);
    expect(result.stderr).toMatch(/- alertEmail: "ops.example.com" is not an email address/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    rmSync(outdir, { recursive: true, force: true });
  });
});

// biome-ignore lint/suspicious/noExplicitAny: resource properties are arbitrary JSON, read by path
type CfnResource = { Type: string; Properties: Record<string, any> };

describe('cdk synth and the bundled function', () => {
  const key = 'bundle-test-key-7c41e9';
  const secretName = 'ApiKeySecret5E0E1F3C-yPQr7Z';
  const topicArn = 'arn:aws:sns:us-east-1:123456789012:Shieldwatch-AlertsTopic-Abc123';
  const table = 'Shieldwatch-SnapshotsTable-XYZ';
  const outdir = mkdtempSync(join(tmpdir(), 'shieldwatch-synth-'));
  let synth: { code: number; stdout: string; stderr: string };
  let resources: Record<string, CfnResource>;
  let api: FakeApi;
  let sns: FakeSns;
  let secrets: FakeSecretsManager;
  let dynamo: { endpoint: string; client: DynamoDBClient; close(): Promise<void> };
  let runtime: ChildProcess;
  let output = '';

  // A prefix picks one of several (the poller's function and secret beside the acknowledge function's).
  const ofType = (type: string, prefix = ''): [string, CfnResource] => {
    const found = Object.entries(resources).filter(([id, r]) => r.Type === type && id.startsWith(prefix));
    if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
    return found[0]!;
  };

  /** Sends one event to the running function and waits for its answer. */
  let nextId = 0;
  function invoke(
    event: unknown,
  ): Promise<{ ok: boolean; result?: unknown; error?: { name: string; message: string } }> {
    const id = ++nextId;
    return new Promise((resolve) => {
      const onMessage = (message: { id?: number }) => {
        if (message.id !== id) return;
        runtime.off('message', onMessage);
        resolve(message as never);
      };
      runtime.on('message', onMessage);
      runtime.send({ id, event });
    });
  }

  /** The template's scheduled event, with Scheduler's context attributes filled in as it would. */
  function scheduledEvent(): unknown {
    const [, schedule] = ofType('AWS::Scheduler::Schedule');
    const parts = schedule.Properties['Target'].Input['Fn::Join'][1] as unknown[];
    const input = parts
      .map((part) => {
        if (typeof part === 'string') return part;
        const ref = (part as { Ref: string }).Ref;
        return { 'AWS::AccountId': '123456789012', 'AWS::Region': 'us-east-1' }[ref] ?? `unresolved ${ref}`;
      })
      .join('')
      .replace('<aws.scheduler.execution-id>', crypto.randomUUID())
      .replace('<aws.scheduler.scheduled-time>', new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'))
      .replace(
        '<aws.scheduler.schedule-arn>',
        'arn:aws:scheduler:us-east-1:123456789012:schedule/default/poll',
      );
    return JSON.parse(input);
  }

  beforeAll(async () => {
    synth = await cdkCli([
      'synth',
      '-q',
      '-o',
      outdir,
      '-c',
      'apiUrl=https://api.example.com',
      '-c',
      'networks=edge-1,edge#2',
      '-c',
      'alertEmail=ops@example.com',
      '-c',
      'retentionDays=7',
      '-c',
      'figureFields=queries.blocked,devices',
    ]);
    if (synth.code !== 0) throw new Error(`cdk synth failed:\n${synth.stderr}`);
    resources = JSON.parse(readFileSync(join(outdir, 'Shieldwatch.template.json'), 'utf8')).Resources;

    api = await startFakeApi({ key });
    sns = await startFakeSns();
    secrets = await startFakeSecretsManager({ [secretName]: JSON.stringify({ apiKey: key }) });
    const server = dynalite({ createTableMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    dynamo = {
      endpoint,
      client,
      close: async () => {
        client.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
    // The table as the template defines it (dynalite has no TTL; that is asserted on the template).
    const [, tableResource] = ofType('AWS::DynamoDB::Table');
    await client.send(
      new CreateTableCommand({
        TableName: table,
        KeySchema: tableResource.Properties['KeySchema'],
        AttributeDefinitions: tableResource.Properties['AttributeDefinitions'],
        BillingMode: tableResource.Properties['BillingMode'],
      }),
    );

    const [fnId, fn] = ofType('AWS::Lambda::Function', 'Poller');
    const physical: Record<string, string> = {
      [ofType('AWS::DynamoDB::Table')[0]]: table,
      [ofType('AWS::SNS::Topic')[0]]: topicArn,
      [ofType('AWS::SecretsManager::Secret', 'ApiKey')[0]]:
        `arn:aws:secretsmanager:us-east-1:123456789012:secret:${secretName}-AbCdEf`,
      // The acknowledge link (docs/acknowledge.md): its signing secret, and its function URL (GetAtt Url).
      [ofType('AWS::SecretsManager::Secret', 'AckSigningKey')[0]]:
        'arn:aws:secretsmanager:us-east-1:123456789012:secret:AckSigningKey-AbCdEf',
      [ofType('AWS::Lambda::Url', 'Ack')[0]]: 'https://ack.lambda-url.us-east-1.on.aws/',
    };
    const templateEnv = Object.fromEntries(
      Object.entries(fn.Properties['Environment'].Variables as Record<string, unknown>).map(
        ([name, value]) => [
          name,
          typeof value === 'string'
            ? value
            : (physical[
                (value as { Ref?: string }).Ref ??
                  String((value as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt']?.[0])
              ] ?? `unresolved ${JSON.stringify(value)}`),
        ],
      ),
    );
    expect(templateEnv['SHIELDWATCH_API_URL']).toBe('https://api.example.com');

    const assets = JSON.parse(readFileSync(join(outdir, 'Shieldwatch.assets.json'), 'utf8')).files;
    const assetHash = String(fn.Properties['Code'].S3Key).replace(/\.zip$/, '');
    const assetDir = join(outdir, assets[assetHash].source.path);
    const [file, exportName] = String(fn.Properties['Handler']).split('.') as [string, string];

    runtime = fork(
      join(projectRoot, 'test', 'infra', 'lambda-runtime.mjs'),
      [join(assetDir, `${file}.mjs`), exportName, String(fn.Properties['Timeout'])],
      {
        cwd: assetDir,
        execArgv: [],
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        env: {
          PATH: process.env['PATH'],
          ...templateEnv,
          // The only change to the template's environment: the protection API is a loopback fake.
          SHIELDWATCH_API_URL: api.url,
          AWS_REGION: 'us-east-1',
          AWS_DEFAULT_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'ASIATESTTESTTESTTEST',
          AWS_SECRET_ACCESS_KEY: 'test-secret',
          AWS_SESSION_TOKEN: 'test-token',
          AWS_LAMBDA_FUNCTION_NAME: fnId,
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.Properties['MemorySize']),
          AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
          AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/shieldwatch',
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
          LAMBDA_TASK_ROOT: assetDir,
          TZ: 'UTC',
          AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
          AWS_ENDPOINT_URL_SNS: sns.url,
          AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
        },
      },
    );
    runtime.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    runtime.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    await new Promise<void>((resolve, reject) => {
      runtime.once('message', () => resolve());
      runtime.once('exit', (code) =>
        reject(new Error(`the function exited (${code}) before it was ready:\n${output}`)),
      );
    });
  }, 180_000);

  afterAll(async () => {
    runtime?.kill();
    await Promise.all([api?.close(), sns?.close(), secrets?.close(), dynamo?.close()]);
    rmSync(outdir, { recursive: true, force: true });
  });

  it('synthesizes quietly: nothing on stdout, no warnings, cdk-nag and schema validation clean', () => {
    expect(synth.stdout).toBe('');
    expect(synth.stderr.replace(/npm warn .*\n/g, '').trim()).toMatch(
      /^(Bundling asset Shieldwatch\/(Poller|Ack)\/Function\/Code\/Stage\.\.\.\s*)*$/,
    );
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
    expect(report.pluginReports).toEqual([]);
  });

  it('bundles one minified ESM file with the AWS SDK inside', () => {
    const [, fn] = ofType('AWS::Lambda::Function', 'Poller');
    const assets = JSON.parse(readFileSync(join(outdir, 'Shieldwatch.assets.json'), 'utf8')).files;
    const dir = join(outdir, assets[String(fn.Properties['Code'].S3Key).replace(/\.zip$/, '')].source.path);
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    // Static imports of the minified bundle, e.g. `import Gl from"node:https"` or `import{X as Y}from"node:fs"`.
    const imports = [...code.matchAll(/(?:^|[;}])import\s*[^;"()]{0,200}?from\s*"([^"]+)"/gm)].map(
      (m) => m[1],
    );
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.every((specifier) => specifier!.startsWith('node:'))).toBe(true);
    expect(code).toContain('DynamoDB');
    expect(code.split('\n').length).toBeLessThan(1000);
  });

  it('runs a baseline cycle: snapshots stored, the key read from the secret by ARN, no alert', async () => {
    // Act
    const answer = await invoke(scheduledEvent());

    // Assess
    expect(answer.ok, JSON.stringify(answer.error)).toBe(true);
    expect(secrets.requests[0]).toMatch(/^arn:aws:secretsmanager:us-east-1:123456789012:secret:ApiKeySecret/);
    expect(api.requests.every((r) => r.headers.authorization === `Bearer ${key}`)).toBe(true);
    expect(api.requests.map((r) => r.url)).toEqual(
      expect.arrayContaining([
        '/api/filter/status',
        '/api/networks/edge-1/realtime',
        '/api/networks/edge%232/realtime',
      ]),
    );
    const items = (await dynamo.client.send(new ScanCommand({ TableName: table }))).Items ?? [];
    expect(items.length).toBeGreaterThanOrEqual(3);
    expect(items.some((item) => item['expiresAt']?.N !== undefined)).toBe(true);
    expect(sns.publishes).toEqual([]);
  });

  it('publishes a status change alert to the topic of the template', async () => {
    // Prepare
    api.filter = () => ({ body: { status: 'bypassed' } });

    // Act
    const answer = await invoke(scheduledEvent());

    // Assess
    expect(answer.ok, JSON.stringify(answer.error)).toBe(true);
    expect(sns.publishes).toHaveLength(1);
    const [alert] = sns.publishes;
    expect(alert!.topicArn).toBe(topicArn);
    expect(alert!.messageStructure).toBe('json');
    expect(alert!.attributes).toMatchObject({
      event: 'filter.status_changed',
      from: 'active',
      to: 'bypassed',
    });
    expect(alert!.subject).toMatch(/active.*bypassed/);
  });

  it('emits the metrics the alarms and the dashboard read (namespace, service dimension, names)', () => {
    const emf = output
      .split('\n')
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line.slice(line.indexOf('{'))));
    const cycles = emf.filter((doc) =>
      doc._aws.CloudWatchMetrics.some((m: { Metrics: Array<{ Name: string }> }) =>
        m.Metrics.some((metric) => metric.Name === 'CyclesCompleted'),
      ),
    );
    expect(cycles.length).toBeGreaterThanOrEqual(2);
    expect(cycles[0]._aws.CloudWatchMetrics[0].Namespace).toBe('Shieldwatch');
    expect(cycles[0]._aws.CloudWatchMetrics[0].Dimensions).toContainEqual(['service']);
    expect(cycles[0].service).toBe('shieldwatch');
    const [, alarm] = Object.entries(resources).find(
      ([, r]) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties['MetricName'] === 'CyclesCompleted',
    )!;
    expect(alarm.Properties['Namespace']).toBe(cycles[0]._aws.CloudWatchMetrics[0].Namespace);
    // Exactly the chosen figure fields (figureFields), each its own metric; the dashboard's SEARCH schema
    // is {Shieldwatch,NetworkId,service}: exactly these dimensions.
    const figures = emf.filter((doc) =>
      doc._aws.CloudWatchMetrics.some((m: { Metrics: Array<{ Name: string }> }) =>
        m.Metrics.some((metric) => metric.Name.startsWith('Figure.')),
      ),
    );
    expect(figures.length).toBeGreaterThan(0);
    const names = new Set<string>();
    for (const doc of figures) {
      expect([...doc._aws.CloudWatchMetrics[0].Dimensions[0]].sort()).toEqual(['NetworkId', 'service']);
      expect(['edge-1', 'edge#2']).toContain(doc.NetworkId);
      for (const metric of doc._aws.CloudWatchMetrics[0].Metrics) names.add(metric.Name);
    }
    expect([...names].sort()).toEqual(['Figure.devices', 'Figure.queries.blocked']);
    expect(figures.find((doc) => doc.NetworkId === 'edge-1')?.['Figure.queries.blocked']).toBe(87);
    expect(JSON.stringify(emf)).not.toContain('Figure.queries.total');
  });

  it("polls only a shard's networks when its event carries them, leaving the filter and alerts alone", async () => {
    // Prepare: the event of the second shard of a sharded stack; the filter is back to active, a change only
    // a cycle that polls the filter could see
    const [, shard] = planShards(['edge-1', 'edge#2'], 1);
    const event = {
      ...(scheduledEvent() as object),
      networks: shard!.networks,
      pollFilter: shard!.pollFilter,
    };
    api.filter = () => ({ body: { status: 'active' } });
    const before = { requests: api.requests.length, publishes: sns.publishes.length };

    // Act
    const answer = await invoke(event);

    // Assess
    expect(answer.ok, JSON.stringify(answer.error)).toBe(true);
    expect(answer.result).toMatchObject({ networksOk: 1, networksFailed: 0, alertsQueued: 0 });
    expect(api.requests.slice(before.requests).map((r) => r.url)).toEqual([
      '/api/networks/edge%232/realtime',
    ]);
    expect(sns.publishes).toHaveLength(before.publishes);
  });

  it('never writes the key to its output', () => {
    expect(output).not.toContain(key);
  });
});
