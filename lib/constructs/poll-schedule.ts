import { Aws, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  ContextAttribute,
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
} from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type Shard, scheduledEvent } from '../shards.ts';

/** How often Scheduler retries an invocation that Lambda refused (throttled, unavailable). */
export const SCHEDULE_RETRY_ATTEMPTS = 3;

/** Properties of {@link PollSchedule}. */
export interface PollScheduleProps {
  /** The function to invoke. */
  readonly target: IFunction;
  /** A `rate(...)` or `cron(...)` expression, already validated. */
  readonly expression: string;
  /** Shortest interval between two runs, in minutes: an invocation older than that is not worth delivering. */
  readonly minIntervalMinutes: number;
  /**
   * The shards, one schedule each, every one carrying its networks and `pollFilter` in its input.
   * @default - not sharded: one schedule, whose input names no networks (the function polls those of its
   * environment and the filter)
   */
  readonly shards?: readonly Shard[];
}

/**
 * The EventBridge Scheduler schedules that start one poll cycle per run: one, or one per shard, all at the
 * same expression, with the same retry policy, role and dead-letter queue. Invocations Scheduler could not
 * deliver, even after its retries, go to that encrypted SQS queue (alarmed).
 *
 * The payload has the shape of an EventBridge "Scheduled Event" (time, id, resources), built from
 * Scheduler's context attributes, so the handler sees what a scheduled rule would send; a shard's payload
 * adds its `networks` and `pollFilter`.
 */
export class PollSchedule extends Construct {
  /** The schedules, shard 0 first. */
  readonly schedules: readonly Schedule[];
  readonly deadLetterQueue: Queue;
  /** The role Scheduler assumes to invoke the function. */
  readonly role: Role;

  constructor(scope: Construct, id: string, props: PollScheduleProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter queue of the schedule target; a queue behind it would add nothing.',
    });

    // Our own role (instead of a shared one CDK would put at the stack root) so that its policy, and the
    // acknowledgement below, sit with the schedule they serve.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
      description: 'shieldwatch schedule: invokes the poller, writes undeliverable invocations to the DLQ',
    });
    const fields = {
      account: Aws.ACCOUNT_ID,
      region: Aws.REGION,
      executionId: ContextAttribute.executionId,
      scheduledTime: ContextAttribute.scheduledTime,
      scheduleArn: ContextAttribute.scheduleArn,
    };
    const shards = props.shards ?? [undefined];
    this.schedules = shards.map((shard, i) => {
      const target = new LambdaInvoke(props.target, {
        role: this.role,
        deadLetterQueue: this.deadLetterQueue,
        retryAttempts: SCHEDULE_RETRY_ATTEMPTS,
        maxEventAge: Duration.minutes(props.minIntervalMinutes),
        input: ScheduleTargetInput.fromObject(scheduledEvent(fields, shard)),
      });
      // The first keeps the id of the unsharded schedule, so turning sharding on does not replace it.
      return new Schedule(this, i === 0 ? 'Schedule' : `Shard${i + 1}`, {
        schedule: ScheduleExpression.expression(props.expression),
        target,
        description: `shieldwatch: one poll cycle per run${shard === undefined ? '' : shardLabel(shard, shards.length)}`,
      });
    });
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(props.target.node.defaultChild as CfnFunction)}.Arn>:*]`,
      reason:
        'CDK grantInvoke adds the function ARN with :* so that versions and aliases of this one function ' +
        'can be invoked; no other function matches.',
    });
  }
}

/** ` (shard 2 of 5: 100 networks)`, numbered from 1 like the messages of the context. */
function shardLabel(shard: Shard, count: number): string {
  const n = shard.networks.length;
  const networks = `${n === 0 ? 'no' : n} network${n === 1 ? '' : 's'}`;
  return ` (shard ${shard.index + 1} of ${count}: ${shard.pollFilter ? 'the filter status and ' : ''}${networks})`;
}
