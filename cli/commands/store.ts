import path from 'node:path';
import { configuredEndpoint } from '../../lambda/adapters/aws-clients.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { defineCommand, formatOption } from '../args.ts';
import { type CliIo, println } from '../io.ts';
import {
  defaultStoreDir,
  EMBEDDED_REGION,
  embeddedStoreExists,
  ensureEmbeddedStore,
} from '../store/embedded.ts';
import { hasAwsConfiguration, noStoreMessage } from '../store/open.ts';

/** Where the store is and how to reach it, as `store --format json` prints it. */
export interface StoreInfo {
  /** `embedded` (dynalite under `.shieldwatch/`) or `dynamodb` (the configured one). */
  readonly kind: 'embedded' | 'dynamodb';
  readonly table: string;
  /** The endpoint, when not AWS's own. */
  readonly endpoint?: string;
  readonly region?: string;
  /**
   * Embedded store: its directory, server pid, idle time and the credentials of its current server (made from
   * its token, never the token itself; they change when the server restarts).
   */
  readonly dir?: string;
  readonly pid?: number;
  readonly idleMs?: number;
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  /** An `aws dynamodb query` for the newest 20 filter snapshots of the last 24 h, ready to run. */
  readonly awsCommand: string;
}

/** Quotes a word for a POSIX shell when it needs it. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The `aws dynamodb query` of docs/design/storage.md (newest 20 filter snapshots since a date) for this store: endpoint, region
 * and credentials in front when the store needs them, so it runs as printed.
 */
export function awsQueryCommand(options: {
  readonly table: string;
  readonly since: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}): string {
  const prefix = [
    ...(options.credentials === undefined
      ? []
      : [
          `AWS_ACCESS_KEY_ID=${shellWord(options.credentials.accessKeyId)}`,
          `AWS_SECRET_ACCESS_KEY=${shellWord(options.credentials.secretAccessKey)}`,
          // AWS CLI v2 pages its output through `less` by default.
          'AWS_PAGER=',
        ]),
    'aws dynamodb query',
    ...(options.endpoint === undefined ? [] : [`--endpoint-url ${shellWord(options.endpoint)}`]),
    ...(options.region === undefined ? [] : [`--region ${shellWord(options.region)}`]),
  ].join(' ');
  const values = `{":pk": {"S": "filter"}, ":since": {"S": ${JSON.stringify(options.since)}}}`;
  return [
    `${prefix} --table-name ${shellWord(options.table)}`,
    `  --key-condition-expression 'pk = :pk AND sk >= :since'`,
    `  --expression-attribute-values ${shellWord(values)}`,
    '  --no-scan-index-forward --max-items 20',
  ].join(' \\\n');
}

function render(info: StoreInfo): string {
  if (info.kind === 'dynamodb') {
    return [
      `store:     DynamoDB ${info.endpoint === undefined ? `in ${info.region ?? 'the profile region'}` : `at ${info.endpoint}`} (AWS settings are present)`,
      `table:     ${info.table}`,
      'access:    your AWS credentials (environment, profile)',
      '',
      'The newest 20 filter snapshots of the last 24 h with the AWS CLI:',
      info.awsCommand,
    ].join('\n');
  }
  const dir = info.dir ?? '';
  return [
    `store:     embedded DynamoDB (dynalite) in ${dir}`,
    `endpoint:  ${info.endpoint} (server pid ${info.pid}; it stops after ${Math.round((info.idleMs ?? 0) / 1000)} s without requests and comes back on the same port when it is free)`,
    `table:     ${info.table}`,
    `access:    region ${info.region}, the access key id and secret key of this server (made from ${path.join(dir, 'token')}; they change when it restarts: run this again)`,
    `log:       ${path.join(dir, 'store.log')}`,
    '',
    'The newest 20 filter snapshots of the last 24 h with the AWS CLI (`shieldwatch store --aws` prints only this):',
    info.awsCommand,
  ].join('\n');
}

export const storeCommand = defineCommand({
  name: 'store',
  description: [
    'Prints where this directory keeps its history and how to reach it: for the embedded store',
    '(.shieldwatch/ here, used when no AWS setting is present) its directory, endpoint, table and',
    'credentials (those of its current server, made from its token; they change when it restarts);',
    "otherwise the configured DynamoDB. Starts the embedded store's server when it is not running, so",
    'the endpoint answers; never creates a store.',
  ].join('\n'),
  options: {
    aws: {
      type: 'boolean',
      description:
        'print only an `aws dynamodb query` for the newest 20 filter snapshots of the last 24 h, with endpoint, region and credentials, ready to run',
    },
    format: formatOption('the output'),
  },
  examples: ['store', 'store --aws', 'store --format json'],
  notes: 'Exit codes: 0 shown; 1 this directory has no embedded store yet (it says where it would be).',
  async run(values, io: CliIo) {
    const format = values.format;
    const { table } = loadStoreConfig(io.env);
    const since = new Date(io.now() - 86_400_000).toISOString();
    let info: StoreInfo;
    if (hasAwsConfiguration(io.env)) {
      const endpoint = configuredEndpoint(io.env, 'dynamodb');
      const region = io.env['AWS_REGION'] ?? io.env['AWS_DEFAULT_REGION'];
      info = {
        kind: 'dynamodb',
        table,
        ...(endpoint === undefined ? {} : { endpoint }),
        ...(region === undefined ? {} : { region }),
        awsCommand: awsQueryCommand({
          table,
          since,
          ...(endpoint === undefined ? {} : { endpoint }),
          ...(region === undefined ? {} : { region }),
        }),
      };
    } else {
      const dir = defaultStoreDir();
      if (!(await embeddedStoreExists(dir))) {
        println(io.stderr, `shieldwatch store: ${noStoreMessage(dir)}`);
        return 1;
      }
      const store = await ensureEmbeddedStore({ dir });
      info = {
        kind: 'embedded',
        table,
        endpoint: store.endpoint,
        region: EMBEDDED_REGION,
        dir: store.dir,
        pid: store.pid,
        idleMs: store.idleMs,
        accessKeyId: store.accessKeyId,
        secretAccessKey: store.secretAccessKey,
        awsCommand: awsQueryCommand({
          table,
          since,
          endpoint: store.endpoint,
          region: EMBEDDED_REGION,
          credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
        }),
      };
    }
    if (values.aws) println(io.stdout, info.awsCommand);
    else println(io.stdout, format === 'json' ? JSON.stringify(info, null, 2) : render(info));
    return 0;
  },
});
