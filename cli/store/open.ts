import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  AWS_HTTP_OPTIONS,
  configuredEndpoint,
  createDynamoClient,
} from '../../lambda/adapters/aws-clients.ts';
import { ensureTable } from '../../lambda/adapters/dynamo-store.ts';
import { ConfigError } from '../../lambda/config.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import {
  defaultStoreDir,
  EMBEDDED_REGION,
  type EmbeddedStore,
  embeddedStoreExists,
  ensureEmbeddedStore,
  keepEmbeddedStoreAlive,
} from './embedded.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The DynamoDB the CLI uses, and how to name it to people. */
export interface CliStore {
  readonly client: DynamoDBClient;
  /** e.g. `embedded (.shieldwatch/)`, `DynamoDB at http://127.0.0.1:8000`, `DynamoDB in eu-west-1`. */
  readonly description: string;
  /** The embedded store as it is now (its endpoint changes when its server restarts); undefined on DynamoDB. */
  embedded(): EmbeddedStore | undefined;
  /**
   * Makes sure the store can be reached before a cycle: restarts the embedded store's server when it has
   * gone (stopped idle, killed); nothing to do for a configured DynamoDB.
   */
  revive(): Promise<void>;
  /** Keeps the embedded store's server from stopping idle until the returned function is called. */
  keepAlive(): () => void;
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * The command only reads: an embedded store that does not exist yet is not created (the command fails,
   * saying where the store would be).
   */
  readonly readOnly?: boolean;
  /**
   * The command writes what only matters where the monitor reads it (a silence): an embedded store that does
   * not exist yet is not created, and the command is refused, saying how to name the store it meant.
   */
  readonly existingOnly?: boolean;
  /** Aborts opening the store: its table check and creation (`poll`'s deadline). */
  readonly signal?: AbortSignal;
}

/** The embedded store's idle time from `SHIELDWATCH_STORE_IDLE_MS`, when set. */
function storeIdleMs(env: Env): number | undefined {
  const text = env['SHIELDWATCH_STORE_IDLE_MS'];
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0 || value > 2 ** 31 - 1) {
    throw new ConfigError([
      `SHIELDWATCH_STORE_IDLE_MS must be a whole number of milliseconds from 1 to ${2 ** 31 - 1}, got ${JSON.stringify(text)}`,
    ]);
  }
  return value;
}

/** Why a read finds no embedded store here, and where it would be. */
export function noStoreMessage(dir: string): string {
  return (
    `this directory has no embedded store yet: there is none at ${dir} (and none was created). ` +
    'The CLI keeps its history in .shieldwatch/ of the directory it runs in: run this command where `poll` ' +
    'or `run` ran, name a deployed stack (--stack NAME or SHIELDWATCH_STACK), or set AWS settings (AWS_REGION, ' +
    'AWS_ENDPOINT_URL_DYNAMODB, ...) to use a DynamoDB'
  );
}

/**
 * Why a write that must reach the monitor's own store (a silence) is refused here: no store is named and this
 * directory has none, so creating one would write where no monitor reads.
 */
export function noTargetMessage(dir: string): string {
  return (
    `no store is named and this directory has none (${dir}): the write would go to a new local store that no ` +
    'monitor reads, so nothing was written. Name the store the monitor uses: --stack NAME (or ' +
    'SHIELDWATCH_STACK) for a deployed stack, AWS settings (AWS_REGION or AWS_PROFILE, and SHIELDWATCH_TABLE) for ' +
    'its DynamoDB table, or run this where the local monitor keeps its store (where `poll` or `run` ran)'
  );
}

/**
 * A DynamoDB client for the embedded store: asking for the endpoint and the credentials on every request, so it
 * follows the store's server when that restarts (on another port, with another instance key). Both come from
 * the last server that proved it holds the token (see embedded.ts); the token itself is never sent.
 */
function embeddedClient(current: () => EmbeddedStore): DynamoDBClient {
  return new DynamoDBClient({
    region: EMBEDDED_REGION,
    // An expiration inside the SDK's 5-minute refresh window makes it ask again before each request instead
    // of keeping the first server's key for good; the call is cheap (no I/O).
    credentials: async () => {
      const { accessKeyId, secretAccessKey } = current();
      return { accessKeyId, secretAccessKey, expiration: new Date(Date.now() + 60_000) };
    },
    endpoint: async () => ({ url: new URL(current().endpoint) }),
    requestHandler: AWS_HTTP_OPTIONS,
  });
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
 * under `.shieldwatch/` (started if needed). The table is created when missing on the embedded store and on
 * endpoints outside AWS, never on AWS itself (there the stack owns it).
 *
 * @throws Error when `readOnly` or `existingOnly` and this directory has no embedded store.
 */
export async function openStore(env: Env, table: string, options: OpenStoreOptions = {}): Promise<CliStore> {
  let store: CliStore;
  let create: boolean;
  if (hasAwsConfiguration(env)) {
    const endpoint = configuredEndpoint(env, 'dynamodb');
    const where = endpoint ?? `in ${env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'] ?? 'the profile region'}`;
    const stack = env[SETTINGS.stack.env];
    store = {
      client: createDynamoClient(env),
      // With a stack (cli/stack.ts resolved it): `DynamoDB table T (us-east-1, stack Shieldwatch)`.
      description:
        stack === undefined || stack === ''
          ? `DynamoDB ${endpoint === undefined ? where : `at ${where}`}, table ${table}`
          : `DynamoDB table ${table} (${env['AWS_REGION'] ?? ''}${endpoint === undefined ? '' : ` at ${endpoint}`}, stack ${stack})`,
      embedded: () => undefined,
      revive: async () => undefined,
      keepAlive: () => () => undefined,
    };
    create = !isAwsEndpoint(endpoint);
  } else {
    const idleMs = storeIdleMs(env);
    const dir = defaultStoreDir();
    if (options.readOnly === true && !(await embeddedStoreExists(dir))) throw new Error(noStoreMessage(dir));
    if (options.existingOnly === true && !(await embeddedStoreExists(dir)))
      throw new Error(noTargetMessage(dir));
    const ensure = () => ensureEmbeddedStore({ dir, ...(idleMs === undefined ? {} : { idleMs }) });
    let current = await ensure();
    const client = embeddedClient(() => current);
    store = {
      client,
      description: `embedded store (${current.dir}), table ${table}`,
      embedded: () => current,
      revive: async () => {
        current = await ensure();
        // Data that went away with the server (a deleted data dir) gets its table back.
        if (current.started) await storeCall(store, () => ensureTable(client, table));
      },
      keepAlive: () => keepEmbeddedStoreAlive(() => current),
    };
    create = true;
  }
  if (create) {
    try {
      await storeCall(store, () => ensureTable(store.client, table, options.signal));
    } catch (error) {
      store.client.destroy();
      throw error;
    }
  }
  return store;
}
