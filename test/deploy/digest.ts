/**
 * The digest of the deployed stack (CONTRACT §19, docs/digest.md; deployed with `-c digest=daily`;
 * docs/deploy-test.md): its schedule as deployed (the hourly cron at the minute of `digestAt`, in `digestTz`,
 * targeting the digest function); the deployed digest code, run with its environment and role from a state
 * item two periods behind, publishes exactly one `monitor.digest` (attribute `event`), delivered to the queue
 * subscription without a filter, and a second run publishes nothing; every AWS call it made is allowed by its
 * role's deployed policies, which refuse what it must not do.
 *
 * Registered by deploy.test.ts (one deployment for the whole file), before `cdk destroy`.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetTopicAttributesCommand } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestDuePeriod, parseDigestSchedule } from '../../lambda/core/digest/digest-schedule.ts';
import { DIGEST_ENV } from '../../lambda/digest/digest-env.ts';
import { DIGEST_SCOPE } from '../../lambda/digest/digest-item.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { type AwsCall, type Deployment, type Recorder, startRecorder } from './aws-calls.ts';
import { deniedCalls, invokeFunction, type ReadyFunction, readyFunction } from './deployed-function.ts';
import { ACCOUNT, REGION } from './emulator.ts';
import { type AuthzRequest, evaluate } from './iam-policy.ts';
import type { DeployedStack } from './status-page.ts';

/** What the deploy asked for (`digestAt`, `digestTz`), to check the deployed schedule against. */
export interface DigestInputs {
  readonly digestAt: string;
  readonly digestTz: string;
}

/** A schedule as Scheduler's GetSchedule returns it (the fields checked here). */
interface DeployedSchedule {
  readonly Arn: string;
  readonly ScheduleExpression: string;
  readonly ScheduleExpressionTimezone?: string;
  readonly State?: string;
  readonly Target: {
    readonly Arn: string;
    readonly Input?: string;
    readonly RetryPolicy?: { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number };
  };
}

/** The message attributes of a recorded Publish: the query protocol's form fields, or the JSON protocol's map. */
function publishAttributes(params: Record<string, unknown>): Record<string, string> {
  const map = params['MessageAttributes'];
  if (typeof map === 'object' && map !== null) {
    return Object.fromEntries(
      Object.entries(map as Record<string, { StringValue?: string }>).map(([k, v]) => [
        k,
        String(v.StringValue),
      ]),
    );
  }
  const attributes: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    const match = /^MessageAttributes\.entry\.(\d+)\.Name$/.exec(key);
    if (match !== null) {
      attributes[String(value)] = String(params[`MessageAttributes.entry.${match[1]}.Value.StringValue`]);
    }
  }
  return attributes;
}

/** Registers the digest tests on the deployment `stack()` gives once deploy.test.ts has deployed. */
export function describeDigest(stack: () => DeployedStack, inputs: DigestInputs): void {
  describe('the digest (digest=daily)', () => {
    let s: DeployedStack;
    let recorder: Recorder;
    let fn: ReadyFunction;
    let schedule: DeployedSchedule;
    const runs: { result: unknown; calls: AwsCall[] }[] = [];

    const logicalIdsOf = (type: string) =>
      Object.entries(s.template.Resources)
        .filter(([, r]) => r.Type === type)
        .map(([id]) => id);
    const physicalId = (logicalId: string): string => {
      const id = s.resources.get(logicalId)?.PhysicalResourceId;
      if (id === undefined) throw new Error(`no deployed resource ${logicalId}`);
      return id;
    };
    /** The queue behind the SQS subscription whose queue's logical id starts with `prefix`. */
    const subscribedQueue = (prefix: string): string => {
      const ids = logicalIdsOf('AWS::SNS::Subscription')
        .map((id) => s.template.Resources[id]!.Properties!)
        .filter((p) => p['Protocol'] === 'sqs')
        .map((p) => (p['Endpoint'] as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!)
        .filter((queueId) => queueId.startsWith(prefix));
      expect(ids, prefix).toHaveLength(1);
      return physicalId(ids[0]!);
    };
    /** Every message waiting in a queue, with its attributes, removed from it. */
    const drain = async (queueUrl: string) => {
      const messages: { body: string; attributes: Record<string, string> }[] = [];
      for (;;) {
        const answer = await s.aws.call('sqs', {
          target: 'AmazonSQS.ReceiveMessage',
          json: {
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            MessageAttributeNames: ['All'],
          },
        });
        expect(answer.status, answer.text).toBe(200);
        const received =
          (
            JSON.parse(answer.text) as {
              Messages?: {
                Body: string;
                ReceiptHandle: string;
                MessageAttributes?: Record<string, { StringValue?: string }>;
              }[];
            }
          ).Messages ?? [];
        if (received.length === 0) return messages;
        for (const message of received) {
          messages.push({
            body: message.Body,
            attributes: Object.fromEntries(
              Object.entries(message.MessageAttributes ?? {}).map(([k, v]) => [k, String(v.StringValue)]),
            ),
          });
          await s.aws.call('sqs', {
            target: 'AmazonSQS.DeleteMessage',
            json: { QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle },
          });
        }
      }
    };
    const digestItem = async () =>
      (
        await s.aws.dynamo.send(
          new GetItemCommand({
            TableName: s.outputs['TableName']!,
            Key: { pk: { S: 'state' }, sk: { S: DIGEST_SCOPE } },
            ConsistentRead: true,
          }),
        )
      ).Item;

    beforeAll(async () => {
      s = stack();
      recorder = await startRecorder(s.emulator.endpoint);
      const ids = logicalIdsOf('AWS::Lambda::Function').filter((id) => {
        const env = s.template.Resources[id]!.Properties!['Environment'] as
          | { Variables?: Record<string, unknown> }
          | undefined;
        return env?.Variables?.[SETTINGS.digest.env] !== undefined;
      });
      expect(ids).toHaveLength(1);
      fn = await readyFunction(s, ids[0]!);
      const scheduleIds = logicalIdsOf('AWS::Scheduler::Schedule').filter((id) =>
        JSON.stringify(s.template.Resources[id]!.Properties).includes(`"${fn.logicalId}"`),
      );
      expect(scheduleIds).toHaveLength(1);
      schedule = (await s.aws.scheduler.getSchedule(
        physicalId(scheduleIds[0]!),
      )) as unknown as DeployedSchedule;
    }, 60_000);

    afterAll(async () => {
      await recorder?.close();
    });

    it('runs hourly at the minute of digestAt in digestTz, targeting the digest function (DigestFunctionName)', () => {
      expect(s.outputs['DigestFunctionName']).toBe(fn.name);
      expect(schedule.ScheduleExpression).toBe(`cron(${Number(inputs.digestAt.slice(3))} * * * ? *)`);
      expect(schedule.ScheduleExpressionTimezone).toBe(inputs.digestTz);
      expect(schedule.Target.Arn).toBe(fn.config.FunctionArn);
      expect(schedule.Target.RetryPolicy).toEqual({
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 3600,
      });
      // Its environment: the three settings, the deployed table and topic, the page's link; no key or secret.
      const env = fn.config.Environment?.Variables ?? {};
      expect(env).toMatchObject({
        [SETTINGS.digest.env]: 'daily',
        [SETTINGS.digestAt.env]: inputs.digestAt,
        [SETTINGS.digestTz.env]: inputs.digestTz,
        [SETTINGS.table.env]: s.outputs['TableName'],
        [SETTINGS.topicArn.env]: s.outputs['TopicArn'],
        [DIGEST_ENV.pageUrl]: s.outputs['StatusPageUrl'],
        [DIGEST_ENV.pageMode]: 'private',
      });
      expect(Object.keys(env).filter((name) => /API_KEY|SECRET|ACK_/.test(name))).toEqual([]);
      expect(fn.config.MemorySize).toBe(512);
      expect(fn.config.Timeout).toBe(120);
    });

    it('the deployed code publishes one monitor.digest from an item two periods behind, and a second run nothing', async () => {
      // Prepare: the digest's item (lambda/digest/digest-item.ts) committed up to two periods ago.
      const env = fn.config.Environment!.Variables!;
      const parsed = parseDigestSchedule({
        digest: env[SETTINGS.digest.env],
        digestAt: env[SETTINGS.digestAt.env],
        digestTz: env[SETTINGS.digestTz.env],
      });
      if (!parsed.ok || parsed.schedule === undefined)
        throw new Error(`deployed schedule: ${JSON.stringify(parsed)}`);
      const nowMs = Date.now();
      const latest = latestDuePeriod(parsed.schedule, nowMs);
      const twoAgo = latestDuePeriod(parsed.schedule, Date.parse(latest.since) - 1000).until;
      await s.aws.dynamo.send(
        new PutItemCommand({
          TableName: s.outputs['TableName']!,
          Item: {
            pk: { S: 'state' },
            sk: { S: DIGEST_SCOPE },
            version: { N: '1' },
            state: { S: JSON.stringify({ nextSeq: 1, lastUntil: twoAgo }) },
            // As the one exactly-once protocol writes a state item (scope-store.ts): its outbox a map, empty.
            outbox: { M: {} },
          },
        }),
      );
      const webhookQueue = subscribedQueue('Webhook');
      const pagerDutyQueue = subscribedQueue('PagerDuty');
      await drain(webhookQueue);
      await drain(pagerDutyQueue);
      // The event its schedule sends (no input: Scheduler's empty event).
      const event = schedule.Target.Input === undefined ? {} : JSON.parse(schedule.Target.Input);

      // Act
      const first = await invokeFunction(s, recorder, fn, event);
      runs.push(first);
      const second = await invokeFunction(s, recorder, fn, event);
      runs.push(second);

      // Assess: the first run committed and sent the newest period's digest, the second found it sent.
      expect(first.result, first.output).toMatchObject({
        outcome: 'committed',
        period: { since: latest.since, until: latest.until },
        delivered: [1],
        failed: [],
        pending: 0,
      });
      expect(second.result, second.output).toMatchObject({
        outcome: 'sent-already',
        delivered: [],
        pending: 0,
      });
      const publishes = [...first.calls, ...second.calls].filter(
        (c) => c.service === 'sns' && c.operation === 'Publish',
      );
      expect(publishes).toHaveLength(1);
      const publish = publishes[0]!;
      expect(publish.status).toBe(200);
      expect(publish.params['TopicArn']).toBe(s.outputs['TopicArn']);
      expect(publishAttributes(publish.params)['event']).toBe('monitor.digest');
      const message = JSON.parse(String(publish.params['Message'])) as Record<string, string>;
      expect((JSON.parse(message['sqs']!) as { event: string }).event).toBe('monitor.digest');
      // The email links to the hosted page.
      expect(message['email']).toContain(s.outputs['StatusPageUrl']);

      // Delivered once to the subscription without a filter (the webhook's queue), with its attribute; not to
      // PagerDuty's, whose filter takes incidents' actions only.
      const delivered = await drain(webhookQueue);
      expect(delivered.map((m) => (JSON.parse(m.body) as { event: string }).event)).toEqual([
        'monitor.digest',
      ]);
      expect(delivered[0]!.attributes['event']).toBe('monitor.digest');
      expect(await drain(pagerDutyQueue)).toEqual([]);

      // The item: the period committed, the next sequence number taken, the outbox empty.
      const item = await digestItem();
      expect(JSON.parse(item!['state']!.S!)).toEqual({ nextSeq: 2, lastUntil: latest.until });
      expect(Object.keys(item!['outbox']?.M ?? {})).toEqual([]);
    }, 120_000);

    it("made only AWS calls that the digest function's deployed role allows, which refuses what it must not do", async () => {
      const calls = runs.flatMap((r) => r.calls);
      expect(calls.length).toBeGreaterThan(0);
      const table = s.outputs['TableName']!;
      const topic = s.outputs['TopicArn']!;
      // The topic is encrypted with the stack's key: a publish needs the key too.
      const attributes = await s.aws.sns.send(new GetTopicAttributesCommand({ TopicArn: topic }));
      const keyId = attributes.Attributes?.['KmsMasterKeyId'];
      expect(keyId).toBeDefined();
      const topicKey = await s.aws.kms.keyArn(keyId!);
      const deployment: Deployment = {
        account: ACCOUNT,
        region: REGION,
        partitionKeys: { [table]: 'pk' },
        secretArns: {},
        topicKeys: { [topic]: topicKey! },
      };
      const operations = new Set(calls.map((c) => `${c.service}:${c.operation}`));
      expect(operations).toContain('sns:Publish');
      expect([...operations].filter((o) => !o.startsWith('dynamodb:') && o !== 'sns:Publish')).toEqual([]);
      const { policies, denied } = await deniedCalls(s, fn, calls, deployment);
      expect(denied).toEqual([]);

      const tableArn = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${table}`;
      const on = (action: string, partition: string): AuthzRequest => ({
        action,
        resource: tableArn,
        context: { 'dynamodb:LeadingKeys': [partition] },
      });
      // What it needs is allowed; what it must not do is refused.
      for (const request of [
        on('dynamodb:Query', 'outbox'),
        on('dynamodb:Query', 'filter'),
        on('dynamodb:UpdateItem', 'state'),
        on('dynamodb:PutItem', 'event'),
        on('dynamodb:DeleteItem', 'outbox'),
      ])
        expect(evaluate(policies, request).allowed, JSON.stringify(request)).toBe(true);
      const refused: AuthzRequest[] = [
        on('dynamodb:Query', 'slot#0'),
        on('dynamodb:GetItem', 'filter'),
        on('dynamodb:PutItem', 'silence'),
        on('dynamodb:UpdateItem', 'network#net-1'),
        on('dynamodb:DeleteItem', 'filter'),
        on('dynamodb:BatchWriteItem', 'filter'),
        { action: 'dynamodb:Scan', resource: tableArn, context: {} },
        {
          action: 'dynamodb:PutItem',
          resource: `${tableArn}-other`,
          context: { 'dynamodb:LeadingKeys': ['state'] },
        },
        { action: 'sns:Publish', resource: `${topic}-other`, context: {} },
        {
          action: 'secretsmanager:GetSecretValue',
          resource: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${s.outputs['SecretName']}`,
          context: {},
        },
        { action: 's3:PutObject', resource: 'arn:aws:s3:::any-bucket/index.html', context: {} },
      ];
      for (const request of refused)
        expect(
          evaluate(policies, request).allowed,
          `${request.action} ${JSON.stringify(request.context)}`,
        ).toBe(false);
    });
  });
}
