import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  fullContext,
  onlyResourceId,
  type ResourceIds,
  renderCfn,
  resourceIdStartingWith,
  resourceIds,
  schedulesOf,
  synthMonitor,
} from '../synth.ts';

describe('PollSchedule', () => {
  describe('with networks, subscriptions and a new secret', () => {
    let template: Template;
    let ids: ResourceIds;

    beforeAll(() => {
      template = synthMonitor(fullContext);
      ids = resourceIds(template);
    });

    it('invokes the function at the configured expression with a retry policy and a dead-letter queue', () => {
      template.resourceCountIs('AWS::Scheduler::Schedule', 1);
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'rate(1 minute)',
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: {
          Arn: { 'Fn::GetAtt': [ids.fn, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 60 },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
        },
      });
    });

    it('sends the shape of an EventBridge scheduled event', () => {
      const schedule = Object.values(template.findResources('AWS::Scheduler::Schedule'))[0]!;
      const input = JSON.parse(renderCfn(schedule['Properties'].Target.Input));
      expect(input).toEqual({
        version: '0',
        id: '<aws.scheduler.execution-id>',
        'detail-type': 'Scheduled Event',
        source: 'aws.scheduler',
        account: '<AWS::AccountId>',
        time: '<aws.scheduler.scheduled-time>',
        region: '<AWS::Region>',
        resources: ['<aws.scheduler.schedule-arn>'],
        detail: {},
      });
    });

    it('keeps dead letters encrypted, TLS-only, for 14 days', () => {
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 1_209_600,
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });

    it("lets Scheduler's own role invoke the function and write to the queue, nothing else", () => {
      const role = onlyResourceId(template, 'AWS::Scheduler::Schedule');
      const schedule = template.findResources('AWS::Scheduler::Schedule')[role]!;
      const roleId = schedule['Properties'].Target.RoleArn['Fn::GetAtt'][0];
      template.hasResourceProperties('AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [
            Match.objectLike({
              Principal: { Service: 'scheduler.amazonaws.com' },
              Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
            }),
          ],
        },
      });
      template.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [{ Ref: roleId }],
        PolicyDocument: {
          Statement: [
            Match.objectLike({ Action: 'lambda:InvokeFunction' }),
            { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
          ],
        },
      });
    });
  });

  describe('five networks in shards of two', () => {
    let template: Template;

    beforeAll(() => {
      template = synthMonitor({ networks: 'net-1,net-2,net-3,net-4,net"5"', shardSize: '2' });
    });

    it('has one schedule per shard, each carrying its slice, only the first polling the filter', () => {
      // Act
      const inputs = schedulesOf(template).map((s) => s.input);

      // Assess
      expect(inputs.map(({ networks, pollFilter }) => ({ networks, pollFilter }))).toEqual([
        { networks: ['net-1', 'net-2'], pollFilter: true },
        { networks: ['net-3', 'net-4'], pollFilter: false },
        { networks: ['net"5"'], pollFilter: false },
      ]);
      expect(inputs.every((input) => input['detail-type'] === 'Scheduled Event')).toBe(true);
      // Each names how many shards run: a cycle knows a shard past it no longer runs (its members leave).
      expect(inputs.map((input) => [input.shard, input.shards])).toEqual([
        [0, 3],
        [1, 3],
        [2, 3],
      ]);
    });

    it('runs every schedule at the same expression, with the same retry policy, dead-letter queue and role', () => {
      const queue = resourceIdStartingWith(template, 'AWS::SQS::Queue', 'Schedule');
      const fn = resourceIdStartingWith(template, 'AWS::Lambda::Function', 'Poller');
      const schedules = schedulesOf(template);
      expect(schedules).toHaveLength(3);
      const roles = new Set(schedules.map((s) => JSON.stringify(s.properties.Target.RoleArn)));
      expect(roles.size).toBe(1);
      for (const { properties } of schedules) {
        expect(properties).toMatchObject({
          ScheduleExpression: 'rate(1 minute)',
          State: 'ENABLED',
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: {
            Arn: { 'Fn::GetAtt': [fn, 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 60 },
            DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queue, 'Arn'] } },
          },
        });
      }
    });

    it('says in each description which shard it is', () => {
      expect(schedulesOf(template).map((s) => s.properties.Description)).toEqual([
        'shieldwatch: one poll cycle per run (shard 1 of 3: the filter status and 2 networks)',
        'shieldwatch: one poll cycle per run (shard 2 of 3: 2 networks)',
        'shieldwatch: one poll cycle per run (shard 3 of 3: 1 network)',
      ]);
    });

    it('keeps the logical id of the unsharded schedule for the first shard', () => {
      const unsharded = Object.keys(synthMonitor().findResources('AWS::Scheduler::Schedule'));
      expect(Object.keys(template.findResources('AWS::Scheduler::Schedule'))[0]).toBe(unsharded[0]);
    });

    it('grants the one scheduler role invoke and send-to-queue once each', () => {
      const [schedule] = schedulesOf(template);
      template.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [{ Ref: schedule!.properties.Target.RoleArn['Fn::GetAtt'][0] }],
        PolicyDocument: {
          Statement: [
            Match.objectLike({ Action: 'lambda:InvokeFunction' }),
            Match.objectLike({ Action: 'sqs:SendMessage' }),
          ],
        },
      });
    });
  });
});
