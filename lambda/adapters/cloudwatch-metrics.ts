import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ApiFailureKind, Target } from '../core/types.ts';
import { failureMetricName, figureMetricName, MetricName } from '../metric-names.ts';
import type { CycleMetrics } from '../ports.ts';

/** Cycle metrics as CloudWatch EMF through Powertools Metrics (flushed by its middleware). */
export class PowertoolsCycleMetrics implements CycleMetrics {
  constructor(private readonly metrics: Metrics) {}

  cycleCompleted(durationMs: number): void {
    this.metrics.addMetric(MetricName.CyclesCompleted, MetricUnit.Count, 1);
    this.metrics.addMetric(MetricName.CycleDuration, MetricUnit.Milliseconds, durationMs);
  }

  apiFailure(kind: ApiFailureKind): void {
    this.metrics.addMetric(MetricName.ApiFailures, MetricUnit.Count, 1);
    this.metrics.addMetric(failureMetricName[kind], MetricUnit.Count, 1);
  }

  latency(target: Target, ms: number): void {
    const name = target.kind === 'filter' ? MetricName.FilterLatency : MetricName.NetworkLatency;
    this.metrics.addMetric(name, MetricUnit.Milliseconds, ms);
  }

  /** One metric per chosen field, named after its path, with the dimension `NetworkId`. */
  figures(networkId: string, figures: ReadonlyArray<readonly [string, number]>): void {
    // A dimension value must be 1-1024 characters; the metrics are skipped rather than the cycle failed.
    if (networkId.length === 0 || networkId.length > 1024) return;
    for (const [field, value] of figures) {
      const single = this.metrics.singleMetric();
      single.addDimension('NetworkId', networkId);
      single.addMetric(figureMetricName(field), MetricUnit.NoUnit, value);
    }
  }

  statusChanged(): void {
    this.metrics.addMetric(MetricName.StatusChanges, MetricUnit.Count, 1);
  }

  alertPublished(ok: boolean, timeToAlertMs?: number): void {
    this.metrics.addMetric(
      ok ? MetricName.AlertsPublished : MetricName.AlertPublishFailures,
      MetricUnit.Count,
      1,
    );
    if (ok && timeToAlertMs !== undefined) {
      this.metrics.addMetric(MetricName.TimeToAlert, MetricUnit.Milliseconds, timeToAlertMs);
    }
  }
}
