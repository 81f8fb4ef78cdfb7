import type { Duration } from 'aws-cdk-lib';
import { Metric, SearchExpression } from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC_NAMESPACE, MetricName, SERVICE_NAME } from '../../lambda/metric-names.ts';

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
 * Every numeric real-time figure of one network (`NetworkFigure` with dimensions service, NetworkId,
 * Field). The fields are whatever the API's body holds, unknown at synth time, hence a SEARCH expression.
 */
export function networkFiguresSearch(networkId: string, period: Duration): SearchExpression {
  const schema = `{${METRIC_NAMESPACE},Field,NetworkId,service}`;
  const terms = [
    `MetricName=${searchQuote(MetricName.NetworkFigure)}`,
    `service=${searchQuote(SERVICE_NAME)}`,
    `NetworkId=${searchQuote(networkId)}`,
  ].join(' ');
  return new SearchExpression({
    expression: `SEARCH('${schema} ${terms}', 'Average', ${period.toSeconds()})`,
    label: '',
    period,
  });
}
