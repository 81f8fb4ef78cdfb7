/**
 * The status page publisher's Lambda entry (docs/status-page.md): on each scheduled run, reads the table and
 * rewrites the page in its bucket. Its own function, bundle and schedule: it never runs inside, nor adds to,
 * the poller.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Logger } from '@aws-lambda-powertools/logger';
import type { S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { createDynamoClient } from './adapters/aws-clients.ts';
import { createSecretsClient } from './adapters/secrets-client.ts';
import { SERVICE_NAME } from './metric-names.ts';
import { readReportAssets } from './report/build.ts';
import type { ReportAssets } from './report/html.ts';
import { publishStatusPage } from './status-page/publish.ts';
import {
  BUNDLED_ASSETS_FILE,
  loadPublisherConfig,
  type PublisherConfig,
} from './status-page/publisher-env.ts';
import { createS3Client } from './status-page/s3-client.ts';

const NO_ASSETS: ReportAssets = { uplotJs: '', uplotCss: '', pageJs: '', pageCss: '', versions: '' };

const logger = new Logger({ serviceName: `${SERVICE_NAME}-status-page` });

/** The report's assets: bundled beside the handler when deployed, read from the project otherwise. */
export function loadAssets(moduleUrl: string = import.meta.url): ReportAssets {
  const bundled = new URL(`./${BUNDLED_ASSETS_FILE}`, moduleUrl);
  return existsSync(bundled)
    ? (JSON.parse(readFileSync(bundled, 'utf8')) as ReportAssets)
    : readReportAssets();
}

/**
 * The public id key from its secret (`public-id.ts`): read once per cold start. The SDK's error names the secret
 * and the failure, never a value.
 */
export async function readPublicIdKey(env: NodeJS.ProcessEnv, secretId: string): Promise<string> {
  const secrets = createSecretsClient(env);
  try {
    const out = await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
    const key = out.SecretString ?? '';
    if (key === '') throw new Error('the public id secret has no value');
    return key;
  } finally {
    secrets.destroy();
  }
}

let parts:
  | {
      config: PublisherConfig;
      dynamo: ReturnType<typeof createDynamoClient>;
      s3: S3Client;
      assets: ReportAssets;
      publicIdKey?: string;
    }
  | undefined;

/** One publish. Throws (the run fails and is logged) when the table or the bucket cannot be used. */
export async function handler(): Promise<{ written: string[] }> {
  const env = process.env;
  if (parts === undefined) {
    const config = loadPublisherConfig(env);
    const publicIdKey =
      config.mode === 'public' && config.idSecret !== undefined
        ? await readPublicIdKey(env, config.idSecret)
        : undefined;
    parts = {
      config,
      dynamo: createDynamoClient(env),
      s3: createS3Client(env),
      // The public page has no report, hence no chart library.
      assets: config.mode === 'private' ? loadAssets() : NO_ASSETS,
      ...(publicIdKey === undefined ? {} : { publicIdKey }),
    };
  }
  const { config, dynamo, s3, assets, publicIdKey } = parts;
  const started = Date.now();
  const result = await publishStatusPage(dynamo, s3, {
    table: config.table,
    bucket: config.bucket,
    mode: config.mode,
    networks: config.networks,
    assets,
    everySeconds: config.everySeconds,
    nowMs: started,
    ...(publicIdKey === undefined ? {} : { publicIdKey }),
    ...(config.url === undefined ? {} : { url: config.url }),
    ...(config.expected === undefined ? {} : { expected: config.expected }),
    ...(config.rules === undefined ? {} : { rules: config.rules }),
    ...(config.figureFields === undefined ? {} : { figureFields: config.figureFields }),
    ...(config.maintenance === undefined ? {} : { maintenance: config.maintenance }),
  });
  logger.info('status page published', {
    mode: config.mode,
    written: result.written,
    removed: result.removed,
    openIncidents: result.document.openIncidents.length,
    lastCycleAt: result.document.lastCycleAt,
    ms: Date.now() - started,
    heapUsedMb: Math.round(process.memoryUsage().heapUsed / 1048576),
  });
  return { written: result.written.map((w) => w.key) };
}
