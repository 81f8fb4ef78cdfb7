/**
 * One deployed function of the stack, run as Lambda would run it (docs/deploy-test.md): its code is the asset
 * the CDK CLI uploaded (its SHA-256 checked against `CodeSha256`), unzipped and run in a Node process by
 * `run-deployed-function.mjs` with its deployed environment, its role's credentials and the variables the
 * Lambda runtime sets, every AWS call going through a recorder; and those calls checked against the role's
 * deployed policies. Shared by the status page's and the digest's tests (the acknowledge function's has its own
 * copy, written before this module).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type AwsCall, authzRequests, type Deployment, type Recorder } from './aws-calls.ts';
import { ACCOUNT, PROJECT_ROOT, REGION, run } from './emulator.ts';
import { evaluate, type PolicyDocument } from './iam-policy.ts';
import type { DeployedStack } from './status-page.ts';

/** A deployed function made ready to run: its asset unzipped, its configuration as Lambda returns it. */
export interface ReadyFunction {
  readonly logicalId: string;
  readonly name: string;
  readonly codeDir: string;
  /** Its log group's name (the `LoggingConfig` of its template). */
  readonly logGroup: string;
  readonly config: {
    FunctionArn?: string;
    Role?: string;
    Handler?: string;
    Runtime?: string;
    Timeout?: number;
    MemorySize?: number;
    CodeSha256?: string;
    Environment?: { Variables?: Record<string, string> };
  };
}

/** One run: the handler's result, the AWS calls it made, what it printed. */
export interface FunctionRun {
  readonly result: unknown;
  readonly calls: AwsCall[];
  readonly output: string;
}

/** The deployed function `logicalId` of `stack`: its asset (CodeSha256 checked) unzipped under the work folder. */
export async function readyFunction(stack: DeployedStack, logicalId: string): Promise<ReadyFunction> {
  const physical = (id: string) => {
    const found = stack.resources.get(id)?.PhysicalResourceId;
    if (found === undefined) throw new Error(`no deployed resource ${id}`);
    return found;
  };
  const name = physical(logicalId);
  const got = await stack.aws.lambda.getFunction(name);
  const properties = stack.template.Resources[logicalId]!.Properties!;
  const code = properties['Code'] as { S3Key: string };
  const zip = await stack.aws.s3.getObject(`cdk-hnb659fds-assets-${ACCOUNT}-${REGION}`, code.S3Key);
  expect(createHash('sha256').update(zip).digest('base64')).toBe(got.Configuration.CodeSha256);
  const codeDir = join(stack.work, `code-${logicalId}`);
  mkdirSync(codeDir);
  writeFileSync(`${codeDir}.zip`, zip);
  const unzip = await run('unzip', ['-q', `${codeDir}.zip`, '-d', codeDir], {
    env: { PATH: process.env['PATH'] },
  });
  expect(unzip.code, unzip.stderr).toBe(0);
  const logGroupId = (properties['LoggingConfig'] as { LogGroup: { Ref: string } }).LogGroup.Ref;
  return { logicalId, name, codeDir, logGroup: physical(logGroupId), config: got.Configuration };
}

/** Runs a ready function once with `event`, its deployed environment and its role, through `recorder`. */
export async function invokeFunction(
  stack: DeployedStack,
  recorder: Recorder,
  fn: ReadyFunction,
  event: unknown,
): Promise<FunctionRun> {
  const credentials = await stack.aws.sts.assumeRole(fn.config.Role!);
  const eventFile = join(stack.work, `event-${fn.name}.json`);
  writeFileSync(eventFile, JSON.stringify(event));
  const before = recorder.calls.length;
  const result = await run(
    process.execPath,
    [
      join(PROJECT_ROOT, 'test/deploy/run-deployed-function.mjs'),
      fn.codeDir,
      eventFile,
      fn.config.Handler ?? 'index.handler',
      String(fn.config.Timeout ?? 60),
    ],
    {
      env: {
        PATH: process.env['PATH']!,
        ...fn.config.Environment?.Variables,
        AWS_REGION: REGION,
        AWS_DEFAULT_REGION: REGION,
        AWS_LAMBDA_FUNCTION_NAME: fn.name,
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.config.MemorySize),
        AWS_LAMBDA_LOG_GROUP_NAME: fn.logGroup,
        AWS_LAMBDA_LOG_STREAM_NAME: 'deploy-test',
        AWS_EXECUTION_ENV: `AWS_Lambda_${fn.config.Runtime}`,
        LAMBDA_TASK_ROOT: fn.codeDir,
        TZ: ':UTC',
        AWS_ACCESS_KEY_ID: credentials.AccessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.SecretAccessKey,
        AWS_SESSION_TOKEN: credentials.SessionToken,
        // Not in a real Lambda: every AWS call goes through the recorder to the emulator.
        AWS_ENDPOINT_URL: recorder.url,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        SHIELDWATCH_DEPLOY_TEST_FUNCTION_ARN: fn.config.FunctionArn!,
      },
      cwd: fn.codeDir,
      timeoutMs: 90_000,
    },
  );
  const last = result.stdout.trim().split('\n').at(-1) ?? '';
  if (!last.startsWith('RESULT ')) {
    throw new Error(`the deployed function ${fn.name} failed:\n${result.stdout}\n${result.stderr}`);
  }
  return {
    result: JSON.parse(last.slice('RESULT '.length)),
    calls: recorder.calls.slice(before),
    output: result.stdout,
  };
}

/**
 * Every IAM request the calls make (and the Lambda service's writes to the function's log group) that the
 * role's deployed policies deny, one line each; and the policies, to check what they must refuse.
 */
export async function deniedCalls(
  stack: DeployedStack,
  fn: ReadyFunction,
  calls: readonly AwsCall[],
  deployment: Deployment,
): Promise<{ policies: PolicyDocument[]; denied: string[] }> {
  const policies = await stack.aws.iam.rolePolicies(fn.config.Role!);
  const logStream = `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${fn.logGroup}:log-stream:2026/01/01/[$LATEST]0123`;
  const requests = [
    ...calls.flatMap((call) =>
      authzRequests(call, deployment).map((request) => ({
        call: `${call.service}:${call.operation}`,
        request,
      })),
    ),
    ...['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
      call: `lambda runtime ${action}`,
      request: { action, resource: logStream, context: {} },
    })),
  ];
  const denied = requests
    .map(({ call, request }) => ({ call, request, decision: evaluate(policies, request) }))
    .filter((d) => !d.decision.allowed)
    .map(
      (d) =>
        `${d.call} -> ${d.request.action} on ${d.request.resource} ${JSON.stringify(d.request.context)}: ${d.decision.reason}`,
    );
  return { policies, denied };
}
