import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MetricName } from '../../lambda/metric-names.ts';
import type { ScheduleSpec } from '../schedule-expression.ts';
import { monitorMetric } from './monitor-metrics.ts';

/** Schedule intervals without a completed cycle before the monitor counts as dead. */
export const MISSED_CYCLES_TO_ALARM = 3;

/** Properties of {@link MonitorAlarms}. */
export interface MonitorAlarmsProps {
  readonly function: IFunction;
  readonly deadLetterQueue: IQueue;
  /** The redrive queue of the alert topic's subscriptions: messages SNS could not deliver. */
  readonly deliveryDeadLetterQueue: IQueue;
  /** Where alarm and recovery notifications go. */
  readonly topic: ITopic;
  /** When the poller runs: the longest interval is the period of the no-cycle and filter alarms. */
  readonly schedule: ScheduleSpec;
}

/**
 * Alarms that watch the monitor itself, each notifying the alert topic when it fires and when it recovers:
 * a failing function, a monitor that stopped completing cycles, a filter no cycle polls any more,
 * invocations that never arrived, and alerts SNS could not deliver.
 */
export class MonitorAlarms extends Construct {
  readonly functionErrors: Alarm;
  readonly noCompletedCycles: Alarm;
  readonly filterNotObserved: Alarm;
  readonly deadLetters: Alarm;
  readonly undeliveredAlerts: Alarm;

  constructor(scope: Construct, id: string, props: MonitorAlarmsProps) {
    super(scope, id);
    const { minIntervalMinutes, maxIntervalMinutes } = props.schedule;

    this.functionErrors = new Alarm(this, 'FunctionErrors', {
      alarmDescription:
        'shieldwatch: the poller threw (a cycle did not run, e.g. the table could not be written or the key ' +
        'secret is empty). See the function log group.',
      metric: props.function.metricErrors({
        period: Duration.minutes(Math.max(5, minIntervalMinutes)),
        statistic: 'Sum',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    // Missing data is breaching: a monitor that does not run emits nothing, and that must page.
    this.noCompletedCycles = new Alarm(this, 'NoCompletedCycles', {
      alarmDescription:
        `shieldwatch: no poll cycle completed in ${MISSED_CYCLES_TO_ALARM} schedule intervals: the monitor ` +
        'is not running (schedule disabled, function failing or throttled).',
      metric: monitorMetric(MetricName.CyclesCompleted, { period: Duration.minutes(maxIntervalMinutes) }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: MISSED_CYCLES_TO_ALARM,
      datapointsToAlarm: MISSED_CYCLES_TO_ALARM,
      treatMissingData: TreatMissingData.BREACHING,
    });

    // FilterLatency is emitted once per cycle that requested the filter status, whatever the answer: only
    // shard 1 does when sharded, so this pages when the filter goes unwatched while other shards complete.
    this.filterNotObserved = new Alarm(this, 'FilterNotObserved', {
      alarmDescription:
        `shieldwatch: the filter status was not requested in ${MISSED_CYCLES_TO_ALARM} schedule intervals: ` +
        'the filter is unwatched (its schedule, shard 1 when sharded, disabled or not delivered, or its ' +
        'invocations failing before any request, e.g. the key unreadable), even while other shards complete cycles.',
      metric: monitorMetric(MetricName.FilterLatency, {
        period: Duration.minutes(maxIntervalMinutes),
        statistic: Stats.SAMPLE_COUNT,
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: MISSED_CYCLES_TO_ALARM,
      datapointsToAlarm: MISSED_CYCLES_TO_ALARM,
      treatMissingData: TreatMissingData.BREACHING,
    });

    this.deadLetters = new Alarm(this, 'DeadLetters', {
      alarmDescription:
        'shieldwatch: Scheduler could not invoke the poller and left the invocation in the dead-letter queue.',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    // It notifies the topic whose deliveries failed: one endpoint refusing (an email bounce, an SMS over
    // the spend limit) still lets the others hear of it.
    this.undeliveredAlerts = new Alarm(this, 'UndeliveredAlerts', {
      alarmDescription:
        'shieldwatch: SNS could not deliver an alert to a subscription (email, SMS, ...) and left it in the ' +
        "subscriptions' dead-letter queue. Its message attributes say which subscription and why.",
      metric: props.deliveryDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const action = new SnsAction(props.topic);
    for (const alarm of this.all()) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
  }

  /** The alarms, in the order of their importance. */
  all(): Alarm[] {
    return [
      this.noCompletedCycles,
      this.filterNotObserved,
      this.functionErrors,
      this.deadLetters,
      this.undeliveredAlerts,
    ];
  }
}
