import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { createDynamoClient } from './adapters/aws-clients.ts';
import { PowertoolsCycleMetrics } from './adapters/cloudwatch-metrics.ts';
import { lambdaHeartbeat } from './adapters/monitor-heartbeat.ts';
import { createSecretsClient } from './adapters/secrets-client.ts';
import { DynamoSlotClaims } from './adapters/slot-claims.ts';
import { createSnsClient } from './adapters/sns-client.ts';
import { LogAlertPublisher } from './adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from './composition-root.ts';
import { loadConfig } from './config.ts';
import { POLL_EVERY_DEFAULT_MS, planSlots, SCHEDULE_WINDOW_MS, type Slot } from './core/poll-slots.ts';
import { lambdaDeadline } from './core/time-budget.ts';
import { runCycle } from './cycle.ts';
import { StoreError } from './errors.ts';
import { METRIC_NAMESPACE, SERVICE_NAME } from './metric-names.ts';
import { runSlots } from './poll-loop.ts';

const logger = new Logger({ serviceName: SERVICE_NAME });
const metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: SERVICE_NAME });
type LambdaMonitor = Monitor & {
  readonly beat: () => Promise<void>;
  /** The claims of one shard's slots (CONTRACT §18), when the monitor polls within the minute. */
  readonly slotClaims?: (shard: number, owner: string) => DynamoSlotClaims;
  readonly pollEveryMs: number;
};
let monitor: LambdaMonitor | undefined;

/** The schedule's interval (EventBridge: once a minute): the heartbeat is fresh for two of them. */
const SCHEDULE_EVERY_MS = 60_000;

function coldStart(): LambdaMonitor {
  const env = process.env;
  const config = loadConfig(env);
  const dynamo = createDynamoClient(env);
  const built = buildMonitor({
    config,
    env,
    dynamo,
    ...(config.topicArn === undefined ? {} : { sns: createSnsClient(env) }),
    // The API key's secret, and the acknowledge link's signing key (docs/acknowledge.md).
    ...(config.apiKey.kind === 'secret' || config.ackLink !== undefined
      ? { secrets: createSecretsClient(env) }
      : {}),
    log: logger,
    metrics: new PowertoolsCycleMetrics(metrics),
    fallbackPublisher: new LogAlertPublisher((alert) =>
      logger.warn('alert (no topic configured)', { alert }),
    ),
  });
  // One store, one monitor (docs/design/cycle.md): a CLI cycle with other settings is refused while it is fresh.
  const heartbeat = lambdaHeartbeat({
    client: dynamo,
    config,
    keys: built.keys,
    everyMs: SCHEDULE_EVERY_MS,
    ...(env['AWS_LAMBDA_FUNCTION_NAME'] === undefined
      ? {}
      : { functionName: env['AWS_LAMBDA_FUNCTION_NAME'] }),
    now: Date.now,
  });
  const pollEveryMs = config.pollEveryMs ?? POLL_EVERY_DEFAULT_MS;
  return {
    ...built,
    beat: () => heartbeat(),
    pollEveryMs,
    ...(pollEveryMs < SCHEDULE_WINDOW_MS
      ? {
          slotClaims: (shard: number, owner: string) =>
            new DynamoSlotClaims(dynamo, config.table, shard, owner),
        }
      : {}),
  };
}

/** The scheduled event; a shard's schedule may carry its slice of the networks. */
export type PollEvent = Partial<ScheduledEvent> & {
  readonly networks?: readonly string[];
  readonly pollFilter?: boolean;
  /** The shard's index: its rule items are `rules#<shard>...` (docs/design/rule-state.md). */
  readonly shard?: number;
  /** How many shards the deployment runs (an earlier version's schedules do not say). */
  readonly shards?: number;
};

async function poll(event: PollEvent, context: Context) {
  try {
    monitor ??= coldStart();
  } catch (error) {
    logger.error('configuration error', error as Error);
    throw error;
  }
  const settings = {
    ...monitor.settings,
    ...(Array.isArray(event.networks)
      ? { networks: event.networks.filter((n) => typeof n === 'string') }
      : {}),
    ...(typeof event.pollFilter === 'boolean' ? { pollFilter: event.pollFilter } : {}),
    ...(Number.isSafeInteger(event.shard) && (event.shard as number) >= 0
      ? { ruleShard: event.shard as number }
      : {}),
    // A sharded schedule names the count; an unsharded one no shard at all: it is the only one.
    ...(Number.isSafeInteger(event.shards) && (event.shards as number) >= 1
      ? { shardCount: event.shards as number }
      : event.shard === undefined && !Array.isArray(event.networks)
        ? { shardCount: 1 }
        : {}),
  };
  const endByMs = lambdaDeadline(Date.now(), context.getRemainingTimeInMillis());
  // Beside the cycles, never failing them: a heartbeat not written only lets a CLI cycle through unchecked.
  const beat = monitor.beat().catch((error: unknown) => logger.warn('heartbeat not written', error as Error));
  const scheduled = typeof event.time === 'string' ? Date.parse(event.time) : Number.NaN;
  const slots = planSlots({
    scheduledMs: Number.isFinite(scheduled) ? scheduled : Date.now(),
    nowMs: Date.now(),
    everyMs: monitor.pollEveryMs,
    endByMs,
  });
  const claims = monitor.slotClaims?.(settings.ruleShard ?? 0, context.awsRequestId ?? 'lambda');
  // Until when the shard polls slowly: the API answered 429 (kept with the claims, so the next invocation knows).
  let slowUntilMs = 0;
  const deps = monitor.deps;
  const run = await runSlots({
    slots,
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    slowUntil: () => slowUntilMs,
    ...(claims === undefined
      ? {}
      : {
          claim: async (slot: Slot) => {
            const claimed = await claims.claim(slot);
            slowUntilMs = Math.max(slowUntilMs, claimed.slowUntilMs ?? 0);
            if (!claimed.claimed) logger.info('slot run by another invocation', { slot: slot.startMs });
            return claimed.claimed;
          },
        }),
    cycle: async (slot: Slot) => {
      const summary = await oneCycle(deps, settings, slot.deadlineMs);
      if (claims !== undefined && summary.rateLimited) {
        slowUntilMs = Date.now() + SLOW_DOWN_MS;
        logger.warn('the API is rate limiting: one cycle a minute until', {
          until: new Date(slowUntilMs).toISOString(),
        });
        await claims
          .slowDown(slowUntilMs)
          .catch((error: unknown) => logger.warn('slow-down not recorded', error as Error));
      }
      return summary;
    },
  });
  await beat;
  const ran = run.slots.flatMap((s) => (s.outcome === 'ran' ? [s.result] : []));
  // One cycle a minute (the default): its summary, as before; several: each slot's.
  if (claims === undefined && ran.length === 1) return ran[0];
  return {
    slots: run.slots.map((s) =>
      s.outcome === 'ran'
        ? { at: new Date(s.startMs).toISOString(), outcome: s.outcome, ...s.result }
        : { at: new Date(s.startMs).toISOString(), outcome: s.outcome },
    ),
  };
}

/** While the API answers 429, the shard runs one cycle a minute for this long (CONTRACT §18). */
const SLOW_DOWN_MS = 5 * 60_000;

/** One cycle by `deadlineMs`, logged; a store failure throws (the platform retries the invocation). */
async function oneCycle(deps: Monitor['deps'], settings: Monitor['settings'], deadlineMs: number) {
  let result: Awaited<ReturnType<typeof runCycle>>;
  try {
    result = await runCycle(deps, settings, deadlineMs);
  } catch (error) {
    // The cycle has not run (store or key), or ran in part (its state committed): say so in the structured
    // log, then let the platform retry.
    const committed = error instanceof StoreError ? error.committed : undefined;
    if (committed === undefined) logger.error('cycle failed', error as Error);
    else logger.error('cycle failed', { committed, error: error as Error });
    throw error;
  }
  const summary = {
    cycleId: result.cycleId,
    status: result.status,
    filterOk: result.filter?.ok,
    networksOk: result.networks.filter((n) => n.ok).length,
    networksFailed: result.networks.filter((n) => !n.ok).length,
    alertsQueued: result.queued.length,
    alertsPublished: result.delivered.length,
    alertsSuppressed: result.suppressed.length,
    alertsPending: result.pending,
    durationMs: result.durationMs,
    ...([result.filter, ...result.networks].some((s) => s?.errorKind === 'rate_limited')
      ? { rateLimited: true }
      : {}),
  };
  logger.info('cycle completed', summary);
  return summary;
}

/**
 * Lambda entry: one poll cycle per scheduled event, or one per slot of `pollEvery` (CONTRACT §18). A store
 * failure throws (when no slot ran), so the platform retries.
 */
export const handler = middy(poll)
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics, { captureColdStartMetric: true, throwOnEmptyMetrics: false }));
