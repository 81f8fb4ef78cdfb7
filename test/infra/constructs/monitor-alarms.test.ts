import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { MetricName } from '../../../lambda/metric-names.ts';
import { fullContext, type ResourceIds, resourceIds, synthMonitor } from '../synth.ts';

describe('MonitorAlarms', () => {
  let template: Template;
  let ids: ResourceIds;

  beforeAll(() => {
    template = synthMonitor(fullContext);
    ids = resourceIds(template);
  });

  it('has five alarms, each notifying the alert topic on alarm and on recovery', () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 5);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    for (const alarm of alarms) {
      expect(alarm['Properties'].AlarmActions).toEqual([{ Ref: ids.topic }]);
      expect(alarm['Properties'].OKActions).toEqual([{ Ref: ids.topic }]);
    }
  });

  it('alarms on function errors', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.fn } }],
      Statistic: 'Sum',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms when no cycle completed in three schedule intervals, missing data breaching', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Shieldwatch',
      MetricName: MetricName.CyclesCompleted,
      Dimensions: [{ Name: 'service', Value: 'shieldwatch' }],
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
  });

  it('alarms when the filter status was not requested in three schedule intervals, missing data breaching', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('filter status was not requested in 3 schedule intervals'),
      Namespace: 'Shieldwatch',
      MetricName: MetricName.FilterLatency,
      Dimensions: [{ Name: 'service', Value: 'shieldwatch' }],
      Statistic: 'SampleCount',
      Period: 60,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: ids.topic }],
      OKActions: [{ Ref: ids.topic }],
    });
  });

  it('alarms on messages in the dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
  });
});
