/**
 * The digest function's Lambda entry (CONTRACT §19, docs/digest.md): on each scheduled run (hourly, at the
 * minute of `digestAt` in `digestTz`), publishes the period's digest as `monitor.digest` when one is due and
 * not sent yet, and sends what an earlier run left in its outbox. Its own function, bundle and schedule: it
 * never runs inside, nor adds to, the poller.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { createDynamoClient } from './adapters/aws-clients.ts';
import { PowertoolsCycleMetrics } from './adapters/cloudwatch-metrics.ts';
import { createSnsClient } from './adapters/sns-client.ts';
import { SnsAlertPublisher } from './adapters/sns-publisher.ts';
import { lambdaDeadline } from './core/time-budget.ts';
import { type DigestConfig, loadDigestConfig } from './digest/digest-env.ts';
import { type DigestRunResult, runDigest } from './digest/run.ts';
import { METRIC_NAMESPACE, SERVICE_NAME } from './metric-names.ts';
import { PublishedAlerts } from './outbox.ts';

const logger = new Logger({ serviceName: `${SERVICE_NAME}-digest` });
const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: SERVICE_NAME });

let parts:
  | {
      config: DigestConfig;
      dynamo: ReturnType<typeof createDynamoClient>;
      publisher: SnsAlertPublisher;
      published: PublishedAlerts;
    }
  | undefined;

/** One run. Throws (the run fails and is logged; the next hour's run makes it good) when the table cannot be used. */
export async function handler(
  _event: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<DigestRunResult> {
  const env = process.env;
  if (parts === undefined) {
    const config = loadDigestConfig(env);
    parts = {
      config,
      dynamo: createDynamoClient(env),
      publisher: new SnsAlertPublisher(createSnsClient(env), config.topicArn),
      published: new PublishedAlerts(),
    };
  }
  const { config, dynamo, publisher, published } = parts;
  const started = Date.now();
  const remaining = context?.getRemainingTimeInMillis() ?? 60_000;
  try {
    const result = await runDigest(
      {
        client: dynamo,
        table: config.table,
        publisher,
        published,
        log: logger,
        metrics: new PowertoolsCycleMetrics(metrics),
        now: Date.now,
      },
      config,
      { runId: randomUUID(), deadlineMs: lambdaDeadline(started, remaining) },
    );
    logger.info('digest run', { ...result, ms: Date.now() - started });
    return result;
  } finally {
    metrics.publishStoredMetrics();
  }
}
