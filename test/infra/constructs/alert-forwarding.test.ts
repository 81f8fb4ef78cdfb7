/**
 * The forwarding channels as the stack deploys them (docs/channels.md): what every channel of
 * `FORWARDING_CHANNELS` gets (queue, subscription, pipe, role, alarm, no secret in the pipe), then what each one
 * sends where (`EXPECTED`, one entry per channel: a channel without its entry does not compile), then the
 * construct with a channel it has never seen.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { FORWARDING_CHANNELS, type ForwardingChannel } from '../../../lib/channels/index.ts';
import { PAGERDUTY_EVENTS_URL } from '../../../lib/channels/pagerduty.ts';
import {
  AlertForwarding,
  FORWARD_MAX_RECEIVES,
  FORWARD_RETRY_AFTER,
} from '../../../lib/constructs/alert-forwarding.ts';
import { AlertTopic } from '../../../lib/constructs/alert-topic.ts';
import { CONTEXT_KEYS } from '../../../lib/context.ts';
import { channelsContext, onlyResourceId, resourceIdStartingWith, synthMonitor } from '../synth.ts';

const PAGERDUTY_REF = '{{resolve:secretsmanager:shieldwatch/pagerduty:SecretString:::}}';
const WEBHOOK_REF = '{{resolve:secretsmanager:shieldwatch/webhook-url:SecretString:::}}';

type ChannelId = (typeof FORWARDING_CHANNELS)[number]['id'];

/** The secret names of channelsContext, one per channel. */
const SECRET_NAMES = FORWARDING_CHANNELS.map((channel) => channelsContext[channel.contextKey]);

/** What each channel's resources hold in the stack of `channelsContext`. */
const EXPECTED: Record<
  ChannelId,
  {
    readonly apiKey: { ApiKeyName: string; ApiKeyValue: string };
    readonly bodyParameters: unknown;
    readonly endpoint: string;
    readonly filterPolicy: unknown;
    readonly assessInput: (input: string) => void;
  }
> = {
  PagerDuty: {
    apiKey: { ApiKeyName: 'X-Routing-Key', ApiKeyValue: PAGERDUTY_REF },
    // Events API v2 reads the key from the body: the connection adds it there as a secret parameter.
    bodyParameters: { BodyParameters: [{ Key: 'routing_key', Value: PAGERDUTY_REF, IsValueSecret: true }] },
    endpoint: PAGERDUTY_EVENTS_URL,
    // Opens, acknowledgements and ends of incidents (CONTRACT §14: an acknowledge event for the same dedup_key).
    filterPolicy: { action: ['trigger', 'acknowledge', 'resolve'] },
    assessInput: (input) => {
      expect(input).not.toContain('routing_key');
      expect(input).toContain('"dedup_key": "<$.body.incident>"');
    },
  },
  Webhook: {
    apiKey: { ApiKeyName: 'X-Shieldwatch-Monitor', ApiKeyValue: 'Shieldwatch' },
    bodyParameters: undefined,
    endpoint: WEBHOOK_REF,
    filterPolicy: Match.absent(),
    assessInput: (input) => expect(input).toBe('<$.body>'),
  },
};

describe('the forwarding channels', () => {
  it('each has its own construct id and context key, a key of the stack that channelsContext sets', () => {
    const ids = FORWARDING_CHANNELS.map((channel) => channel.id);
    const keys = FORWARDING_CHANNELS.map((channel) => channel.contextKey);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(keys).size).toBe(keys.length);
    expect(CONTEXT_KEYS).toEqual(expect.arrayContaining(keys));
    expect(Object.keys(channelsContext)).toEqual(expect.arrayContaining(keys));
    expect(Object.keys(EXPECTED).sort()).toEqual([...ids].sort());
  });
});

describe.each(FORWARDING_CHANNELS.map((channel) => [channel.id, channel] as const))(
  'AlertForwarding to %s',
  (prefix) => {
    const expected = EXPECTED[prefix];
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
        FilterPolicy: expected.filterPolicy,
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
      expect(connection.AuthParameters.ApiKeyAuthParameters).toEqual(expected.apiKey);
      expect(connection.AuthParameters.InvocationHttpParameters).toEqual(expected.bodyParameters);
      template.hasResourceProperties('AWS::Events::ApiDestination', {
        ConnectionArn: { 'Fn::GetAtt': [ids.connection, 'Arn'] },
        HttpMethod: 'POST',
        InvocationEndpoint: expected.endpoint,
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
      expected.assessInput(pipe.TargetParameters.InputTemplate);
    });

    it('keeps every secret out of the pipe, whose whole configuration DescribePipe returns in clear', () => {
      // Prepare
      const pipe = template.findResources('AWS::Pipes::Pipe')[ids.pipe]!;

      // Act
      const text = JSON.stringify(pipe);

      // Assess
      expect(text).not.toContain('resolve:secretsmanager');
      for (const name of SECRET_NAMES) expect(text).not.toContain(name);
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
  },
);

describe('AlertForwarding: secrets', () => {
  it("no channel's secret (routing key, webhook URL) is in the template: they appear only as dynamic references", () => {
    // Act
    const json = JSON.stringify(synthMonitor(channelsContext).toJSON());

    // Assess
    expect(SECRET_NAMES).toEqual(['shieldwatch/pagerduty', 'shieldwatch/webhook-url']);
    for (const name of SECRET_NAMES) {
      const all = json.split(name).length - 1;
      const referenced = json.split(`{{resolve:secretsmanager:${name}:SecretString:::}}`).length - 1;
      expect(all).toBeGreaterThan(0);
      expect(referenced).toBe(all);
    }
    // The stack never reads them: no grant, no secret resource of its own for either, no function variable.
    expect(json).not.toMatch(/secretsmanager:GetSecretValue[^\]]*(pagerduty|webhook-url)/);
    // The stack's own secrets are the API key's and the acknowledge links' signing key (docs/acknowledge.md),
    // named by construct id (the logical id without its 8-character hash).
    expect(
      Object.keys(synthMonitor(channelsContext).findResources('AWS::SecretsManager::Secret'))
        .map((id) => id.slice(0, -8))
        .sort(),
    ).toEqual(['AckSigningKey', 'ApiKeySecret']);
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

describe('AlertForwarding with a channel it has never seen', () => {
  // An Opsgenie-like channel: a fixed endpoint, the key in a prefixed Authorization header, a template of
  // its own, only triggers; nothing about it is in the construct.
  const opsgenie = {
    id: 'Opsgenie',
    contextKey: 'opsgenieApiKeySecret',
    label: 'Opsgenie',
    secretHolds: 'an Opsgenie API integration key',
    endpoint: () => 'https://api.opsgenie.com/v2/alerts',
    apiKey: { header: 'Authorization', value: ({ secret }) => `GenieKey ${secret}` },
    inputTemplate: '{"message": "<$.body.summary>", "alias": "<$.body.incident>"}',
    filterPolicy: { action: ['trigger'], event: ['filter.status_changed', 'network.rule_triggered'] },
  } as const satisfies ForwardingChannel;

  let template: Template;
  beforeAll(() => {
    const stack = new Stack(new App(), 'Bare', { stackName: 'bare-monitor' });
    new AlertForwarding(stack, 'Opsgenie', {
      alerts: new AlertTopic(stack, 'Alerts'),
      channel: opsgenie,
      secretName: 'team/opsgenie',
    });
    template = Template.fromStack(stack);
  });

  it('builds its resources from the descriptor alone', () => {
    const ref = '{{resolve:secretsmanager:team/opsgenie:SecretString:::}}';
    const connection = Object.values(template.findResources('AWS::Events::Connection'))[0]!['Properties'];
    expect(connection).toEqual({
      Description: 'shieldwatch alerts to Opsgenie',
      AuthorizationType: 'API_KEY',
      AuthParameters: {
        ApiKeyAuthParameters: { ApiKeyName: 'Authorization', ApiKeyValue: `GenieKey ${ref}` },
      },
    });
    template.hasResourceProperties('AWS::Events::ApiDestination', {
      Description: 'shieldwatch alerts to Opsgenie',
      InvocationEndpoint: 'https://api.opsgenie.com/v2/alerts',
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      RawMessageDelivery: true,
      FilterPolicy: { action: ['trigger'], event: ['filter.status_changed', 'network.rule_triggered'] },
    });
    template.hasResourceProperties('AWS::Pipes::Pipe', {
      Description: 'shieldwatch: alert queue to Opsgenie',
      TargetParameters: Match.objectLike({ InputTemplate: opsgenie.inputTemplate }),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp(
        '^shieldwatch: alerts could not be delivered to Opsgenie after ',
      ),
    });
    expect(Object.keys(template.findResources('AWS::Pipes::Pipe'))[0]).toMatch(/^OpsgeniePipe/);
  });
});
