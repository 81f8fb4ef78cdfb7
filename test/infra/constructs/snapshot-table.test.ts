import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, it } from 'vitest';
import { fullContext, synthMonitor } from '../synth.ts';

describe('SnapshotTable', () => {
  let template: Template;

  beforeAll(() => {
    template = synthMonitor(fullContext);
  });

  it('is on demand, keyed pk/sk, with TTL on expiresAt and point-in-time recovery', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      ProvisionedThroughput: Match.absent(),
    });
  });

  it('is retained when the stack is deleted or the table replaced', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});
