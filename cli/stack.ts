/**
 * `--stack NAME` (or `SHIELDWATCH_STACK`): the CLI reaches a deployed stack by its name. The table, the topic
 * and the region come from the stack's outputs (CloudFormation `DescribeStacks`, with the usual AWS
 * credentials), and the command runs with them as `SHIELDWATCH_TABLE`, `SHIELDWATCH_TOPIC_ARN` and
 * `AWS_REGION`, so `shieldwatch status --stack Shieldwatch` works right after `cdk deploy`.
 */
import type { DescribeStacksCommandOutput } from '@aws-sdk/client-cloudformation';
import { clientDefaults, configuredEndpoint } from '../lambda/adapters/aws-clients.ts';
import { SETTINGS } from '../lambda/settings.ts';
import { UsageError } from './format.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The stack outputs the CLI reads (lib/monitor-stack.ts writes them). */
export const STACK_OUTPUTS = { table: 'TableName', topicArn: 'TopicArn' } as const;

/** A stack the CLI cannot use: `exitCode` 2 when the name or the settings are wrong, 1 when AWS failed. */
export class StackError extends Error {
  override readonly name = 'StackError';
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** What the CLI takes from a deployed stack. */
export interface DeployedStack {
  readonly name: string;
  /** The region it lives in, from its ARN. */
  readonly region: string;
  readonly table: string;
  readonly topicArn: string;
}

/** The stack named by `--stack` or `SHIELDWATCH_STACK`, when one is; a {@link UsageError} for a blank or odd name. */
export function stackName(option: unknown, env: Env): string | undefined {
  const fromOption = typeof option === 'string';
  const raw = fromOption ? option : env[SETTINGS.stack.env];
  if (raw === undefined || (!fromOption && raw.trim() === '')) return undefined;
  const name = raw.trim();
  const source = fromOption ? '--stack' : SETTINGS.stack.env;
  // A stack name, or its ARN (DescribeStacks takes both); anything else cannot name a stack.
  if (
    !/^(?:[A-Za-z][A-Za-z0-9-]{0,127}|arn:aws[a-z-]*:cloudformation:[a-z0-9-]+:\d{12}:stack\/[A-Za-z][A-Za-z0-9-]{0,127}\/[A-Za-z0-9-]+)$/.test(
      name,
    )
  ) {
    throw new UsageError(
      `${source} must be a stack name (letters, digits and "-", starting with a letter, e.g. Shieldwatch) or a stack ARN, got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

/** The region of a stack ARN (`arn:aws:cloudformation:REGION:ACCOUNT:stack/NAME/ID`). */
function arnRegion(arn: string | undefined): string | undefined {
  const region = arn?.split(':')[3];
  return region === undefined || region === '' ? undefined : region;
}

/** Why DescribeStacks failed, in the operator's words, with the exit code the CLI gives it. */
function describeFailure(name: string, where: string, error: unknown): StackError {
  const e = error as Error;
  const text = `${e.name}: ${e.message}`;
  if (/does not exist/i.test(e.message) && e.name === 'ValidationError') {
    return new StackError(
      `no stack named ${JSON.stringify(name)} ${where}: check the name (\`cdk deploy\` prints it; the app's is ` +
        "Shieldwatch) and the region (AWS_REGION or the profile's region must be the stack's)",
      2,
      { cause: error },
    );
  }
  if (/region is missing/i.test(e.message)) {
    return new StackError(
      `--stack ${name}: no AWS region: set AWS_REGION (or AWS_PROFILE with a region) to the region the stack was deployed to`,
      2,
      { cause: error },
    );
  }
  if (e.name === 'CredentialsProviderError' || /credential/i.test(e.message)) {
    return new StackError(
      `--stack ${name}: no AWS credentials to describe the stack: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and ` +
        `AWS_SECRET_ACCESS_KEY, as for cdk deploy (${text})`,
      2,
      { cause: error },
    );
  }
  return new StackError(`cannot describe the stack ${JSON.stringify(name)} ${where}: ${text}`, 1, {
    cause: error,
  });
}

/**
 * Describes the stack `name` (CloudFormation DescribeStacks in the configured region, honouring
 * `AWS_ENDPOINT_URL_CLOUDFORMATION` / `AWS_ENDPOINT_URL`) and reads its `TableName` and `TopicArn` outputs.
 *
 * @throws StackError when it cannot be described (not found: exit 2; AWS failed: exit 1) or lacks an output.
 */
export async function describeStack(name: string, env: Env): Promise<DeployedStack> {
  // Loaded here: only commands given a stack pay for the CloudFormation client.
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const endpoint = configuredEndpoint(env, 'cloudformation');
  const defaults = clientDefaults(env, 'cloudformation');
  const client = new CloudFormationClient({
    ...defaults,
    requestHandler: { connectionTimeout: 3000, requestTimeout: 10_000, throwOnRequestTimeout: true },
  });
  const where = `in ${defaults.region ?? 'the profile region'}${endpoint === undefined ? '' : ` (CloudFormation at ${endpoint})`}`;
  try {
    let answer: DescribeStacksCommandOutput;
    try {
      answer = await client.send(new DescribeStacksCommand({ StackName: name }));
    } catch (error) {
      throw describeFailure(name, where, error);
    }
    const stack = answer.Stacks?.[0];
    if (stack === undefined) {
      throw new StackError(`no stack named ${JSON.stringify(name)} ${where}`, 2);
    }
    const outputs = new Map<string, string>(
      (stack.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
    );
    const missing = Object.values(STACK_OUTPUTS).filter((key) => (outputs.get(key) ?? '') === '');
    if (missing.length > 0) {
      const has = [...outputs.keys()].filter((key) => key !== '');
      throw new StackError(
        `the stack ${JSON.stringify(stack.StackName ?? name)} ${where} (${stack.StackStatus ?? 'status unknown'}) ` +
          `has no output ${missing.join(' or ')} (its outputs: ${has.length === 0 ? 'none' : has.join(', ')}): ` +
          'is it a shieldwatch stack, and has its deployment finished?',
        2,
      );
    }
    const region = arnRegion(stack.StackId) ?? (await client.config.region());
    return {
      name: stack.StackName ?? name,
      region,
      table: outputs.get(STACK_OUTPUTS.table)!,
      topicArn: outputs.get(STACK_OUTPUTS.topicArn)!,
    };
  } finally {
    client.destroy();
  }
}

/**
 * The environment a command runs with on a deployed stack: its table, topic and region (the stack's wins over
 * `SHIELDWATCH_TABLE`, `SHIELDWATCH_TOPIC_ARN` and `AWS_REGION` set elsewhere), and `SHIELDWATCH_STACK` naming
 * it, so the store says which stack it is. `warnings` name each setting the stack overrode with another value.
 */
export function stackEnvironment(
  env: Env,
  stack: DeployedStack,
): { env: Record<string, string | undefined>; warnings: string[] } {
  const set = {
    [SETTINGS.table.env]: stack.table,
    [SETTINGS.topicArn.env]: stack.topicArn,
    AWS_REGION: stack.region,
  };
  const warnings = Object.entries(set)
    .filter(([key, value]) => (env[key] ?? '').trim() !== '' && env[key]!.trim() !== value)
    .map(([key, value]) => `${key} (${env[key]!.trim()}) ignored: the stack ${stack.name} gives ${value}`);
  return { env: { ...env, ...set, [SETTINGS.stack.env]: stack.name }, warnings };
}
