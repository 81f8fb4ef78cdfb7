/**
 * The hosted status page of the deployed stack (docs/status-page.md, deployed with `-c statusPage=private`;
 * docs/deploy-test.md): its outputs name the deployed distribution, public key and secret; the key pair made at
 * deploy by the key function (filled in by running that function's deployed code) is in the secret and is the
 * deployed CloudFront public key; the deployed publisher, run with its environment and role, writes the page's
 * five objects (feed.atom among them) to the deployed bucket, and every AWS call it made is allowed by its role's deployed policies;
 * `shieldwatch page-link` prints a link that verifies against the deployed public key.
 *
 * Registered by deploy.test.ts (one deployment for the whole file), before `cdk destroy`.
 */
import { createPublicKey, createVerify } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StackResourceSummary } from '@aws-sdk/client-cloudformation';
import { DescribeSecretCommand, GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsCall, type Deployment, type Recorder, startRecorder } from './aws-calls.ts';
import { deniedCalls, invokeFunction, type ReadyFunction, readyFunction } from './deployed-function.ts';
import { ACCOUNT, type Emulator, REGION, type Run } from './emulator.ts';
import { type AuthzRequest, evaluate } from './iam-policy.ts';
import type { services } from './services.ts';

type CfnResource = { Type: string; Properties?: Record<string, unknown> };

/** What the status page tests need of the deployment made by deploy.test.ts. */
export interface DeployedStack {
  readonly stackName: string;
  readonly aws: ReturnType<typeof services>;
  readonly emulator: Emulator;
  readonly work: string;
  readonly template: { Resources: Record<string, CfnResource> };
  readonly resources: Map<string, StackResourceSummary>;
  readonly outputs: Record<string, string>;
  /** Runs the CLI against the emulator. */
  cli(args: string[], extra?: Record<string, string>): Promise<Run>;
}

/** The page's five objects (lambda/status-page/pages.ts PAGE_KEYS), as the private role may write them. */
const PAGE_OBJECTS = ['index.html', 'report-24h.html', 'report-7d.html', 'status.json', 'feed.atom'];

/** CloudFront's URL-safe base64 (`+` `-`, `=` `_`, `/` `~`) back to bytes. */
function cloudFrontBase64(text: string): Buffer {
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64');
}

function xml(text: string, name: string): string | undefined {
  return new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(text)?.[1];
}

/** A PEM public key in one canonical form (SPKI), so that line endings do not matter. */
function spki(pem: string): string {
  return createPublicKey(pem).export({ type: 'spki', format: 'pem' }).toString();
}

/** Registers the status page tests on the deployment `stack()` gives once deploy.test.ts has deployed. */
export function describeStatusPage(stack: () => DeployedStack): void {
  describe('the status page (statusPage=private)', () => {
    let s: DeployedStack;
    let recorder: Recorder;
    let responder: Server;
    let responderUrl: string;
    const answers: string[] = [];
    const keyCalls: AwsCall[] = [];
    let publisherCalls: AwsCall[] = [];
    let deployedPublicKey: string;

    const logicalIdsOf = (type: string) =>
      Object.entries(s.template.Resources)
        .filter(([, r]) => r.Type === type)
        .map(([id]) => id);
    const physicalId = (logicalId: string): string => {
      const id = s.resources.get(logicalId)?.PhysicalResourceId;
      if (id === undefined) throw new Error(`no deployed resource ${logicalId}`);
      return id;
    };
    const only = (type: string): string => {
      const ids = logicalIdsOf(type);
      expect(ids, type).toHaveLength(1);
      return ids[0]!;
    };
    const cloudfront = async (path: string): Promise<string> => {
      const answer = await s.aws.call('cloudfront', { path: `/2020-05-31/${path}` });
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      return answer.text;
    };
    /** The function the custom resource calls, and the publisher (the function that writes to the bucket). */
    const keyFunctionId = () => {
      const token = s.template.Resources[only('Custom::StatusPageSigningKey')]!.Properties!['ServiceToken'];
      return (token as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    };
    const publisherId = () => {
      const ids = logicalIdsOf('AWS::Lambda::Function').filter((id) => {
        const env = s.template.Resources[id]!.Properties!['Environment'] as
          | { Variables?: Record<string, unknown> }
          | undefined;
        return env?.Variables?.['STATUS_PAGE_BUCKET'] !== undefined;
      });
      expect(ids).toHaveLength(1);
      return ids[0]!;
    };

    const readied = new Map<string, Promise<ReadyFunction>>();
    /** The deployed function's code, readied once (`deployed-function.ts`). */
    const ready = (logicalId: string): Promise<ReadyFunction> => {
      const known = readied.get(logicalId) ?? readyFunction(s, logicalId);
      readied.set(logicalId, known);
      return known;
    };
    /** Runs a ready function once with `event`, its deployed environment and its role, through the recorder. */
    const invoke = (fn: ReadyFunction, event: unknown) => invokeFunction(s, recorder, fn, event);

    /** The custom resource's event, as CloudFormation sends it, answered to the loopback responder. */
    const keyEvent = (type: 'Create' | 'Update') => {
      const logicalId = only('Custom::StatusPageSigningKey');
      const token = s.resources.get(keyFunctionId())!.PhysicalResourceId!;
      return {
        RequestType: type,
        ServiceToken: token,
        ResponseURL: responderUrl,
        StackId: `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${s.stackName}/deploy-test`,
        RequestId: `deploy-test-${type}`,
        LogicalResourceId: logicalId,
        ResourceType: 'Custom::StatusPageSigningKey',
        ...(type === 'Create' ? {} : { PhysicalResourceId: physicalId(logicalId) }),
        ResourceProperties: { ServiceToken: token, SecretId: s.outputs['StatusPageKeySecret'] },
      };
    };

    beforeAll(async () => {
      s = stack();
      recorder = await startRecorder(s.emulator.endpoint);
      responder = createServer((req, res) => {
        let body = '';
        req.setEncoding('utf8').on('data', (c: string) => {
          body += c;
        });
        req.on('end', () => {
          answers.push(body);
          res.end();
        });
      });
      await new Promise<void>((resolve) => responder.listen(0, '127.0.0.1', resolve));
      responderUrl = `http://127.0.0.1:${(responder.address() as AddressInfo).port}/cloudformation-response`;
    });

    afterAll(async () => {
      await recorder?.close();
      await new Promise<void>((resolve) => (responder ? responder.close(() => resolve()) : resolve()));
    });

    it('gives StatusPageUrl, StatusPageKeyId and StatusPageKeySecret, naming the deployed distribution, key and secret', async () => {
      const distributionId = physicalId(only('AWS::CloudFront::Distribution'));
      const distribution = await cloudfront(`distribution/${distributionId}`);
      expect(s.outputs['StatusPageUrl']).toBe(`https://${xml(distribution, 'DomainName')}/`);
      const keyId = physicalId(only('AWS::CloudFront::PublicKey'));
      expect(s.outputs['StatusPageKeyId']).toBe(keyId);
      const secretId = s.template.Resources[only('Custom::StatusPageSigningKey')]!.Properties!['SecretId'];
      const secretArn = physicalId((secretId as { Ref: string }).Ref);
      expect(s.outputs['StatusPageKeySecret']).toBe(secretArn);
      const described = await s.aws.secrets.send(new DescribeSecretCommand({ SecretId: secretArn }));
      expect(described.ARN).toBe(secretArn);

      // The distribution as deployed: signed URLs of the stack's key group only, HTTPS only, index.html at the
      // root, the bucket through origin access control, the security headers.
      const keyGroupId = physicalId(only('AWS::CloudFront::KeyGroup'));
      const keyGroup = await cloudfront(`key-group/${keyGroupId}`);
      expect(keyGroup).toContain(keyId);
      const trusted = xml(distribution, 'TrustedKeyGroups') ?? '';
      expect(trusted).toContain(keyGroupId);
      expect(trusted).toMatch(/<Enabled>true<\/Enabled>/);
      expect(xml(distribution, 'ViewerProtocolPolicy')).toBe('https-only');
      expect(xml(distribution, 'DefaultRootObject')).toBe('index.html');
      expect(xml(distribution, 'ResponseHeadersPolicyId')).toBe(
        physicalId(only('AWS::CloudFront::ResponseHeadersPolicy')),
      );
      const bucket = physicalId(only('AWS::S3::Bucket'));
      expect(xml(distribution, 'DomainName')).not.toBe(undefined);
      expect(distribution).toContain(`<DomainName>${bucket}.s3.`);

      // The bucket's deployed policy: CloudFront reads for this distribution only, nothing without TLS.
      const policy = JSON.parse((await s.aws.call('s3', { path: `/${bucket}?policy` })).text) as {
        Statement: { Effect: string; Principal: unknown; Action: string; Condition?: unknown }[];
      };
      const allows = policy.Statement.filter((st) => st.Effect === 'Allow');
      expect(allows).toEqual([
        expect.objectContaining({
          Principal: { Service: 'cloudfront.amazonaws.com' },
          Action: 's3:GetObject',
          Condition: {
            StringEquals: {
              'AWS:SourceArn': `arn:aws:cloudfront::${ACCOUNT}:distribution/${distributionId}`,
            },
          },
        }),
      ]);
    });

    it('made the key pair at deploy: the secret holds the private key of the deployed CloudFront public key', async () => {
      // Filled in by running the deployed key function, never silently.
      const fill = s.emulator
        .fills()
        .find((f) => f.type === 'Custom::StatusPageSigningKey' && f.action === 'create');
      expect(fill?.via).toMatch(/^the deployed function .* run with the Create event/);
      const keyId = s.outputs['StatusPageKeyId']!;
      deployedPublicKey = spki(
        (xml(await cloudfront(`public-key/${keyId}`), 'EncodedKey') ?? '').replace(/&#xA;|&#10;/g, '\n'),
      );
      const secret = await s.aws.secrets.send(
        new GetSecretValueCommand({ SecretId: s.outputs['StatusPageKeySecret'] }),
      );
      expect(secret.SecretString).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
      expect(spki(secret.SecretString!)).toBe(deployedPublicKey);
      expect(createPublicKey(deployedPublicKey).asymmetricKeyDetails?.modulusLength).toBe(2048);

      // The deployed key function's asset, run again as CloudFormation's update would: it keeps the pair and
      // answers with its public half only.
      const fn = await ready(keyFunctionId());
      expect(JSON.stringify(fn.config.Environment ?? {})).not.toContain('PRIVATE KEY');
      answers.length = 0;
      const updated = await invoke(fn, keyEvent('Update'));
      keyCalls.push(...updated.calls);
      expect(answers).toHaveLength(1);
      expect(answers[0]).not.toContain('PRIVATE KEY');
      const answer = JSON.parse(answers[0]!) as {
        Status: string;
        PhysicalResourceId: string;
        Data: { PublicKeyPem: string };
      };
      expect(answer.Status).toBe('SUCCESS');
      expect(spki(answer.Data.PublicKeyPem)).toBe(deployedPublicKey);
      expect(answer.PhysicalResourceId).toBe(physicalId(only('Custom::StatusPageSigningKey')));
    }, 60_000);

    it('the deployed publisher writes the five objects of the private page (feed.atom among them) to the deployed bucket', async () => {
      const id = publisherId();
      const fn = await ready(id);
      const bucket = physicalId(only('AWS::S3::Bucket'));
      expect(fn.config.Environment?.Variables?.['STATUS_PAGE_BUCKET']).toBe(bucket);
      expect(fn.config.Environment?.Variables?.['STATUS_PAGE_MODE']).toBe('private');
      // The page's own address reaches the publisher (a public feed's links are absolute with it).
      expect(fn.config.Environment?.Variables?.['STATUS_PAGE_URL']).toBe(s.outputs['StatusPageUrl']);
      // The event its own schedule sends.
      const scheduleId = logicalIdsOf('AWS::Scheduler::Schedule').find((sid) =>
        JSON.stringify(s.template.Resources[sid]!.Properties).includes(id),
      )!;
      const schedule = await s.aws.scheduler.getSchedule(physicalId(scheduleId));
      expect(schedule.Target.Arn).toBe(fn.config.FunctionArn);
      const event = schedule.Target.Input === undefined ? {} : JSON.parse(schedule.Target.Input);
      const published = await invoke(fn, event);
      publisherCalls = published.calls;

      expect((published.result as { written: string[] }).written.sort()).toEqual([...PAGE_OBJECTS].sort());
      const objects = Object.fromEntries(
        await Promise.all(
          PAGE_OBJECTS.map(
            async (key) => [key, (await s.aws.s3.getObject(bucket, key)).toString('utf8')] as const,
          ),
        ),
      );
      // What the deployed poller stored earlier in this file: the filter moved away from `active`, net-1's rule.
      const status = JSON.parse(objects['status.json']!) as {
        status: string;
        away: boolean;
        lastCycleAt: string | null;
        openIncidents: unknown[];
      };
      expect(status).toMatchObject({ status: 'mitigating', away: true });
      expect(status.lastCycleAt).not.toBeNull();
      expect(status.openIncidents.length).toBeGreaterThan(0);
      // One view (CONTRACT §15): the open incidents are, row by row, those `shieldwatch incidents` lists.
      const listed = await s.cli(['incidents', '--format', 'json', '--stack', s.stackName]);
      expect(listed.code, listed.stdout + listed.stderr).toBe(0);
      const rows = (JSON.parse(listed.stdout) as Array<{ state: string }>).filter(
        (r) => r.state !== 'resolved',
      );
      expect(status.openIncidents).toEqual(rows);
      expect(objects['index.html']).toContain('report-24h.html');
      expect(objects['index.html']).toContain('report-7d.html');
      for (const report of ['report-24h.html', 'report-7d.html']) {
        expect(objects[report], report).toMatch(/^<!doctype html>/i);
        expect(objects[report], report).toContain('net-1');
      }
      // The feed (CONTRACT §19): Atom, an entry for the open incident that opened in this deployment's week.
      expect(objects['feed.atom']).toMatch(
        /^<\?xml version="1.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/,
      );
      expect(objects['feed.atom']).toContain('<entry>');
      expect(objects['feed.atom']).toContain(
        '<link rel="self" href="feed.atom" type="application/atom+xml"/>',
      );
    }, 90_000);

    it("made only AWS calls that the publisher's deployed role allows: Query on the snapshots, events, state, members and silences, PutObject on the five objects", async () => {
      const table = s.outputs['TableName']!;
      const bucket = physicalId(only('AWS::S3::Bucket'));
      const fn = await ready(publisherId());
      const deployment: Deployment = {
        account: ACCOUNT,
        region: REGION,
        partitionKeys: { [table]: 'pk' },
        secretArns: {},
        topicKeys: {},
      };
      expect(new Set(publisherCalls.map((c) => `${c.service}:${c.operation}`))).toEqual(
        new Set(['dynamodb:Query', 's3:PutObject']),
      );
      expect(publisherCalls.every((c) => c.status === 200)).toBe(true);
      const puts = publisherCalls.filter((c) => c.operation === 'PutObject').map((c) => c.params['Key']);
      expect([...puts].sort()).toEqual([...PAGE_OBJECTS].sort());
      const { policies, denied } = await deniedCalls(s, fn, publisherCalls, deployment);
      expect(denied).toEqual([]);
      // It read the listing of incidents (the state items) and the silences, never an outbox.
      const partitions = new Set(
        publisherCalls
          .filter((c) => c.operation === 'Query')
          .map((c) => (c.params['ExpressionAttributeValues'] as Record<string, { S?: string }>)?.[':pk']?.S),
      );
      expect(partitions).toContain('state');
      expect(partitions).toContain('silence');
      expect(partitions).not.toContain('outbox');

      // The evaluation bites: what the publisher must not do is refused by the same policies.
      const tableArn = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${table}`;
      const refused: AuthzRequest[] = [
        { action: 'dynamodb:Query', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['outbox'] } },
        { action: 'dynamodb:GetItem', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['filter'] } },
        { action: 'dynamodb:GetItem', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['state'] } },
        { action: 'dynamodb:UpdateItem', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['state'] } },
        { action: 'dynamodb:PutItem', resource: tableArn, context: { 'dynamodb:LeadingKeys': ['silence'] } },
        { action: 'dynamodb:Scan', resource: tableArn, context: {} },
        { action: 's3:PutObject', resource: `arn:aws:s3:::${bucket}/other.html`, context: {} },
        { action: 's3:GetObject', resource: `arn:aws:s3:::${bucket}/index.html`, context: {} },
        { action: 's3:DeleteObject', resource: `arn:aws:s3:::${bucket}/report-24h.html`, context: {} },
        {
          action: 'secretsmanager:GetSecretValue',
          resource: s.outputs['StatusPageKeySecret']!,
          context: {},
        },
      ];
      for (const request of refused)
        expect(evaluate(policies, request).allowed, `${request.action} ${request.resource}`).toBe(false);
    });

    it('shieldwatch page-link --stack prints a link that verifies against the deployed public key', async () => {
      const before = Math.floor(Date.now() / 1000);
      const link = await s.cli(['page-link', '--stack', s.stackName, '--for', '12h']);
      expect(link.code, link.stdout + link.stderr).toBe(0);
      expect(link.stdout + link.stderr).not.toContain('PRIVATE');
      const url = new URL(link.stdout.trim());
      expect(`${url.origin}${url.pathname}`).toBe(s.outputs['StatusPageUrl']);
      expect(url.searchParams.get('Key-Pair-Id')).toBe(s.outputs['StatusPageKeyId']);
      const policy = cloudFrontBase64(url.searchParams.get('Policy')!);
      const statement = JSON.parse(policy.toString('utf8')).Statement[0];
      expect(statement.Resource).toBe(`${s.outputs['StatusPageUrl']}*`);
      const expires = statement.Condition.DateLessThan['AWS:EpochTime'] as number;
      expect(expires - before).toBeGreaterThanOrEqual(12 * 3600);
      expect(expires - before).toBeLessThan(12 * 3600 + 120);
      const signature = cloudFrontBase64(url.searchParams.get('Signature')!);
      expect(createVerify('RSA-SHA1').update(policy).verify(deployedPublicKey, signature)).toBe(true);
      // A changed expiry no longer verifies.
      const forged = policy.toString('utf8').replace(String(expires), String(expires + 86_400));
      expect(createVerify('RSA-SHA1').update(forged).verify(deployedPublicKey, signature)).toBe(false);
    }, 60_000);

    it("the key function made only calls its deployed role allows; a Create writes a new pair's private half", async () => {
      const id = keyFunctionId();
      const fn = await ready(id);
      answers.length = 0;
      const created = await invoke(fn, keyEvent('Create'));
      keyCalls.push(...created.calls);
      const answer = JSON.parse(answers[0]!) as { Status: string; Data: { PublicKeyPem: string } };
      expect(answer.Status).toBe('SUCCESS');
      const secret = await s.aws.secrets.send(
        new GetSecretValueCommand({ SecretId: s.outputs['StatusPageKeySecret'] }),
      );
      expect(spki(secret.SecretString!)).toBe(spki(answer.Data.PublicKeyPem));
      expect(spki(answer.Data.PublicKeyPem)).not.toBe(deployedPublicKey);

      const secretArn = s.outputs['StatusPageKeySecret']!;
      expect(new Set(keyCalls.map((c) => `${c.service}:${c.operation}`))).toEqual(
        new Set(['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']),
      );
      const { policies, denied } = await deniedCalls(s, fn, keyCalls, {
        account: ACCOUNT,
        region: REGION,
        partitionKeys: {},
        secretArns: { [secretArn]: secretArn },
        topicKeys: {},
      });
      expect(denied).toEqual([]);
      const apiKeySecret = physicalId(logicalIdsOf('AWS::SecretsManager::Secret')[0]!);
      expect(apiKeySecret).not.toBe(secretArn);
      for (const action of ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'])
        expect(evaluate(policies, { action, resource: apiKeySecret, context: {} }).allowed, action).toBe(
          false,
        );
    }, 60_000);
  });
}
