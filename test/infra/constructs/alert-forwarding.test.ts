import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  FORWARD_MAX_RECEIVES,
  FORWARD_RETRY_AFTER,
  PAGERDUTY_EVENTS_URL,
} from '../../../lib/constructs/alert-forwarding.ts';
import { channelsContext, onlyResourceId, resourceIdStartingWith, synthMonitor } from '../synth.ts';

const PAGERDUTY_REF = '{{resolve:secretsmanager:shieldwatch/pagerduty:SecretString:::}}';
const WEBHOOK_REF = '{{resolve:secretsmanager:shieldwatch/webhook-url:SecretString:::}}';

describe.each([
  ['PagerDuty', 'pagerduty'],
  ['Webhook', 'webhook'],
] as const)('AlertForwarding to %s', (prefix, destination) => {
  let template: Template;
  let ids: Record<
    'topic' | 'key' | 'queue' | 'dlq' | 'subscriptionDlq' | 'connection' | 'api' | 'pipe' | 'role',
    string
  >;

  beforeAll(() => {
    template = synthMonitor(channelsContext);
    ids = {
      topic: onlyResourceId(template, 'AWS::SNS::Topic'),
      key: onlyResourceId(template, 'AWS::KMS::Key'),
      queue: resourceIdStartingWith(template, 'AWS::SQS::Queue', `${prefix}Queue`),
      dlq: resourceIdStartingWith(template, 'AWS::SQS::Queue', `${prefix}DeadLetters`),
      subscriptionDlq: resourceIdStartingWith(template, 'AWS::SQS::Queue', 'AlertsDeliveryFailures'),
      connection: resourceIdStartingWith(template, 'AWS::Events::Connection', prefix),
      api: resourceIdStartingWith(template, 'AWS::Events::ApiDestination', prefix),
      pipe: resourceIdStartingWith(template, 'AWS::Pipes::Pipe', prefix),
      role: resourceIdStartingWith(template, 'AWS::IAM::Role', `${prefix}PipeRole`),
    };
  });

  it('keeps alerts in a queue under the topic key, TLS only, retried and then dead-lettered', () => {
    const queue = template.findResources('AWS::SQS::Queue')[ids.queue]!['Properties'];
    expect(queue).toMatchObject({
      KmsMasterKeyId: { 'Fn::GetAtt': [ids.key, 'Arn'] },
      VisibilityTimeout: FORWARD_RETRY_AFTER.toSeconds(),
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [ids.dlq, 'Arn'] },
        maxReceiveCount: FORWARD_MAX_RECEIVES,
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      KmsMasterKeyId: { 'Fn::GetAtt': [ids.key, 'Arn'] },
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    for (const queueId of [ids.queue, ids.dlq]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueId }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('subscribes the queue to the topic with raw delivery and a redrive policy; only the topic may send', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: { Ref: ids.topic },
      Protocol: 'sqs',
      Endpoint: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      RawMessageDelivery: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [ids.subscriptionDlq, 'Arn'] } },
      FilterPolicy: destination === 'pagerduty' ? { action: ['trigger', 'resolve'] } : Match.absent(),
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: ids.queue }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'sns.amazonaws.com' },
            Action: 'sqs:SendMessage',
            Condition: { ArnEquals: { 'aws:SourceArn': { Ref: ids.topic } } },
          }),
        ]),
      },
    });
  });

  it('lets SNS use the topic key for this account only, so that the encrypted queue receives', () => {
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          {
            Sid: 'AllowTheTopicToDeliverToQueuesUnderThisKey',
            Effect: 'Allow',
            Principal: { Service: 'sns.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
            Resource: '*',
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: { 'aws:SourceArn': Match.anyValue() },
            },
          },
        ]),
      },
    });
  });

  it('calls the API destination through an API-key connection whose key is a dynamic reference', () => {
    const connection = template.findResources('AWS::Events::Connection')[ids.connection]!['Properties'];
    expect(connection.AuthorizationType).toBe('API_KEY');
    if (destination === 'pagerduty') {
      expect(connection.AuthParameters.ApiKeyAuthParameters).toEqual({
        ApiKeyName: 'X-Routing-Key',
        ApiKeyValue: PAGERDUTY_REF,
      });
      // Events API v2 reads the key from the body: the connection adds it there as a secret parameter.
      expect(connection.AuthParameters.InvocationHttpParameters).toEqual({
        BodyParameters: [{ Key: 'routing_key', Value: PAGERDUTY_REF, IsValueSecret: true }],
      });
    } else {
      expect(connection.AuthParameters.InvocationHttpParameters).toBeUndefined();
      expect(connection.AuthParameters.ApiKeyAuthParameters).toEqual({
        ApiKeyName: 'X-Shieldwatch-Monitor',
        ApiKeyValue: 'Shieldwatch',
      });
    }
    template.hasResourceProperties('AWS::Events::ApiDestination', {
      ConnectionArn: { 'Fn::GetAtt': [ids.connection, 'Arn'] },
      HttpMethod: 'POST',
      InvocationEndpoint: destination === 'pagerduty' ? PAGERDUTY_EVENTS_URL : WEBHOOK_REF,
      InvocationRateLimitPerSecond: 10,
    });
  });

  it('pipes one message at a time from the queue to the destination, as JSON', () => {
    const pipe = template.findResources('AWS::Pipes::Pipe')[ids.pipe]!['Properties'];
    expect(pipe).toMatchObject({
      RoleArn: { 'Fn::GetAtt': [ids.role, 'Arn'] },
      Source: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      SourceParameters: { SqsQueueParameters: { BatchSize: 1 } },
      Target: { 'Fn::GetAtt': [ids.api, 'Arn'] },
      TargetParameters: { HttpParameters: { HeaderParameters: { 'Content-Type': 'application/json' } } },
      DesiredState: 'RUNNING',
    });
    const input: string = pipe.TargetParameters.InputTemplate;
    if (destination === 'pagerduty') {
      expect(input).not.toContain('routing_key');
      expect(input).toContain('"dedup_key": "<$.body.incident>"');
    } else {
      expect(input).toBe('<$.body>');
    }
  });

  it('keeps every secret out of the pipe, whose whole configuration DescribePipe returns in clear', () => {
    // Prepare
    const pipe = template.findResources('AWS::Pipes::Pipe')[ids.pipe]!;

    // Act
    const text = JSON.stringify(pipe);

    // Assess
    expect(text).not.toContain('resolve:secretsmanager');
    expect(text).not.toContain('shieldwatch/pagerduty');
    expect(text).not.toContain('shieldwatch/webhook-url');
  });

  it("gives the pipe's role the queue, the key to decrypt it and the destination, nothing else", () => {
    // Prepare
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p['Properties'].Roles).includes(ids.role),
    );
    const statements = policies.flatMap((p) => p['Properties'].PolicyDocument.Statement) as Array<{
      Action: string | string[];
      Resource: unknown;
    }>;

    // Assess
    expect(statements.map((s) => [[s.Action].flat().sort(), s.Resource])).toEqual([
      [
        [
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
          'sqs:ReceiveMessage',
        ],
        { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      ],
      [['kms:Decrypt'], { 'Fn::GetAtt': [ids.key, 'Arn'] }],
      [['events:InvokeApiDestination'], { 'Fn::GetAtt': [ids.api, 'Arn'] }],
    ]);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Principal: { Service: 'pipes.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ],
      },
    });
  });

  it('alarms to the topic when an alert reaches the dead-letter queue, and when it is cleared', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.dlq, 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: ids.topic }],
      OKActions: [{ Ref: ids.topic }],
    });
  });
});

describe('AlertForwarding: secrets', () => {
  it('neither the routing key nor the webhook URL is in the template: their secrets appear only as dynamic references', () => {
    // Act
    const json = JSON.stringify(synthMonitor(channelsContext).toJSON());

    // Assess
    for (const name of ['shieldwatch/pagerduty', 'shieldwatch/webhook-url']) {
      const all = json.split(name).length - 1;
      const referenced = json.split(`{{resolve:secretsmanager:${name}:SecretString:::}}`).length - 1;
      expect(all).toBeGreaterThan(0);
      expect(referenced).toBe(all);
    }
    // The stack never reads them: no grant, no secret resource of its own for either, no function variable.
    expect(json).not.toMatch(/secretsmanager:GetSecretValue[^\]]*(pagerduty|webhook-url)/);
    expect(
      Object.keys(synthMonitor(channelsContext).findResources('AWS::SecretsManager::Secret')),
    ).toHaveLength(1);
  });

  it('without the keys: no queue, pipe, connection or destination beyond the stack', () => {
    // Act
    const template = synthMonitor({});

    // Assess
    for (const type of ['AWS::Pipes::Pipe', 'AWS::Events::Connection', 'AWS::Events::ApiDestination']) {
      template.resourceCountIs(type, 0);
    }
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    expect(JSON.stringify(template.toJSON())).not.toContain('AllowTheTopicToDeliverToQueuesUnderThisKey');
  });
});
