/**
 * The deployed acknowledge function (docs/acknowledge.md, The link), on the deployment deploy.test.ts made:
 * `AckUrl` is its function URL; its code is the asset the CDK CLI uploaded (CodeSha256 checked), run with its
 * deployed environment and its role's credentials, every AWS call through the recorder; the link the deployed
 * poller put into its incident.opened alert is fetched (GET: the page, nothing written) and posted (POST: the
 * incident acknowledged once, by `link`, its alert queued in the item); a forged token gets the one refusal; and
 * every call it made is allowed by its deployed role, which refuses what it must not do.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsCall, authzRequests, type Deployment, type Recorder, startRecorder } from './aws-calls.ts';
import { ACCOUNT, PROJECT_ROOT, REGION, run } from './emulator.ts';
import { type AuthzRequest, evaluate } from './iam-policy.ts';
import type { DeployedStack } from './status-page.ts';

/** What the acknowledge tests need besides the deployment: the link the deployed poller sent. */
export interface AckInputs {
  /** The link of the incident.opened alert the deployed poller published (its email text). */
  readonly link: () => string;
  /** The incident it names. */
  readonly incident: () => string;
  /** The link of the status change away from the expected status (the monitor's own incident). */
  readonly statusLink: () => string;
  /** The incident it names (`filter.status_changed/<when it went away>`). */
  readonly statusIncident: () => string;
}

/** A function URL request, as Lambda hands it to the function. */
function urlEvent(method: 'GET' | 'POST', link: URL, body?: string) {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: link.pathname,
    rawQueryString: method === 'GET' ? link.search.slice(1) : '',
    headers: {
      host: link.host,
      ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
    },
    ...(method === 'GET' ? { queryStringParameters: Object.fromEntries(link.searchParams) } : {}),
    requestContext: {
      accountId: 'anonymous',
      domainName: link.host,
      http: {
        method,
        path: link.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'deploy-test',
      },
      requestId: 'deploy-test',
      routeKey: '$default',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    ...(body === undefined ? {} : { body: Buffer.from(body).toString('base64') }),
    isBase64Encoded: body !== undefined,
  };
}

/** Registers the acknowledge function's tests on the deployment `stack()` gives once deployed. */
export function describeAckFunction(stack: () => DeployedStack, inputs: AckInputs): void {
  describe('the deployed acknowledge function', () => {
    let s: DeployedStack;
    let recorder: Recorder;
    let codeDir: string;
    let config: {
      FunctionArn?: string;
      Role?: string;
      Handler?: string;
      Runtime?: string;
      Timeout?: number;
      MemorySize?: number;
      Environment?: { Variables?: Record<string, string> };
    };
    let name: string;
    let logGroup: string;
    const calls: AwsCall[] = [];

    const physicalId = (logicalId: string): string => {
      const id = s.resources.get(logicalId)?.PhysicalResourceId;
      if (id === undefined) throw new Error(`no deployed resource ${logicalId}`);
      return id;
    };
    /** The one resource of `type` whose logical id starts with `prefix` (the construct's id, `Ack`). */
    const ackResource = (type: string, prefix = 'Ack'): string => {
      const ids = Object.entries(s.template.Resources)
        .filter(([id, r]) => r.Type === type && id.startsWith(prefix))
        .map(([id]) => id);
      expect(ids, `${type} ${prefix}*`).toHaveLength(1);
      return ids[0]!;
    };

    beforeAll(async () => {
      s = stack();
      const logicalId = ackResource('AWS::Lambda::Function');
      name = physicalId(logicalId);
      const got = await s.aws.lambda.getFunction(name);
      config = got.Configuration;
      const code = s.template.Resources[logicalId]!.Properties!['Code'] as { S3Key: string };
      const zip = await s.aws.s3.getObject(`cdk-hnb659fds-assets-${ACCOUNT}-${REGION}`, code.S3Key);
      expect(createHash('sha256').update(zip).digest('base64')).toBe(got.Configuration.CodeSha256);
      codeDir = join(s.work, 'code-ack');
      mkdirSync(codeDir);
      writeFileSync(`${codeDir}.zip`, zip);
      const unzip = await run('unzip', ['-q', `${codeDir}.zip`, '-d', codeDir], {
        env: { PATH: process.env['PATH'] },
      });
      expect(unzip.code, unzip.stderr).toBe(0);
      logGroup = physicalId(ackResource('AWS::Logs::LogGroup'));
      recorder = await startRecorder(s.emulator.endpoint);
    }, 60_000);

    afterAll(async () => {
      await recorder?.close();
    });

    /** Runs the deployed function once with `event`, its environment and its role, through the recorder. */
    async function invoke(
      event: unknown,
    ): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
      const credentials = await s.aws.sts.assumeRole(config.Role!);
      const eventFile = join(s.work, 'event-ack.json');
      writeFileSync(eventFile, JSON.stringify(event));
      const before = recorder.calls.length;
      const result = await run(
        process.execPath,
        [
          join(PROJECT_ROOT, 'test/deploy/run-deployed-function.mjs'),
          codeDir,
          eventFile,
          config.Handler ?? 'index.handler',
          String(config.Timeout ?? 10),
        ],
        {
          env: {
            PATH: process.env['PATH']!,
            ...config.Environment?.Variables,
            AWS_REGION: REGION,
            AWS_DEFAULT_REGION: REGION,
            AWS_LAMBDA_FUNCTION_NAME: name,
            AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
            AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(config.MemorySize),
            AWS_LAMBDA_LOG_GROUP_NAME: logGroup,
            AWS_LAMBDA_LOG_STREAM_NAME: 'deploy-test',
            AWS_EXECUTION_ENV: `AWS_Lambda_${config.Runtime}`,
            LAMBDA_TASK_ROOT: codeDir,
            TZ: ':UTC',
            AWS_ACCESS_KEY_ID: credentials.AccessKeyId,
            AWS_SECRET_ACCESS_KEY: credentials.SecretAccessKey,
            AWS_SESSION_TOKEN: credentials.SessionToken,
            // Not in a real Lambda: every AWS call goes through the recorder to the emulator.
            AWS_ENDPOINT_URL: recorder.url,
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            SHIELDWATCH_DEPLOY_TEST_FUNCTION_ARN: config.FunctionArn!,
          },
          cwd: codeDir,
          timeoutMs: 60_000,
        },
      );
      const last = result.stdout.trim().split('\n').at(-1) ?? '';
      if (!last.startsWith('RESULT ')) {
        throw new Error(`the deployed acknowledge function failed:\n${result.stdout}\n${result.stderr}`);
      }
      calls.push(...recorder.calls.slice(before));
      return JSON.parse(last.slice('RESULT '.length));
    }

    const incidentItem = async () => {
      const rule = inputs.incident().split('@')[0]!;
      const got = await s.aws.dynamo.send(
        new GetItemCommand({
          TableName: s.outputs['TableName']!,
          Key: { pk: { S: 'state' }, sk: { S: `incident#${rule}` } },
          ConsistentRead: true,
        }),
      );
      return got.Item;
    };

    it('AckUrl is its function URL; the deployed environment names the secret, never the key', async () => {
      const url = await s.aws.call('lambda', {
        path: `/2021-10-31/functions/${encodeURIComponent(name)}/url`,
      });
      // moto answers GetFunctionUrlConfig with 201.
      expect(url.status, url.text).toBeLessThan(300);
      expect(s.outputs['AckUrl']).toBe(
        `${(JSON.parse(url.text) as { FunctionUrl: string }).FunctionUrl.replace(/\/?$/, '/')}`,
      );
      expect(JSON.parse(url.text)).toMatchObject({ AuthType: 'NONE' });
      const secretArn = physicalId(ackResource('AWS::SecretsManager::Secret'));
      expect(config.Environment?.Variables?.['SHIELDWATCH_ACK_SECRET']).toBe(secretArn);
      const key = await s.aws.secrets.send(new GetSecretValueCommand({ SecretId: secretArn }));
      expect(key.SecretString?.length).toBe(64);
      expect(JSON.stringify(config.Environment)).not.toContain(key.SecretString!);
      expect(inputs.link().startsWith(`${s.outputs['AckUrl']}?t=`)).toBe(true);
    });

    it("the poller's link: GET shows the incident and writes nothing; POST acknowledges it once; a forged token is refused", async () => {
      const link = new URL(inputs.link());
      const before = await incidentItem();

      const shown = await invoke(urlEvent('GET', link));
      const afterGet = await incidentItem();
      const token = link.searchParams.get('t')!;
      const posted = await invoke(urlEvent('POST', link, `t=${token}`));
      const again = await invoke(urlEvent('POST', link, `t=${token}`));
      const forged = new URL(link);
      forged.searchParams.set('t', `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`);
      const refused = await invoke(urlEvent('GET', forged));
      const after = await incidentItem();

      expect(shown.statusCode).toBe(200);
      expect(shown.body).toContain(inputs.incident());
      expect(shown.headers['referrer-policy']).toBe('no-referrer');
      expect(afterGet).toEqual(before);
      expect(posted.statusCode).toBe(200);
      expect(again.statusCode).toBe(200);
      expect(refused.statusCode).toBe(404);
      const state = JSON.parse(after!['state']!.S!) as { open?: { acknowledged?: { by: string } } };
      expect(state.open?.acknowledged?.by).toBe('link');
      expect(after!['version']).not.toEqual(before!['version']);
      expect(JSON.stringify(after)).toContain('incident.acknowledged');
    }, 120_000);

    it("the status change's link acknowledges the monitor's own incident, in the monitor item, once", async () => {
      const monitorItem = async () =>
        (
          await s.aws.dynamo.send(
            new GetItemCommand({
              TableName: s.outputs['TableName']!,
              Key: { pk: { S: 'state' }, sk: { S: 'monitor' } },
              ConsistentRead: true,
            }),
          )
        ).Item;
      const link = new URL(inputs.statusLink());
      const token = link.searchParams.get('t')!;
      const before = await monitorItem();

      const shown = await invoke(urlEvent('GET', link));
      const afterGet = await monitorItem();
      const posted = await invoke(urlEvent('POST', link, `t=${token}`));
      const again = await invoke(urlEvent('POST', link, `t=${token}`));
      const after = await monitorItem();

      expect(shown.statusCode).toBe(200);
      expect(shown.body).toContain(inputs.statusIncident());
      expect(afterGet).toEqual(before);
      expect(posted.statusCode).toBe(200);
      expect(again.statusCode).toBe(200);
      expect(after!['version']).not.toEqual(before!['version']);
      const text = JSON.stringify(after);
      // The acknowledgement on the incident's timers, and incident.acknowledged queued once in the outbox.
      expect(text).toContain('incident.acknowledged');
      expect(text.split('incident.acknowledged').length - 1).toBe(1);
      expect(text).toContain(inputs.statusIncident());
    }, 120_000);

    it("made only AWS calls that its deployed role's policies allow, which refuse everything else", async () => {
      const policies = await s.aws.iam.rolePolicies(config.Role!);
      const table = s.outputs['TableName']!;
      const secretArn = physicalId(ackResource('AWS::SecretsManager::Secret'));
      const deployment: Deployment = {
        account: ACCOUNT,
        region: REGION,
        partitionKeys: { [table]: 'pk' },
        secretArns: { [secretArn]: secretArn },
        topicKeys: {},
      };
      const operations = new Set(calls.map((c) => `${c.service}:${c.operation}`));
      expect(operations).toContain('secretsmanager:GetSecretValue');
      expect(operations).toContain('dynamodb:GetItem');
      expect(operations).toContain('dynamodb:UpdateItem');
      const runtime = ['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
        call: `lambda runtime ${action}`,
        request: {
          action,
          resource: `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${logGroup}:log-stream:2026/01/01/[$LATEST]0123`,
          context: {},
        },
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
            `${d.call} -> ${d.request.action} on ${d.request.resource} ${JSON.stringify(d.request.context)}`,
        );
      expect(denied).toEqual([]);

      const tableArn = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${table}`;
      const apiKeySecret = s.outputs['SecretName']!;
      const refused: AuthzRequest[] = [
        { action: 'dynamodb:PutItem', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['state'] } },
        { action: 'dynamodb:DeleteItem', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['state'] } },
        {
          action: 'dynamodb:UpdateItem',
          resource: tableArn,
          context: { 'dynamodb:LeadingKeys': ['filter'] },
        },
        { action: 'dynamodb:GetItem', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['outbox'] } },
        // It may Query `state` (a per-network rule incident's cell is found among the rule items), nothing else.
        { action: 'dynamodb:Query', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['filter'] } },
        { action: 'dynamodb:Query', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['event'] } },
        { action: 'dynamodb:Scan', resource: tableArn, context: {} },
        {
          action: 'dynamodb:GetItem',
          resource: `${tableArn}-other`,
          context: { 'dynamodb:LeadingKeys': ['state'] },
        },
        { action: 'sns:Publish', resource: s.outputs['TopicArn']!, context: {} },
        {
          action: 'secretsmanager:GetSecretValue',
          resource: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${apiKeySecret}-AbCdEf`,
          context: {},
        },
        { action: 'secretsmanager:PutSecretValue', resource: secretArn, context: {} },
      ];
      for (const request of refused) {
        expect(
          evaluate(policies, request).allowed,
          `${request.action} ${JSON.stringify(request.context)}`,
        ).toBe(false);
      }
    });
  });
}
