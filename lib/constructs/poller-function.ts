import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE, SERVICE_NAME } from '../../lambda/metric-names.ts';
import { MAX_POLLER_TIMEOUT_SECONDS, type MonitorSettings, pollerTimeoutSeconds } from '../context.ts';

/** The project root (for the lock file and the entry point). */
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The Lambda entry point: exports `handler`, one poll cycle per scheduled event. */
export const POLLER_ENTRY = fileURLToPath(new URL('../../lambda/handler.ts', import.meta.url));

/**
 * Memory of the poller. The cycle mostly waits on the API; 256 MB gives the arm64 function enough CPU for
 * TLS handshakes and JSON parsing and a cold start (about 1 MB of bundle) well under a second, at
 * about $0.15 a month for a one-minute schedule.
 */
export const POLLER_MEMORY_MB = 256;

/** Longest function timeout, however rare the schedule: every request times out after at most 10 s. */
export const MAX_POLLER_TIMEOUT = Duration.seconds(MAX_POLLER_TIMEOUT_SECONDS);

/**
 * Function timeout for a schedule: half the shortest interval between two runs, at most two minutes
 * ({@link pollerTimeoutSeconds}, where the context check of `requestTimeoutMs` reads it too).
 */
export function pollerTimeout(minIntervalMinutes: number): Duration {
  return Duration.seconds(pollerTimeoutSeconds(minIntervalMinutes));
}

/**
 * Properties of {@link PollerFunction}. The alert and request tunables are the validated context settings,
 * passed to the function as their `SHIELDWATCH_*` variables only when set.
 */
export interface PollerFunctionProps
  extends Pick<
    MonitorSettings,
    'expectedStatus' | 'remindEvery' | 'confirmations' | 'alertAfter' | 'concurrency' | 'requestTimeoutMs'
  > {
  readonly apiUrl: string;
  /**
   * The networks of the environment (`SHIELDWATCH_NETWORKS`), polled when the event names none.
   * @default - unset: the variable is left out (sharded: each schedule's event carries its networks)
   */
  readonly networks?: readonly string[];
  /** @default - unset: the function tries the well-known status paths */
  readonly statusPath?: string;
  /** ARN of the secret holding the key (never the key). */
  readonly apiKeySecretArn: string;
  readonly tableName: string;
  readonly topicArn: string;
  readonly retentionDays: number;
  /** Shortest interval between two scheduled runs, in minutes: sizes the timeout and the retry window. */
  readonly minIntervalMinutes: number;
  /** @default - no reserved concurrency */
  readonly reservedConcurrency?: number;
  /** @default - the function's default number of figure metrics per network */
  readonly figureMetrics?: number;
}

/** The optional `SHIELDWATCH_*` variables of the props that are set, and no others. */
function optionalVariables(props: PollerFunctionProps): Record<string, string> {
  const variables: Record<string, string | number | undefined> = {
    SHIELDWATCH_NETWORKS: props.networks?.join(','),
    SHIELDWATCH_STATUS_PATH: props.statusPath,
    SHIELDWATCH_FIGURE_METRICS: props.figureMetrics,
    SHIELDWATCH_EXPECTED_STATUS: props.expectedStatus,
    SHIELDWATCH_REMIND_EVERY: props.remindEvery,
    SHIELDWATCH_CONFIRMATIONS: props.confirmations,
    SHIELDWATCH_ALERT_AFTER: props.alertAfter,
    SHIELDWATCH_CONCURRENCY: props.concurrency,
    SHIELDWATCH_TIMEOUT_MS: props.requestTimeoutMs,
  };
  return Object.fromEntries(
    Object.entries(variables)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, String(value)]),
  );
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
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Our own role instead of the default one with AWSLambdaBasicExecutionRole: that policy lets the
    // function write to any log group in the account; this one can write to its own only.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'shieldwatch poller: its log group, the table, the topic and the key secret',
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: POLLER_ENTRY,
      handler: 'handler',
      projectRoot,
      depsLockFilePath: `${projectRoot}package-lock.json`,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: POLLER_MEMORY_MB,
      timeout: pollerTimeout(props.minIntervalMinutes),
      role: this.role,
      logGroup: this.logGroup,
      description: 'shieldwatch: polls the protection API, stores snapshots, alerts on status changes',
      // A failed cycle (the store could not be written) is retried while younger than one interval (Lambda
      // allows at most 6 hours); after that the next scheduled cycle takes over.
      retryAttempts: 2,
      maxEventAge: Duration.minutes(Math.min(props.minIntervalMinutes, 6 * 60)),
      reservedConcurrentExecutions: props.reservedConcurrency,
      environment: {
        SHIELDWATCH_API_URL: props.apiUrl,
        SHIELDWATCH_API_KEY_SECRET: props.apiKeySecretArn,
        SHIELDWATCH_TABLE: props.tableName,
        SHIELDWATCH_TOPIC_ARN: props.topicArn,
        SHIELDWATCH_RETENTION_DAYS: String(props.retentionDays),
        ...optionalVariables(props),
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: 'INFO',
      },
      bundling: {
        format: OutputFormat.ESM,
        minify: true,
        keepNames: true,
        sourceMap: false,
        bundleAwsSDK: true,
        mainFields: ['module', 'main'],
        logLevel: LogLevel.WARNING,
        // Bundled CommonJS dependencies still call require() for Node built-ins.
        banner:
          "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
  }
}
