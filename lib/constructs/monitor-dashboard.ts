import { Aws, Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IWidget,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { failureMetricName, figureMetricName, MetricName } from '../../lambda/metric-names.ts';
import { figureFieldSearch, monitorMetric } from './monitor-metrics.ts';

/** Properties of {@link MonitorDashboard}. */
export interface MonitorDashboardProps {
  readonly function: IFunction;
  /** The monitor's alarms, shown in a status row at the top. */
  readonly alarms: readonly Alarm[];
  /** Network ids; without any, a note says only the filter status is polled. */
  readonly networks: readonly string[];
  /**
   * The chosen figure fields: one graph each, a line per network (a SEARCH over the networks).
   * @default [] (no figure graphs)
   */
  readonly figureFields?: readonly string[];
  /** Shortest interval between two scheduled runs, in minutes: the period of every graph. */
  readonly minIntervalMinutes: number;
}

/**
 * The CloudWatch dashboard: alarm states, cycle outcomes, latency, status changes and alerts, and each
 * chosen figure field of the networks' real-time bodies.
 */
export class MonitorDashboard extends Construct {
  readonly dashboard: Dashboard;
  /** Console URL of the dashboard. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: MonitorDashboardProps) {
    super(scope, id);
    const period = Duration.minutes(props.minIntervalMinutes);
    const count = (name: string, label: string) => monitorMetric(name, { period, label });
    const latency = (name: string, statistic: string, label: string) =>
      monitorMetric(name, { period, statistic, label });

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.days(1) });
    this.dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Monitor alarms', alarms: [...props.alarms], width: 24, height: 3 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Cycle outcomes',
        width: 12,
        left: [
          count(MetricName.CyclesCompleted, 'Cycles completed'),
          count(MetricName.ApiFailures, 'API failures'),
          props.function.metricErrors({ period, statistic: Stats.SUM, label: 'Function errors' }),
          props.function.metricThrottles({ period, statistic: Stats.SUM, label: 'Throttles' }),
        ],
      }),
      new GraphWidget({
        title: 'API failures by kind',
        width: 12,
        stacked: true,
        left: Object.entries(failureMetricName).map(([kind, name]) => count(name, kind)),
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Request latency (ms)',
        width: 12,
        left: [
          latency(MetricName.FilterLatency, Stats.p(90), 'Filter status p90'),
          latency(MetricName.NetworkLatency, Stats.p(90), 'Network stats p90'),
          latency(MetricName.FilterLatency, Stats.MAXIMUM, 'Filter status max'),
          latency(MetricName.NetworkLatency, Stats.MAXIMUM, 'Network stats max'),
        ],
      }),
      new GraphWidget({
        title: 'Cycle duration (ms)',
        width: 12,
        left: [
          latency(MetricName.CycleDuration, Stats.p(90), 'Cycle p90'),
          latency(MetricName.CycleDuration, Stats.MAXIMUM, 'Cycle max'),
          props.function.metricDuration({ period, statistic: Stats.MAXIMUM, label: 'Invocation max' }),
        ],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Status changes and alerts',
        width: 12,
        left: [
          count(MetricName.StatusChanges, 'Status changes'),
          count(MetricName.AlertsPublished, 'Alerts published'),
          count(MetricName.AlertPublishFailures, 'Alert publish failures'),
        ],
      }),
      // CONTRACT §18: from the observation an alert is about (its `observedAt`) to its publish.
      new GraphWidget({
        title: 'Time to alert (ms)',
        width: 12,
        left: [
          latency(MetricName.TimeToAlert, Stats.p(50), 'Time to alert p50'),
          latency(MetricName.TimeToAlert, Stats.p(95), 'Time to alert p95'),
          latency(MetricName.TimeToAlert, Stats.MAXIMUM, 'Time to alert max'),
        ],
      }),
    );
    this.dashboard.addWidgets(...this.networkWidgets(props.networks, props.figureFields ?? [], period));

    this.url =
      `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}` +
      `#dashboards/dashboard/${this.dashboard.dashboardName}`;
  }

  private networkWidgets(
    networks: readonly string[],
    fields: readonly string[],
    period: Duration,
  ): IWidget[] {
    if (networks.length === 0) {
      return [
        new TextWidget({
          markdown: 'No networks configured: only the filter status is polled.',
          width: 24,
          height: 2,
        }),
      ];
    }
    if (fields.length === 0) {
      return [
        new TextWidget({
          markdown:
            'No figure fields chosen: no network figures are sent as metrics. Set `figureFields` to the dot ' +
            'paths to graph (`shieldwatch check` lists the candidates).',
          width: 24,
          height: 2,
        }),
      ];
    }
    return fields.map(
      (field) =>
        new GraphWidget({
          title: `${field} by network (metric ${figureMetricName(field)})`,
          width: 12,
          left: [figureFieldSearch(field, period)],
        }),
    );
  }
}
