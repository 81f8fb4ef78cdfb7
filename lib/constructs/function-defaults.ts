/**
 * What every function of the stack has alike (the poller, the acknowledge function, the status page publisher
 * and the signing key's custom resource): Node.js 24 on arm64, an ESM bundle with the AWS SDK bundled and
 * minified, its own log group kept a month, and its own role that can write to that log group only.
 */
import { fileURLToPath } from 'node:url';
import { Aws, type Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type CfnFunction, type IFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import {
  type BundlingOptions,
  LogLevel,
  type NodejsFunctionProps,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Schedule, type ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { Construct } from 'constructs';
import { SERVICE_NAME } from '../../lambda/metric-names.ts';

/** The project root (for the lock file and the entry points). */
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A function's log group and role, made by {@link functionLogsAndRole}. */
export interface FunctionLogsAndRole {
  readonly logGroup: LogGroup;
  readonly role: Role;
}

/**
 * The log group (`Logs`) and the role (`Role`) of a function made in `scope`. Our own role instead of the default
 * one with AWSLambdaBasicExecutionRole: that policy lets the function write to any log group in the account; this
 * one can write to its own only, and holds nothing else until the caller grants it.
 */
export function functionLogsAndRole(scope: Construct, roleDescription: string): FunctionLogsAndRole {
  const logGroup = new LogGroup(scope, 'Logs', {
    retention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = new Role(scope, 'Role', {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: roleDescription,
  });
  logGroup.grantWrite(role);
  return { logGroup, role };
}

/** Options of {@link bundledFunction}. */
export interface BundledFunctionOptions {
  /**
   * Keep function and class names in the minified bundle (error names in logs).
   * @default true
   */
  readonly keepNames?: boolean;
  /** @default - none */
  readonly commandHooks?: BundlingOptions['commandHooks'];
}

/**
 * The properties of a `NodejsFunction` that every function of the stack shares: its entry's `handler` export,
 * Node.js 24 on arm64, and an ESM bundle with the AWS SDK bundled (pinned versions, faster cold start), minified.
 */
export function bundledFunction(
  entry: string,
  options: BundledFunctionOptions = {},
): Pick<
  NodejsFunctionProps,
  'entry' | 'handler' | 'projectRoot' | 'depsLockFilePath' | 'runtime' | 'architecture' | 'bundling'
> {
  return {
    entry,
    handler: 'handler',
    projectRoot,
    depsLockFilePath: `${projectRoot}package-lock.json`,
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    bundling: {
      format: OutputFormat.ESM,
      minify: true,
      ...(options.keepNames === false ? {} : { keepNames: true }),
      sourceMap: false,
      bundleAwsSDK: true,
      mainFields: ['module', 'main'],
      logLevel: LogLevel.WARNING,
      // Bundled CommonJS dependencies still call require() for Node built-ins.
      banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      ...(options.commandHooks === undefined ? {} : { commandHooks: options.commandHooks }),
    },
  };
}

/**
 * The Powertools variables of a function: its service name (`shieldwatch`, or `shieldwatch-<part>` for a function
 * beside the poller), logs at INFO, and the metrics namespace when the function sends metrics.
 */
export function powertoolsEnvironment(part?: string, metricsNamespace?: string): Record<string, string> {
  return {
    POWERTOOLS_SERVICE_NAME: part === undefined ? SERVICE_NAME : `${SERVICE_NAME}-${part}`,
    ...(metricsNamespace === undefined ? {} : { POWERTOOLS_METRICS_NAMESPACE: metricsNamespace }),
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
}

/** How {@link scheduledInvoke} runs a function. */
export interface ScheduledInvokeProps {
  readonly expression: ScheduleExpression;
  /** The schedule's description. */
  readonly description: string;
  /** The invoke role's description. */
  readonly roleDescription: string;
  readonly retryAttempts: number;
  readonly maxEventAge: Duration;
}

/**
 * An EventBridge Scheduler schedule (`Schedule`) that invokes `fn` with a role of its own (`ScheduleRole`, only
 * the scheduler of this account may assume it), as the status page publisher and the digest have; the cdk-nag
 * finding on the `:*` the invoke grant adds is acknowledged.
 */
export function scheduledInvoke(scope: Construct, fn: IFunction, props: ScheduledInvokeProps): Schedule {
  const invokeRole = new Role(scope, 'ScheduleRole', {
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
    }),
    description: props.roleDescription,
  });
  const schedule = new Schedule(scope, 'Schedule', {
    schedule: props.expression,
    target: new LambdaInvoke(fn, {
      role: invokeRole,
      retryAttempts: props.retryAttempts,
      maxEventAge: props.maxEventAge,
    }),
    description: props.description,
  });
  Validations.of(invokeRole).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${Stack.of(scope).getLogicalId(fn.node.defaultChild as CfnFunction)}.Arn>:*]`,
    reason:
      'CDK grantInvoke adds the function ARN with :* so that versions and aliases of this one function ' +
      'can be invoked; no other function matches.',
  });
  return schedule;
}
