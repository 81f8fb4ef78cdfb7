import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { configuredEndpoint, createDynamoClient } from '../lambda/adapters/aws-clients.ts';
import { ensureTable } from '../lambda/adapters/dynamo-store.ts';
import { ensureEmbeddedStore } from './embedded-store.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The DynamoDB the CLI uses, and how to name it to people. */
export interface CliStore {
  readonly client: DynamoDBClient;
  /** e.g. `embedded (.shieldwatch/)`, `DynamoDB at http://127.0.0.1:8000`, `DynamoDB in eu-west-1`. */
  readonly description: string;
}

/** True when the environment names an AWS setup: then the CLI uses that DynamoDB, not the embedded one. */
export function hasAwsConfiguration(env: Env): boolean {
  return (
    ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE'].some((name) => (env[name] ?? '') !== '') ||
    Object.keys(env).some((name) => name.startsWith('AWS_ENDPOINT_URL') && (env[name] ?? '') !== '')
  );
}

function isAwsEndpoint(endpoint: string | undefined): boolean {
  if (endpoint === undefined) return true;
  try {
    const host = new URL(endpoint).hostname.toLowerCase();
    return host.endsWith('.amazonaws.com') || host.endsWith('.amazonaws.com.cn') || host.endsWith('.api.aws');
  } catch {
    return true;
  }
}

/** Runs a store call, naming the store in the error when it fails (unreachable, missing table, denied). */
export async function storeCall<T>(store: Pick<CliStore, 'description'>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new Error(
      `cannot use the store (${store.description}): ${(error as Error).name}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Opens the store: the configured DynamoDB when AWS settings are present, otherwise the embedded dynalite
 * under `.shieldwatch/`. The table is created when missing on the embedded store and on endpoints outside
 * AWS, never on AWS itself (there the stack owns it).
 */
export async function openStore(env: Env, table: string): Promise<CliStore> {
  let store: CliStore;
  let create: boolean;
  if (hasAwsConfiguration(env)) {
    const endpoint = configuredEndpoint(env, 'dynamodb');
    const where = endpoint ?? `in ${env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'] ?? 'the profile region'}`;
    store = {
      client: createDynamoClient(env),
      description: `DynamoDB ${endpoint === undefined ? where : `at ${where}`}, table ${table}`,
    };
    create = !isAwsEndpoint(endpoint);
  } else {
    const embedded = await ensureEmbeddedStore();
    store = {
      client: createDynamoClient(env, embedded.endpoint),
      description: `embedded store (${embedded.dir}), table ${table}`,
    };
    create = true;
  }
  if (create) {
    try {
      await storeCall(store, () => ensureTable(store.client, table));
    } catch (error) {
      store.client.destroy();
      throw error;
    }
  }
  return store;
}
