/**
 * The AWS clients' shared settings (region, local endpoints, time-outs) and the DynamoDB client, which every
 * store command needs. The other services' clients are in files of their own (sns-client.ts,
 * secrets-client.ts; CloudFormation and STS imported where used), so that a command that only reads the store
 * does not load their SDK packages at start (bench/cli-start.ts measures it).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isLoopbackHost } from '../config.ts';

/** The process environment, or what stands for it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The standard endpoint variable of each service the monitor uses (honoured by the SDK itself). */
const ENDPOINT_VARIABLES = {
  dynamodb: 'AWS_ENDPOINT_URL_DYNAMODB',
  sns: 'AWS_ENDPOINT_URL_SNS',
  secretsmanager: 'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  // The CLI's `--stack` only (cli/stack.ts): the monitor itself never calls CloudFormation.
  cloudformation: 'AWS_ENDPOINT_URL_CLOUDFORMATION',
} as const;

/**
 * Time-outs of every AWS call. `throwOnRequestTimeout` is needed for `requestTimeout` to end a call that gets
 * no answer (without it the SDK only logs a warning and waits forever).
 */
export const AWS_HTTP_OPTIONS = {
  connectionTimeout: 3000,
  requestTimeout: 5000,
  throwOnRequestTimeout: true,
} as const;

/** A service the monitor talks to. */
export type Service = keyof typeof ENDPOINT_VARIABLES;

/** The endpoint the SDK will use for a service, when one is configured in the environment. */
export function configuredEndpoint(env: Env, service: Service): string | undefined {
  return env[ENDPOINT_VARIABLES[service]] ?? env['AWS_ENDPOINT_URL'];
}

function isLoopbackUrl(url: string | undefined): boolean {
  if (url === undefined) return false;
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Client settings on top of the SDK's own resolution (which already honours AWS_REGION, AWS_PROFILE and
 * AWS_ENDPOINT_URL_*): `AWS_DEFAULT_REGION` as a region too, and, for an endpoint on this machine with no
 * credentials configured, a region and placeholder credentials so local stores and fakes work out of the box.
 */
export function clientDefaults(
  env: Env,
  service: Service,
): { region?: string; credentials?: { accessKeyId: string; secretAccessKey: string } } {
  const local = isLoopbackUrl(configuredEndpoint(env, service));
  const region = env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'] ?? (local ? 'us-east-1' : undefined);
  const hasCredentials =
    env['AWS_ACCESS_KEY_ID'] !== undefined ||
    env['AWS_PROFILE'] !== undefined ||
    env['AWS_WEB_IDENTITY_TOKEN_FILE'] !== undefined;
  return {
    ...(region === undefined ? {} : { region }),
    ...(local && !hasCredentials ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  };
}

/** The DynamoDB client, built once per process. */
export function createDynamoClient(env: Env, endpoint?: string): DynamoDBClient {
  return new DynamoDBClient({
    ...clientDefaults(
      endpoint === undefined ? env : { ...env, AWS_ENDPOINT_URL_DYNAMODB: endpoint },
      'dynamodb',
    ),
    ...(endpoint === undefined ? {} : { endpoint }),
    requestHandler: AWS_HTTP_OPTIONS,
  });
}
