import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { fullContext, type ResourceIds, resourceIds, synthMonitor } from '../synth.ts';

describe('AlertTopic', () => {
  let template: Template;
  let ids: ResourceIds;

  beforeAll(() => {
    template = synthMonitor(fullContext);
    ids = resourceIds(template);
  });

  it('encrypts the topic with a rotating customer-managed key', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [ids.key, 'Arn'] },
    });
  });

  it('lets CloudWatch use the key, so that alarms can publish to the encrypted topic', () => {
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
  });

  it('lets CloudWatch use the key only on behalf of this account (the statement exactly)', () => {
    // Prepare
    const statements = Object.values(template.findResources('AWS::KMS::Key')).flatMap(
      (key) => key['Properties'].KeyPolicy.Statement as Array<{ Principal?: { Service?: string } }>,
    );

    // Act
    const cloudwatch = statements.filter((s) => s.Principal?.Service === 'cloudwatch.amazonaws.com');

    // Assess
    expect(cloudwatch).toEqual([
      {
        Sid: 'AllowCloudWatchAlarmsToPublishToTheEncryptedTopic',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Resource: '*',
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      },
    ]);
  });

  it("refuses publishing without TLS and allows this account's alarms", () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: ids.topic }],
      PolicyDocument: {
        Statement: [
          {
            Sid: 'AllowPublishThroughSSLOnly',
            Effect: 'Deny',
            Principal: '*',
            Action: 'sns:Publish',
            Resource: { Ref: ids.topic },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          },
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: Match.objectLike({
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            }),
          }),
        ],
      },
    });
  });

  it('subscribes every email address and phone number of the context', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 3);
    for (const [protocol, endpoint] of [
      ['email', 'ops@example.com'],
      ['email', 'oncall@example.org'],
      ['sms', '+14155550100'],
    ]) {
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: protocol,
        Endpoint: endpoint,
        TopicArn: { Ref: ids.topic },
      });
    }
  });
});
