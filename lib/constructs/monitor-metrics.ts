import type { Duration } from 'aws-cdk-lib';
import { Metric, SearchExpression } from 'aws-cdk-lib/aws-cloudwatch';
import { figureMetricName, METRIC_NAMESPACE, SERVICE_NAME } from '../../lambda/metric-names.ts';

/**
 * One of the poller's own metrics (Powertools EMF, namespace `Shieldwatch`, dimension `service`).
 * Counts are summed; latencies default to p90 where the caller does not say otherwise.
 */
export function monitorMetric(
  metricName: string,
  options: { readonly period: Duration; readonly statistic?: string; readonly label?: string },
): Metric {
  return new Metric({
    namespace: METRIC_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE_NAME },
    statistic: options.statistic ?? 'Sum',
    period: options.period,
    label: options.label,
  });
}

/** Quotes a value for the inside of a SEARCH term: double quotes, with `\`, `"` and `'` escaped. */
function searchQuote(value: string): string {
  return `"${value.replace(/[\\"']/g, (c) => `\\${c}`)}"`;
}

/**
 * One chosen figure field of every network (the metric named after the field, dimensions service and
 * NetworkId): one line per network, found with a SEARCH so that shards and new networks need no change here.
 */
export function figureFieldSearch(field: string, period: Duration): SearchExpression {
  const schema = `{${METRIC_NAMESPACE},NetworkId,service}`;
  const terms = [
    `MetricName=${searchQuote(figureMetricName(field))}`,
    `service=${searchQuote(SERVICE_NAME)}`,
  ].join(' ');
  return new SearchExpression({
    expression: `SEARCH('${schema} ${terms}', 'Average', ${period.toSeconds()})`,
    label: '',
    period,
  });
}
