import type { ApiFailureKind } from './core/types.ts';

/** CloudWatch namespace of every metric the poller emits (Powertools Metrics, EMF). */
export const METRIC_NAMESPACE = 'Shieldwatch';

/** Powertools service name, the `service` dimension of every metric. */
export const SERVICE_NAME = 'shieldwatch';

/** Metric names. Units: counts unless the name ends in `Latency` (milliseconds). */
export const MetricName = {
  /** One per cycle that stored its snapshots. A missing data point means the monitor is not running. */
  CyclesCompleted: 'CyclesCompleted',
  /** Observations of a cycle that failed, all kinds together. */
  ApiFailures: 'ApiFailures',
  /** Filter status transitions detected. */
  StatusChanges: 'StatusChanges',
  /** SNS publishes that succeeded. */
  AlertsPublished: 'AlertsPublished',
  /** SNS publishes that failed (the alert stays in the outbox). */
  AlertPublishFailures: 'AlertPublishFailures',
  /** Latency of the filter-status request. */
  FilterLatency: 'FilterLatency',
  /** Latency of each network request (all networks together). */
  NetworkLatency: 'NetworkLatency',
  /** Whole-cycle duration. */
  CycleDuration: 'CycleDuration',
  /**
   * Time to alert, ms: from the observation an alert is about (its `observedAt`: when the cycle asked the API)
   * to its publish succeeding (CONTRACT §18). One data point per alert published.
   */
  TimeToAlert: 'TimeToAlert',
} as const;

/**
 * The chosen numeric fields of the networks' real-time bodies (the figure fields setting) are metrics of
 * their own, named after the path (`traffic.in_pps` is `Figure.traffic.in_pps`, see {@link figureMetricName}),
 * with the dimension `NetworkId`: one custom metric per field and network.
 */
export { figureMetricName } from './core/detect/figures.ts';

/** One metric per failure kind, e.g. `ApiFailuresAuth`, so alarms and the dashboard need no dimension. */
export const failureMetricName: Readonly<Record<ApiFailureKind, string>> = {
  auth: 'ApiFailuresAuth',
  rate_limited: 'ApiFailuresRateLimited',
  server: 'ApiFailuresServer',
  client: 'ApiFailuresClient',
  transport: 'ApiFailuresTransport',
  contract: 'ApiFailuresContract',
};
