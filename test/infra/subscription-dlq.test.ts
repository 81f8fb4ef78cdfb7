import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Subscription, SubscriptionProtocol, Topic } from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AlertTopic } from '../../lib/constructs/alert-topic.ts';
import { SubscriptionDeadLetterQueue } from '../../lib/constructs/subscription-dlq.ts';
import { buildMonitor, onlyResourceId, resourceIdStartingWith, synthMonitor } from './synth.ts';

const context = { alertEmail: 'ops@example.com,oncall@example.org', alertSms: '+14155550100,+447700900123' };

describe('the dead-letter queue of the alert subscriptions', () => {
  let template: Template;
  let ids: Record<'topic' | 'queue', string>;

  beforeAll(() => {
    template = synthMonitor(context);
    ids = {
      topic: onlyResourceId(template, 'AWS::SNS::Topic'),
      queue: resourceIdStartingWith(template, 'AWS::SQS::Queue', 'AlertsDeliveryFailures'),
    };
  });

  it('is the redrive target of every subscription, email and SMS alike', () => {
    // Act
    const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription'));

    // Assess
    expect(subscriptions.map((s) => s['Properties'].Protocol).sort()).toEqual([
      'email',
      'email',
      'sms',
      'sms',
    ]);
    for (const subscription of subscriptions) {
      expect(subscription['Properties'].RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      });
    }
  });

  it('is encrypted with SQS-managed keys, which SNS can write to, and keeps messages 14 days', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
      KmsMasterKeyId: Match.absent(),
    });
    expect(template.findResources('AWS::SQS::Queue')[ids.queue]!['Properties'].SqsManagedSseEnabled).toBe(
      true,
    );
  });

  it('takes messages from SNS for this topic only, over TLS only', () => {
    // Act
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy')).filter((p) =>
      JSON.stringify(p['Properties'].Queues).includes(ids.queue),
    );

    // Assess
    expect(policies).toHaveLength(1);
    const statements = policies[0]!['Properties'].PolicyDocument.Statement as Record<string, unknown>[];
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const allows = statements.filter((s) => s['Effect'] === 'Allow');
    expect(allows.length).toBeGreaterThan(0);
    for (const allow of allows) {
      expect(allow).toMatchObject({
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
        Condition: { ArnEquals: { 'aws:SourceArn': { Ref: ids.topic } } },
      });
    }
  });

  it('has an alarm on its depth that notifies the topic when it fires and when it recovers', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: ids.topic }],
      OKActions: [{ Ref: ids.topic }],
    });
  });

  it('keeps the logical ids of the SMS subscriptions (no replacement on update)', () => {
    expect(
      Object.keys(template.findResources('AWS::SNS::Subscription', { Properties: { Protocol: 'sms' } })),
    ).toEqual([
      expect.stringMatching(/^AlertsTopic14155550100/),
      expect.stringMatching(/^AlertsTopic447700900123/),
    ]);
  });

  it('fails synth when a subscription to the topic is added without a redrive policy', () => {
    // Prepare
    const stack = buildMonitor(context);
    const alerts = stack.node.findChild('Alerts') as AlertTopic;
    new Subscription(stack, 'Forgotten', {
      topic: alerts.topic,
      protocol: SubscriptionProtocol.EMAIL,
      endpoint: 'late@example.com',
    });

    // Act
    const synth = () => Template.fromStack(stack);

    // Assess
    expect(synth).toThrow(
      /Shieldwatch\/Forgotten\/Resource: a subscription to the alert topic without a redrive policy/,
    );
  });

  it("leaves other topics' subscriptions alone", () => {
    // Prepare
    const stack = new Stack(new App(), 'Other');
    const topic = new Topic(stack, 'Watched');
    new SubscriptionDeadLetterQueue(stack, 'Dlq', { topic });
    const other = new Topic(stack, 'Other');
    new Subscription(stack, 'Elsewhere', {
      topic: other,
      protocol: SubscriptionProtocol.EMAIL,
      endpoint: 'a@b.c',
    });

    // Act
    const synth = () => Template.fromStack(stack);

    // Assess
    expect(synth).not.toThrow();
  });
});
