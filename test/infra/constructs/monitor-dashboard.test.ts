import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { failureMetricName, MetricName } from '../../../lambda/metric-names.ts';
import { dashboardBody, fullContext, synthMonitor } from '../synth.ts';

type Widget = { type: string; properties: { title?: string; metrics?: unknown[][]; alarms?: string[] } };

describe('MonitorDashboard', () => {
  let template: Template;
  let widgets: Widget[];

  beforeAll(() => {
    template = synthMonitor(fullContext);
    widgets = JSON.parse(dashboardBody(template)).widgets;
  });

  const metricNames = (widget: Widget) =>
    (widget.properties.metrics ?? []).map((m) => (typeof m[0] === 'string' ? m[1] : m[0]));
  const titled = (title: string) => {
    const widget = widgets.find((w) => w.properties.title === title);
    if (widget === undefined) throw new Error(`no widget "${title}"`);
    return widget;
  };

  it('shows the state of the five alarms, the filter one among them', () => {
    const alarmIds = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
    const filterAlarm = Object.keys(
      template.findResources('AWS::CloudWatch::Alarm', {
        Properties: { MetricName: MetricName.FilterLatency },
      }),
    );
    const shown = titled('Monitor alarms').properties.alarms!;
    expect(shown).toHaveLength(5);
    expect(shown.map((arn) => arn.replace(/^<(\w+)\.Arn>$/, '$1')).sort()).toEqual(alarmIds.sort());
    expect(filterAlarm).toHaveLength(1);
  });

  it.each([
    ['Cycle outcomes', [MetricName.CyclesCompleted, MetricName.ApiFailures, 'Errors', 'Throttles']],
    ['API failures by kind', Object.values(failureMetricName)],
    ['Request latency (ms)', [MetricName.FilterLatency, MetricName.NetworkLatency]],
    ['Cycle duration (ms)', [MetricName.CycleDuration, 'Duration']],
    [
      'Status changes and alerts',
      [MetricName.StatusChanges, MetricName.AlertsPublished, MetricName.AlertPublishFailures],
    ],
    ['Time to alert (ms)', [MetricName.TimeToAlert]],
  ])('graphs %s', (title, names) => {
    expect(metricNames(titled(title))).toEqual(expect.arrayContaining(names));
  });

  it.each([
    ['traffic.in_pps', 'Figure.traffic.in_pps'],
    ['links.0.pps', 'Figure.links.0.pps'],
  ])(
    'graphs the chosen field %s with a SEARCH on its metric over every network (issue 14.3)',
    (field, metric) => {
      const graph = titled(`${field} by network (metric ${metric})`).properties.metrics![0]![0] as {
        expression: string;
      };
      expect(graph.expression).toBe(
        `SEARCH('{Shieldwatch,NetworkId,service} MetricName="${metric}" service="shieldwatch"', 'Average', 60)`,
      );
    },
  );

  it('has one figure graph per chosen field and none per network', () => {
    const figureGraphs = widgets.filter((w) =>
      / by network \(metric Figure\./.test(w.properties.title ?? ''),
    );
    expect(figureGraphs).toHaveLength(2);
    expect(widgets.some((w) => (w.properties.title ?? '').startsWith('Network '))).toBe(false);
  });
});
