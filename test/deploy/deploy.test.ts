/**
 * The stack deployed by the project's own CDK CLI to a local AWS emulator (moto_server on 127.0.0.1), and the
 * deployed function run (docs/deploy-test.md). `npm run test:deploy`; needs moto (fails at once without it).
 *
 * In order: bootstrap and `cdk deploy --method=direct` with every alert channel on; every resource of the
 * template exists or was filled in (listed); the outputs; `shieldwatch set-key` into the deployed secret; the
 * deployed code (the uploaded asset, its CodeSha256 checked) run with the deployed environment, the schedule's
 * event and the role's credentials against an HTTPS API over a status change and a rule trigger: snapshots in
 * the table, one publish per alert with every protocol's text, delivered to the SQS subscriptions with the
 * README's filter policies; every AWS call it made allowed by the role's deployed policies; the CLI on the
 * deployed table; the status page (status-page.ts), the acknowledge function (ack-function.ts) and the digest
 * (digest.ts); `cdk destroy` keeping the table.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeStacksCommand,
  ListStackResourcesCommand,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
} from '@aws-sdk/client-secrets-manager';
import { GetSubscriptionAttributesCommand, GetTopicAttributesCommand } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOTTED_POLLER_TIMEOUT_SECONDS } from '../../lib/constructs/poller-function.ts';
import { synthMonitor } from '../infra/synth.ts';
import { describeAckFunction } from './ack-function.ts';
import { type AwsCall, authzRequests, type Deployment, startRecorder } from './aws-calls.ts';
import { describeDigest } from './digest.ts';
import {
  ACCOUNT,
  cdk,
  type Emulator,
  type Fill,
  PROJECT_ROOT,
  REGION,
  type Run,
  requireMoto,
  run,
  startEmulator,
} from './emulator.ts';
import { type HttpsApi, startHttpsApi } from './https-api.ts';
import { type AuthzRequest, evaluate } from './iam-policy.ts';
import { emulatedResourceExists, services } from './services.ts';
import { describeStatusPage } from './status-page.ts';

const STACK = 'Shieldwatch';
const API_KEY = 'swk_deploytest_Qm7Zr4Tx9Lp2Vb8N';
const PAGERDUTY_SECRET = 'shieldwatch/pagerduty';
const WEBHOOK_SECRET = 'shieldwatch/webhook-url';
const ROUTING_KEY = 'pd-routing-key-0123456789abcdef';
const WEBHOOK_URL = 'https://hooks.example.com/shieldwatch-deploy-test';

/** The context: every alert channel on (docs/channels.md), two networks, one rule, an expected status. */
function deployContext(apiUrl: string): Record<string, string> {
  return {
    apiUrl,
    networks: 'net-1,net-2',
    alertEmail: 'ops@example.com',
    alertSms: '+14155550100',
    expectedStatus: 'active',
    rules: 'pps: traffic.in_pps > 50k for 1',
    slackWorkspaceId: 'T07EA123LEP',
    slackChannelId: 'C07EZ1ABC23',
    teamsTenantId: '12345678-1234-1234-1234-123456789012',
    teamsTeamId: '87654321-4321-4321-4321-210987654321',
    teamsChannelId: '19%3ab6ef35dc342d4b9e9fc5ee1c56e1ad1f%40thread.tacv2',
    pagerDutyRoutingKeySecret: PAGERDUTY_SECRET,
    webhookUrlSecret: WEBHOOK_SECRET,
    // The hosted status page, private: bucket, distribution, key pair, publisher (test/deploy/status-page.ts).
    statusPage: 'private',
    // A maintenance window declared in context (CONTRACT §17), 60 days ahead: it never holds during the test.
    maintenance: JSON.stringify([MAINTENANCE_WINDOW]),
    // The digest (CONTRACT §19), daily, in a zone half an hour off UTC (test/deploy/digest.ts).
    digest: 'daily',
    ...DIGEST,
  };
}

/** When the deployed digest is due. */
const DIGEST = { digestAt: '06:15', digestTz: 'Asia/Kolkata' } as const;

/** The declared window: a one-off, far enough ahead that no alert of the test falls in it. */
const MAINTENANCE_WINDOW = {
  start: new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 16),
  for: '1h',
  tz: 'UTC',
  reason: 'deploy test window',
};

type CfnResource = { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string };

let work: string;
let emulator: Emulator | undefined;
let api: HttpsApi | undefined;
let aws: ReturnType<typeof services>;
let template: { Resources: Record<string, CfnResource> };
let resources: Map<string, StackResourceSummary>;
let outputs: Record<string, string>;
/** The acknowledge link the deployed poller put into its incident.opened alert, and the incident. */
let ackLink: { link: string; incident: string } | undefined;
let statusLink: { link: string; incident: string } | undefined;
let fills: Fill[];
/** The `-c key=value` arguments of the deploy. */
let context: string[] = [];
/** What the deployed function did in each cycle, and the AWS calls it made. */
const cycles: { result: unknown; calls: AwsCall[]; output: string }[] = [];
let functionConfig: {
  FunctionArn?: string;
  Role?: string;
  Handler?: string;
  Timeout?: number;
  MemorySize?: number;
  Environment?: { Variables?: Record<string, string> };
};

const physicalId = (logicalId: string): string => {
  const id = resources.get(logicalId)?.PhysicalResourceId;
  if (id === undefined) throw new Error(`no deployed resource ${logicalId}`);
  return id;
};
const logicalIdsOf = (type: string) =>
  Object.entries(template.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id);
const getAttId = (value: unknown): string | undefined => {
  const v = value as { 'Fn::GetAtt'?: string[]; Ref?: string } | undefined;
  return v?.['Fn::GetAtt']?.[0] ?? v?.Ref;
};

beforeAll(async () => {
  requireMoto();
  work = mkdtempSync(join(tmpdir(), 'shieldwatch-deploy-'));
  api = await startHttpsApi(work, API_KEY);
  emulator = await startEmulator(join(work, 'fills.jsonl'));
  aws = services(emulator.endpoint);

  // The channels' secrets exist before the deploy, as README's PagerDuty and webhooks section has them made.
  const sm = aws.secrets;
  await sm.send(new CreateSecretCommand({ Name: PAGERDUTY_SECRET, SecretString: ROUTING_KEY }));
  await sm.send(new CreateSecretCommand({ Name: WEBHOOK_SECRET, SecretString: WEBHOOK_URL }));

  // Bootstrap from an empty directory: with an explicit environment it needs no app (no synth).
  const empty = join(work, 'bootstrap');
  mkdirSync(empty);
  await cdk(['bootstrap', `aws://${ACCOUNT}/${REGION}`], emulator, { cwd: empty });
  context = Object.entries(deployContext(api.url)).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  await cdk(
    [
      'deploy',
      STACK,
      '--method=direct',
      '--require-approval',
      'never',
      '--output',
      join(work, 'cdk.out'),
      ...context,
    ],
    emulator,
  );
  template = JSON.parse(readFileSync(join(work, 'cdk.out', `${STACK}.template.json`), 'utf8'));
  const summaries = await aws.cloudformation.send(new ListStackResourcesCommand({ StackName: STACK }));
  resources = new Map((summaries.StackResourceSummaries ?? []).map((r) => [r.LogicalResourceId!, r]));
  const stacks = await aws.cloudformation.send(new DescribeStacksCommand({ StackName: STACK }));
  outputs = Object.fromEntries(
    (stacks.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey!, o.OutputValue!]),
  );
  fills = emulator.fills();
  // Never silently: what the emulator's CloudFormation skipped and the test filled in.
  const lines = fills
    .filter((f) => f.action === 'create')
    .map((f) => `  filled in: ${f.type} ${f.logicalId} -> ${f.physicalId} (${f.via})`);
  process.stdout.write(
    `\nDeployed ${STACK} to moto at ${emulator.endpoint}; ${lines.length} resources filled in:\n${lines.join('\n')}\n`,
  );
}, 240_000);

afterAll(async () => {
  await emulator?.stop();
  await api?.close();
  if (emulator !== undefined) {
    // Stopped by its pid: nothing answers there any more.
    expect(() => process.kill(emulator!.pid, 0)).toThrow();
  }
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the stack deployed to the emulator', () => {
  it('has every resource of the template: created by its CloudFormation, or listed as filled in', async () => {
    const filled = new Map(fills.filter((f) => f.action === 'create').map((f) => [f.logicalId, f]));
    expect(fills.filter((f) => f.error !== undefined)).toEqual([]);
    const missing: string[] = [];
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      const fill = filled.get(logicalId);
      if (fill !== undefined) {
        expect(fill.type).toBe(resource.Type);
        if (!fill.via.startsWith('stand-in only')) {
          await expect(emulatedResourceExists(aws, resource.Type, fill.physicalId), logicalId).resolves.toBe(
            true,
          );
        }
        continue;
      }
      const deployed = resources.get(logicalId);
      if (deployed?.PhysicalResourceId === undefined) {
        missing.push(`${logicalId} (${resource.Type})`);
        continue;
      }
      await expect(
        emulatedResourceExists(aws, resource.Type, deployed.PhysicalResourceId, resource.Properties),
        `${logicalId} ${resource.Type}`,
      ).resolves.toBe(true);
    }
    expect(missing).toEqual([]);
    // The types the emulator skips are the ones the docs list; a new one shows up here.
    expect([...new Set([...filled.values()].map((f) => f.type))].sort()).toMatchSnapshot();
  });

  it('gives the outputs README names, each naming the deployed resource', async () => {
    const table = physicalId(logicalIdsOf('AWS::DynamoDB::Table')[0]!);
    const topic = physicalId(logicalIdsOf('AWS::SNS::Topic')[0]!);
    const fn = physicalId(logicalIdsOf('AWS::Lambda::Function')[0]!);
    const secretArn = physicalId(logicalIdsOf('AWS::SecretsManager::Secret')[0]!);
    expect(Object.keys(outputs).sort()).toEqual(
      [
        'ApiUrl',
        'DashboardUrl',
        'FunctionName',
        'SecretName',
        'TableName',
        'TopicArn',
        'StatusPageUrl',
        'StatusPageKeyId',
        'StatusPageKeySecret',
        'AckUrl',
        'DigestFunctionName',
      ].sort(),
    );
    expect(outputs['TableName']).toBe(table);
    expect(outputs['TopicArn']).toBe(topic);
    expect(outputs['FunctionName']).toBe(fn);
    expect(outputs['ApiUrl']).toBe(api!.url);
    const dashboard = physicalId(logicalIdsOf('AWS::CloudWatch::Dashboard')[0]!);
    expect(outputs['DashboardUrl']).toContain(`dashboards/dashboard/${dashboard}`);
    // SecretName is the name Secrets Manager knows the secret by (CDK derives it from the ARN).
    const described = await aws.secrets.send(new DescribeSecretCommand({ SecretId: outputs['SecretName'] }));
    expect(described.ARN).toBe(secretArn);
  });

  it('takes the API key with shieldwatch set-key, which finds the secret from the outputs and checks the key', async () => {
    const result = await cli(['set-key'], {}, `${API_KEY}\n`);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(API_KEY);
    const value = await aws.secrets.send(new GetSecretValueCommand({ SecretId: outputs['SecretName'] }));
    expect(value.SecretString).toBe(API_KEY);
    expect(api!.requests).toContain('/api/user');
  });
});

describe('the deployed function', () => {
  let codeDir: string;
  let event: Record<string, unknown>;
  let fnEnv: Record<string, string>;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;

  beforeAll(async () => {
    const fn = outputs['FunctionName']!;
    const got = await aws.lambda.getFunction(fn);
    functionConfig = got.Configuration;
    // The code: the asset the CDK CLI uploaded to the bootstrap bucket, the one the function was created from.
    const fnResource = template.Resources[logicalIdsOf('AWS::Lambda::Function')[0]!]!;
    const code = fnResource.Properties!['Code'] as { S3Key: string };
    const zip = await aws.s3.getObject(`cdk-hnb659fds-assets-${ACCOUNT}-${REGION}`, code.S3Key);
    expect(createHash('sha256').update(zip).digest('base64')).toBe(got.Configuration.CodeSha256);
    codeDir = join(work, 'code');
    mkdirSync(codeDir);
    writeFileSync(join(work, 'code.zip'), zip);
    const unzip = await run('unzip', ['-q', join(work, 'code.zip'), '-d', codeDir], {
      env: { PATH: process.env['PATH'] },
    });
    expect(unzip.code, unzip.stderr).toBe(0);

    // The event the schedule sends: its deployed target input, with Scheduler's context attributes filled.
    const scheduleId = logicalIdsOf('AWS::Scheduler::Schedule')[0]!;
    const schedule = await aws.scheduler.getSchedule(physicalId(scheduleId));
    expect(schedule.Target.Arn).toBe(got.Configuration.FunctionArn);
    const input = schedule.Target.Input.replaceAll('<aws.scheduler.execution-id>', 'deploy-test-execution')
      .replaceAll('<aws.scheduler.scheduled-time>', new Date().toISOString().replace(/\.\d+Z$/, 'Z'))
      .replaceAll('<aws.scheduler.schedule-arn>', schedule.Arn);
    event = JSON.parse(input);
    expect(event['detail-type']).toBe('Scheduled Event');

    // The role's credentials, as Lambda gets them.
    const credentials = await aws.sts.assumeRole(got.Configuration.Role!);
    recorder = await startRecorder(`http://127.0.0.1:${new URL(emulator!.endpoint).port}`);
    const logGroup = physicalId(logicalIdsOf('AWS::Logs::LogGroup')[0]!);
    fnEnv = {
      PATH: process.env['PATH']!,
      ...got.Configuration.Environment?.Variables,
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_LAMBDA_FUNCTION_NAME: fn,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(got.Configuration.MemorySize),
      AWS_LAMBDA_LOG_GROUP_NAME: logGroup,
      AWS_LAMBDA_LOG_STREAM_NAME: 'deploy-test',
      AWS_EXECUTION_ENV: `AWS_Lambda_${got.Configuration.Runtime}`,
      LAMBDA_TASK_ROOT: codeDir,
      TZ: ':UTC',
      AWS_ACCESS_KEY_ID: credentials.AccessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.SecretAccessKey,
      AWS_SESSION_TOKEN: credentials.SessionToken,
      // Not in a real Lambda: every AWS call goes through the recorder to the emulator; the API's certificate.
      AWS_ENDPOINT_URL: recorder.url,
      NODE_EXTRA_CA_CERTS: api!.certFile,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      SHIELDWATCH_DEPLOY_TEST_FUNCTION_ARN: got.Configuration.FunctionArn!,
    };
    // The deployed environment holds no secret: the key's ARN, never a key.
    expect(JSON.stringify(got.Configuration.Environment)).not.toContain(API_KEY);
    expect(JSON.stringify(got.Configuration.Environment)).not.toContain(ROUTING_KEY);
  }, 60_000);

  afterAll(async () => {
    await recorder?.close();
  });

  async function invoke(
    overrides: { env?: Record<string, string>; event?: Record<string, unknown> } = {},
  ): Promise<{ result: unknown; calls: AwsCall[]; output: string }> {
    const eventFile = join(work, 'event.json');
    writeFileSync(eventFile, JSON.stringify(overrides.event ?? event));
    const before = recorder.calls.length;
    const result = await run(
      process.execPath,
      [
        join(PROJECT_ROOT, 'test/deploy/run-deployed-function.mjs'),
        codeDir,
        eventFile,
        functionConfig.Handler ?? 'index.handler',
        String(functionConfig.Timeout ?? 60),
      ],
      { env: { ...fnEnv, ...overrides.env }, cwd: codeDir, timeoutMs: 90_000 },
    );
    const last = result.stdout.trim().split('\n').at(-1) ?? '';
    if (!last.startsWith('RESULT ')) {
      throw new Error(`the deployed function failed:\n${result.stdout}\n${result.stderr}`);
    }
    const cycle = {
      result: JSON.parse(last.slice('RESULT '.length)),
      calls: recorder.calls.slice(before),
      output: result.stdout,
    };
    cycles.push(cycle);
    return cycle;
  }

  it('stores snapshots and publishes once per alert over a status change and a rule trigger', async () => {
    api!.filterStatus = 'active';
    api!.pps['net-1'] = 1000;
    api!.pps['net-2'] = 2000;
    const first = await invoke();
    expect(first.result).toMatchObject({
      filterOk: true,
      networksOk: 2,
      networksFailed: 0,
      alertsPublished: 0,
    });

    api!.filterStatus = 'mitigating';
    api!.pps['net-1'] = 75_000;
    const second = await invoke();
    expect(second.result, second.output).toMatchObject({
      filterOk: true,
      networksOk: 2,
      alertsPublished: 2,
      alertsPending: 0,
    });

    // Nothing new: nothing sent again.
    const third = await invoke();
    expect(third.result).toMatchObject({ alertsPublished: 0, alertsPending: 0 });

    const table = outputs['TableName']!;
    const count = async (pk: string) =>
      (
        await aws.dynamo.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: pk } },
          }),
        )
      ).Count;
    expect(await count('filter')).toBe(3);
    expect(await count('network#net-1')).toBe(3);
    expect(await count('network#net-2')).toBe(3);

    const publishes = cycles
      .flatMap((c) => c.calls)
      .filter((c) => c.service === 'sns' && c.operation === 'Publish');
    expect(publishes).toHaveLength(2);
    const events: string[] = [];
    for (const publish of publishes) {
      expect(publish.status).toBe(200);
      expect(publish.params['TopicArn']).toBe(outputs['TopicArn']);
      expect(publish.params['MessageStructure']).toBe('json');
      const message = JSON.parse(String(publish.params['Message'])) as Record<string, string>;
      for (const protocol of ['default', 'email', 'sms', 'sqs', 'https']) {
        expect(typeof message[protocol], protocol).toBe('string');
        expect(message[protocol]!.length, protocol).toBeGreaterThan(0);
      }
      const document = JSON.parse(message['sqs']!) as { event: string; action?: string };
      const chat = JSON.parse(message['https']!) as { version: string; source: string };
      expect(chat).toMatchObject({ version: '1.0', source: 'custom' });
      events.push(`${document.event}/${document.action}`);
    }
    // The rule's networks form one incident (groupBy=rule, the default): its opening is what is published.
    expect(events.sort()).toEqual(['filter.status_changed/trigger', 'incident.opened/trigger']);
    // Each alert that opens an incident carries the acknowledge link (docs/acknowledge.md): AckUrl?t=TOKEN in
    // its email and chat texts, its token naming that incident: the rule's opening, and the status change away
    // from the expected status (the monitor's own incident, acknowledged in the monitor item).
    for (const publish of publishes) {
      const message = JSON.parse(String(publish.params['Message'])) as Record<string, string>;
      const document = JSON.parse(message['sqs']!) as { event: string; incident?: string };
      const links = [...message['email']!.matchAll(/(https:\/\/\S+\?t=[A-Za-z0-9._-]+)/g)].map((m) => m[1]!);
      expect(links, document.event).toHaveLength(1);
      expect(links[0]!.startsWith(`${outputs['AckUrl']}?t=`)).toBe(true);
      expect(message['https']).toContain(links[0]);
      // The token's fourth part is the incident id, base64url.
      const named = Buffer.from(links[0]!.split('?t=')[1]!.split('.')[3]!, 'base64url').toString('utf8');
      expect(named).toBe(document.incident);
      if (document.event === 'incident.opened') ackLink = { link: links[0]!, incident: document.incident! };
      else statusLink = { link: links[0]!, incident: document.incident! };
    }
    expect(ackLink).toBeDefined();
  }, 120_000);

  it("delivers each alert's sqs text through the queue subscriptions with README's filter policies", async () => {
    const sqsTexts = cycles
      .flatMap((c) => c.calls)
      .filter((c) => c.operation === 'Publish')
      .map((c) => (JSON.parse(String(c.params['Message'])) as { sqs: string }).sqs)
      .sort();
    // A message without an action (the test alert) reaches the webhook, not PagerDuty.
    const test = await cli(['test-alert'], { SHIELDWATCH_TOPIC_ARN: outputs['TopicArn']! });
    expect(test.code, test.stdout + test.stderr).toBe(0);

    const byQueue: Record<string, { filterPolicy: string | undefined; bodies: string[] }> = {};
    for (const logicalId of logicalIdsOf('AWS::SNS::Subscription')) {
      const properties = template.Resources[logicalId]!.Properties!;
      if (properties['Protocol'] !== 'sqs') continue;
      const queueId = getAttId(properties['Endpoint'])!;
      const attributes = await aws.sns.send(
        new GetSubscriptionAttributesCommand({ SubscriptionArn: physicalId(logicalId) }),
      );
      expect(attributes.Attributes?.['RawMessageDelivery']).toBe('true');
      byQueue[queueId] = {
        filterPolicy: attributes.Attributes?.['FilterPolicy'],
        bodies: await aws.sqs.drain(physicalId(queueId)),
      };
    }
    const pagerDuty = Object.entries(byQueue).find(([id]) => id.startsWith('PagerDuty'))![1];
    const webhook = Object.entries(byQueue).find(([id]) => id.startsWith('Webhook'))![1];
    expect(JSON.parse(pagerDuty.filterPolicy!)).toEqual({ action: ['trigger', 'acknowledge', 'resolve'] });
    expect(webhook.filterPolicy).toBeUndefined();
    expect(pagerDuty.bodies.sort()).toEqual(sqsTexts);
    expect(webhook.bodies).toHaveLength(3);
    expect(webhook.bodies.filter((b) => sqsTexts.includes(b)).sort()).toEqual(sqsTexts);
    expect(webhook.bodies.map((b) => (JSON.parse(b) as { event: string }).event)).toContain('monitor.test');
  }, 60_000);

  it("at pollEvery=10s: the same resources, the function's variable and timeout, and one invocation running the minute's slots (CONTRACT §18)", async () => {
    // What the context changes: the poller's variable and timeout only; no resource added or removed.
    const slotted = synthMonitor({ ...deployContext(api!.url), pollEvery: '10s' }).toJSON() as {
      Resources: Record<string, CfnResource>;
    };
    const types = (t: { Resources: Record<string, CfnResource> }) =>
      Object.entries(t.Resources)
        // The CDK CLI's metadata resource is added by `cdk deploy`'s synth only.
        .filter(([, r]) => r.Type !== 'AWS::CDK::Metadata')
        .map(([id, r]) => `${id} ${r.Type}`)
        .sort();
    expect(types(slotted)).toEqual(types(template));
    const poller = Object.values(slotted.Resources).find(
      (r) =>
        r.Type === 'AWS::Lambda::Function' &&
        (r.Properties?.['Environment'] as { Variables?: Record<string, unknown> })?.Variables?.[
          'SHIELDWATCH_POLL_EVERY'
        ] === '10s',
    );
    expect(poller?.Properties?.['Timeout']).toBe(SLOTTED_POLLER_TIMEOUT_SECONDS);

    // The deployed code with that variable, under the deployed role: the event of a minute that began 39.5 s
    // ago, so its slots at 40 s and 50 s run (about 11 s), each claimed in the deployed table.
    // The API as the last cycle left it: nothing changes, nothing is published.
    const scheduledMs = Date.now() - 39_500;
    const run = await invoke({
      env: { SHIELDWATCH_POLL_EVERY: '10s' },
      event: { ...event, time: new Date(scheduledMs).toISOString() },
    });
    const slots = (run.result as { slots: Array<{ at: string; outcome: string; filterOk?: boolean }> }).slots;
    expect(
      slots.map((slot) => [Date.parse(slot.at) - scheduledMs, slot.outcome]),
      run.output,
    ).toEqual([
      [40_000, 'ran'],
      [50_000, 'ran'],
    ]);
    expect(slots.every((slot) => slot.filterOk === true)).toBe(true);
    const claims = run.calls.filter(
      (c) =>
        c.service === 'dynamodb' &&
        c.operation === 'UpdateItem' &&
        JSON.stringify(c.params).includes('slot#0'),
    );
    expect(claims).toHaveLength(2);
    expect(run.calls.filter((c) => c.service === 'sns' && c.operation === 'Publish')).toEqual([]);
    // The next test checks every call of this run too against the role's deployed policies.
  }, 120_000);

  it("made only AWS calls that the deployed role's policies allow (actions, resources, conditions)", async () => {
    const policies = await aws.iam.rolePolicies(functionConfig.Role!);
    const table = outputs['TableName']!;
    const described = await aws.dynamo.send(new DescribeTableCommand({ TableName: table }));
    const partitionKey = described.Table!.KeySchema!.find((k) => k.KeyType === 'HASH')!.AttributeName!;
    const secretArn = physicalId(logicalIdsOf('AWS::SecretsManager::Secret')[0]!);
    const topicAttributes = await aws.sns.send(
      new GetTopicAttributesCommand({ TopicArn: outputs['TopicArn'] }),
    );
    const keyId = topicAttributes.Attributes?.['KmsMasterKeyId'];
    // The topic is encrypted with the stack's key: a publish needs the key too (docs/deploy.md).
    expect(keyId).toBeDefined();
    // The acknowledge link's signing key, which the poller reads to sign the links (docs/acknowledge.md).
    const ackSecretArn = functionConfig.Environment?.Variables?.['SHIELDWATCH_ACK_SECRET'];
    expect(ackSecretArn).toMatch(/^arn:aws:secretsmanager:/);
    const deployment: Deployment = {
      account: ACCOUNT,
      region: REGION,
      partitionKeys: { [table]: partitionKey },
      secretArns: {
        [ackSecretArn!]: ackSecretArn!,
        [secretArn]: secretArn,
        [outputs['SecretName']!]: secretArn,
        [functionConfig.Environment?.Variables?.['SHIELDWATCH_API_KEY_SECRET'] ?? secretArn]: secretArn,
      },
      topicKeys: { [outputs['TopicArn']!]: (await aws.kms.keyArn(keyId!))! },
    };
    const calls = cycles.flatMap((c) => c.calls);
    const operations = new Set(calls.map((c) => `${c.service}:${c.operation}`));
    for (const expected of ['secretsmanager:GetSecretValue', 'sns:Publish'])
      expect(operations).toContain(expected);
    expect([...operations].some((o) => o.startsWith('dynamodb:'))).toBe(true);

    // What the Lambda service itself does with the role: write the function's logs to its log group.
    const logGroup = physicalId(logicalIdsOf('AWS::Logs::LogGroup')[0]!);
    const logStream = `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${logGroup}:log-stream:2026/01/01/[$LATEST]0123`;
    const runtime = ['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
      call: `lambda runtime ${action}`,
      request: { action, resource: logStream, context: {} },
    }));
    const requests = [
      ...calls.flatMap((call) =>
        authzRequests(call, deployment).map((request) => ({
          call: `${call.service}:${call.operation}`,
          request,
        })),
      ),
      ...runtime,
    ];
    const denied = requests
      .map(({ call, request }) => ({ call, request, decision: evaluate(policies, request) }))
      .filter((d) => !d.decision.allowed)
      .map(
        (d) =>
          `${d.call} -> ${d.request.action} on ${d.request.resource} ${JSON.stringify(d.request.context)}: ${d.decision.reason}`,
      );
    expect(denied).toEqual([]);

    // The evaluation bites: what the role must not do is refused by the same policies.
    const tableArn = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${table}`;
    const refused: AuthzRequest[] = [
      { action: 'dynamodb:DeleteItem', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['state'] } },
      { action: 'dynamodb:Scan', resource: tableArn, context: {} },
      { action: 'dynamodb:PutItem', resource: `${tableArn}-other`, context: {} },
      { action: 'sns:Publish', resource: `${outputs['TopicArn']}-other`, context: {} },
      {
        action: 'secretsmanager:GetSecretValue',
        resource: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${PAGERDUTY_SECRET}-AbCdEf`,
        context: {},
      },
    ];
    for (const request of refused) expect(evaluate(policies, request).allowed, request.action).toBe(false);
    expect(
      evaluate(policies, {
        action: 'dynamodb:DeleteItem',
        resource: tableArn,
        context: { 'dynamodb:LeadingKeys': ['outbox'] },
      }).allowed,
    ).toBe(true);
  });
});

describe('the CLI on the deployed stack', () => {
  const env = () => ({
    SHIELDWATCH_TABLE: outputs['TableName']!,
    SHIELDWATCH_NETWORKS: 'net-1,net-2',
    SHIELDWATCH_EXPECTED_STATUS: 'active',
  });

  it('status, events and history read what the deployed function stored', async () => {
    const status = await cli(['status', '--format', 'json'], env());
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('mitigating');
    const events = await cli(['events', '--all', '--format', 'json'], env());
    expect(events.code, events.stderr).toBe(0);
    const list = JSON.parse(events.stdout) as { event: string; to?: string }[];
    expect(list.map((e) => e.event)).toEqual(
      expect.arrayContaining(['filter.status_changed', 'network.rule_triggered']),
    );
    expect(list.find((e) => e.event === 'filter.status_changed')?.to).toBe('mitigating');
    const history = await cli(['history', '--network', 'net-1', '--format', 'json'], env());
    expect(history.code, history.stderr).toBe(0);
    // Three cycles, then the two slots run at pollEvery=10s.
    expect((JSON.parse(history.stdout) as unknown[]).length).toBe(5);
  }, 60_000);

  it('the maintenance window declared in context reaches the deployed function, whose configuration reads it (CONTRACT §17)', async () => {
    const variable = functionConfig.Environment?.Variables?.['SHIELDWATCH_MAINTENANCE'];
    expect(JSON.parse(variable ?? '[]')).toEqual([MAINTENANCE_WINDOW]);
    // The deployed environment's windows, as the deployed function's loader reads them, with their next start.
    const listed = await cli(['silence', 'list', '--format', 'json'], {
      ...env(),
      SHIELDWATCH_MAINTENANCE: variable!,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('deploy test window');
    expect(listed.stdout).toContain(`${MAINTENANCE_WINDOW.start}`);
  }, 60_000);

  it('silence starts, lists and ends a silence in the deployed table', async () => {
    const started = await cli(['silence', '--for', '1h', '--reason', 'deploy test'], env());
    expect(started.code, started.stderr).toBe(0);
    const id = /\bs-[a-z0-9]+/.exec(started.stdout)?.[0];
    expect(id, started.stdout).toBeDefined();
    const listed = await cli(['silence', 'list', '--format', 'json'], env());
    expect(listed.stdout).toContain(id!);
    const ended = await cli(['silence', 'end', id!], env());
    expect(ended.code, ended.stderr).toBe(0);
  }, 60_000);
});

describeStatusPage(() => ({
  stackName: STACK,
  aws,
  emulator: emulator!,
  work,
  template,
  resources,
  outputs,
  cli: (args, extra) => cli(args, extra),
}));

describeAckFunction(
  () => ({
    stackName: STACK,
    aws,
    emulator: emulator!,
    work,
    template,
    resources,
    outputs,
    cli: (args, extra) => cli(args, extra),
  }),
  {
    link: () => ackLink!.link,
    incident: () => ackLink!.incident,
    statusLink: () => statusLink!.link,
    statusIncident: () => statusLink!.incident,
  },
);

describeDigest(
  () => ({
    stackName: STACK,
    aws,
    emulator: emulator!,
    work,
    template,
    resources,
    outputs,
    cli: (args, extra) => cli(args, extra),
  }),
  DIGEST,
);

describe('cdk destroy', () => {
  it('removes the stack and keeps the history table (RemovalPolicy RETAIN, README Remove the stack)', async () => {
    const table = outputs['TableName']!;
    const tableResource = template.Resources[logicalIdsOf('AWS::DynamoDB::Table')[0]!]!;
    expect(tableResource.DeletionPolicy).toBe('Retain');
    // From the deployed cloud assembly (`--app cdk.out`): the template that was deployed, without a second synth.
    await cdk(['destroy', STACK, '--force', '--app', join(work, 'cdk.out')], emulator!);
    await expect(aws.cloudformation.send(new DescribeStacksCommand({ StackName: STACK }))).rejects.toThrow();
    const kept = await aws.dynamo.send(new DescribeTableCommand({ TableName: table }));
    expect(kept.Table?.TableStatus).toBe('ACTIVE');
    expect(await emulatedResourceExists(aws, 'AWS::Lambda::Function', outputs['FunctionName']!)).toBe(false);
    // What was filled in is removed again through the same APIs.
    const deleted = new Set(
      emulator!
        .fills()
        .filter((f) => f.action === 'delete')
        .map((f) => f.logicalId),
    );
    // (The bootstrap stack's fills stay with it.)
    const created = fills
      .filter((f) => f.action === 'create' && f.logicalId in template.Resources)
      .map((f) => f.logicalId);
    expect(created.filter((id) => !deleted.has(id))).toEqual([]);
    const secretArn = fills.find((f) => f.type === 'AWS::SecretsManager::Secret')!.physicalId;
    expect(await emulatedResourceExists(aws, 'AWS::SecretsManager::Secret', secretArn)).toBe(false);
    // The status page's bucket is kept like the table (docs/status-page.md); its distribution is removed.
    const page = (type: string) => physicalId(logicalIdsOf(type)[0]!);
    expect(await emulatedResourceExists(aws, 'AWS::S3::Bucket', page('AWS::S3::Bucket'))).toBe(true);
    expect(
      await emulatedResourceExists(
        aws,
        'AWS::CloudFront::Distribution',
        page('AWS::CloudFront::Distribution'),
      ),
    ).toBe(false);
  }, 120_000);
});

/** Runs the CLI (`node bin/shieldwatch.mjs`) against the emulator and the HTTPS API. */
function cli(args: string[], extra: Record<string, string> = {}, input?: string): Promise<Run> {
  return run(process.execPath, [join(PROJECT_ROOT, 'bin/shieldwatch.mjs'), ...args], {
    env: {
      PATH: process.env['PATH'],
      HOME: work,
      SHIELDWATCH_ENV_FILE: '/dev/null',
      NODE_EXTRA_CA_CERTS: api!.certFile,
      ...emulator!.env,
      ...extra,
    },
    input,
    timeoutMs: 45_000,
  });
}
