import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import type { Role } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE } from '../../lambda/metric-names.ts';
import { settingsEnvironment } from '../../lambda/settings.ts';
import { type MonitorSettings, pollEveryMsOf, pollerTimeoutSeconds } from '../context.ts';

/**
 * Function timeout when it polls within the minute (`pollEvery` below 60s): the minute's slots, a late start
 * and the last slot's cycle fit, and an invocation ends before its minute's successor is well under way.
 */
export const SLOTTED_POLLER_TIMEOUT_SECONDS = 70;

import { bundledFunction, functionLogsAndRole, powertoolsEnvironment } from './function-defaults.ts';

/** The Lambda entry point: exports `handler`, one poll cycle per scheduled event. */
export const POLLER_ENTRY = fileURLToPath(new URL('../../lambda/handler.ts', import.meta.url));

/**
 * Memory of the poller. Lambda gives 256 / 1769 of a vCPU at 256 MB: the bundle's import measures 77-85 ms
 * of CPU (`npm run bench`), so a cold start takes about 0.6 s, far inside the timeout, and a cycle that
 * mostly waits on the API costs about $0.15 a month on a one-minute schedule (512 MB: $0.29). docs/deploy.md, Sizing.
 */
export const POLLER_MEMORY_MB = 256;

/**
 * Function timeout for a schedule: half the shortest interval between two runs, at most two minutes
 * ({@link pollerTimeoutSeconds}, where the context check of `requestTimeoutMs` reads it too).
 */
export function pollerTimeout(minIntervalMinutes: number, pollEvery?: string): Duration {
  // Polling within the minute (CONTRACT §18): the invocation runs the minute's slots, the last due by its end.
  if (pollEveryMsOf(pollEvery) < 60_000) return Duration.seconds(SLOTTED_POLLER_TIMEOUT_SECONDS);
  return Duration.seconds(pollerTimeoutSeconds(minIntervalMinutes));
}

/**
 * Properties of {@link PollerFunction}. Each reaches the function as its variable of the settings catalogue
 * (`lambda/settings.ts`); the optional ones only when set, so that the function's defaults apply.
 */
export interface PollerFunctionProps
  extends Pick<
    MonitorSettings,
    | 'expectedStatus'
    | 'remindEvery'
    | 'escalateAfter'
    | 'groupBy'
    | 'groupInterval'
    | 'confirmations'
    | 'alertAfter'
    | 'concurrency'
    | 'requestTimeoutMs'
    | 'rules'
    | 'maintenance'
    | 'pollEvery'
  > {
  readonly apiUrl: string;
  /**
   * The networks of the function's environment, polled when the event names none.
   * @default - unset: the variable is left out (sharded: each schedule's event carries its networks)
   */
  readonly networks?: readonly string[];
  /** @default - unset: the function tries the well-known status paths */
  readonly statusPath?: string;
  /** The secret holding the key (never the key): its name or complete ARN, as `GetSecretValue` takes it. */
  readonly apiKeySecretId: string;
  readonly tableName: string;
  readonly topicArn: string;
  readonly retentionDays: number;
  /** Shortest interval between two scheduled runs, in minutes: sizes the timeout and the retry window. */
  readonly minIntervalMinutes: number;
  /** @default - no reserved concurrency */
  readonly reservedConcurrency?: number;
  /**
   * Dot paths of the numeric fields of each network's body sent as metrics.
   * @default - none: no figure metrics (the variable is left out)
   */
  readonly figureFields?: readonly string[];
}

/**
 * The poll cycle as a Lambda function: Node.js 24 on arm64, an ESM bundle with the AWS SDK bundled and
 * minified, its own log group, and a role that holds nothing but what the stack grants it.
 */
export class PollerFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: PollerFunctionProps) {
    super(scope, id);
    const { logGroup, role } = functionLogsAndRole(
      this,
      'shieldwatch poller: its log group, the table, the topic and the key secret',
    );
    this.logGroup = logGroup;
    this.role = role;

    this.function = new NodejsFunction(this, 'Function', {
      ...bundledFunction(POLLER_ENTRY),
      memorySize: POLLER_MEMORY_MB,
      timeout: pollerTimeout(props.minIntervalMinutes, props.pollEvery),
      role: this.role,
      logGroup: this.logGroup,
      description: 'shieldwatch: polls the protection API, stores snapshots, alerts on status changes',
      // A failed cycle (the store could not be written) is retried while younger than one interval (Lambda
      // allows at most 6 hours); after that the next scheduled cycle takes over.
      retryAttempts: 2,
      maxEventAge: Duration.minutes(Math.min(props.minIntervalMinutes, 6 * 60)),
      reservedConcurrentExecutions: props.reservedConcurrency,
      environment: {
        ...settingsEnvironment({
          apiUrl: props.apiUrl,
          apiKeySecret: props.apiKeySecretId,
          table: props.tableName,
          topicArn: props.topicArn,
          retentionDays: props.retentionDays,
          networks: props.networks,
          statusPath: props.statusPath,
          figureFields: props.figureFields?.length ? props.figureFields : undefined,
          expectedStatus: props.expectedStatus,
          remindEvery: props.remindEvery,
          escalateAfter: props.escalateAfter,
          groupBy: props.groupBy,
          groupInterval: props.groupInterval,
          confirmations: props.confirmations,
          alertAfter: props.alertAfter,
          concurrency: props.concurrency,
          timeoutMs: props.requestTimeoutMs,
          rules: props.rules,
          maintenance: props.maintenance,
          pollEvery: props.pollEvery,
        }),
        ...powertoolsEnvironment(undefined, METRIC_NAMESPACE),
      },
    });
  }
}
