/**
 * What every function of the stack has alike (the poller, the acknowledge function, the status page publisher
 * and the signing key's custom resource): Node.js 24 on arm64, an ESM bundle with the AWS SDK bundled and
 * minified, its own log group kept a month, and its own role that can write to that log group only.
 */
import { fileURLToPath } from 'node:url';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import {
  type BundlingOptions,
  LogLevel,
  type NodejsFunctionProps,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
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
