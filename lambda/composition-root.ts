/**
 * The composition root of the poll cycle: where its adapters are built, once per process, and handed to it by
 * role, for the Lambda entry (handler.ts) and the CLI (cli/monitor.ts) alike.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import { AckKeyReader } from './adapters/ack-keys.ts';
import { ackLinkPublisher } from './adapters/ack-link-publisher.ts';
import { createApiKeyProvider } from './adapters/api-key.ts';
import { DynamoStore } from './adapters/dynamo-store.ts';
import { maintenanceNoticeStore } from './adapters/maintenance-item.ts';
import { ProtectionApiClient } from './adapters/protection-api.ts';
import { DynamoSilenceStore } from './adapters/silence-store.ts';
import { SnsAlertPublisher } from './adapters/sns-publisher.ts';
import type { MonitorConfig } from './config.ts';
import type { CycleDeps, CycleLog, CycleMetrics, CycleSettings } from './cycle.ts';
import type { IncidentSettings } from './judges/incidents.ts';
import { PublishedAlerts } from './outbox.ts';
import type { AlertPublisher, ApiKeyProvider } from './ports.ts';
import { SETTINGS } from './settings.ts';

/** The adapters of one monitor process, built once (per Lambda cold start, per CLI run). */
export interface Monitor {
  readonly deps: CycleDeps;
  readonly settings: CycleSettings;
  /** The table behind every store role of `deps`, for what reads across them (the CLI, tests). */
  readonly store: DynamoStore;
  readonly api: ProtectionApiClient;
  readonly keys: ApiKeyProvider;
  /** Closes the API connections. */
  close(): Promise<void>;
}

/** What the entry point hands in: clients it built, and where alerts and logs go. */
export interface MonitorParts {
  readonly config: MonitorConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly dynamo: DynamoDBClient;
  readonly log: CycleLog;
  /** Needed when `config.topicArn` is set, unless `publisher` is given. */
  readonly sns?: SNSClient;
  /** Needed when the key is in Secrets Manager, and for the acknowledge link's signing key (`config.ackLink`). */
  readonly secrets?: SecretsManagerClient;
  /** Where alerts go when no topic is configured. */
  readonly fallbackPublisher: AlertPublisher;
  readonly metrics?: CycleMetrics;
  readonly now?: () => number;
}

/** The API client for a configuration, with its key from `keys`. */
export function createApiClient(config: MonitorConfig, keys: ApiKeyProvider): ProtectionApiClient {
  return new ProtectionApiClient({
    baseUrl: config.apiUrl,
    apiKey: () => keys.get(),
    timeoutMs: config.timeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    concurrency: config.concurrency,
    retries: config.retries,
  });
}

/** The signing key of the acknowledge links, read once per {@link AckKeyReader}'s cache period. */
function linkKeys(secrets: SecretsManagerClient, secretId: string, now: () => number) {
  const reader = new AckKeyReader(secrets, secretId, now);
  return () => reader.signing();
}

/** Wires the adapters for a configuration: the one composition root of the Lambda and the CLI. */
export function buildMonitor(parts: MonitorParts): Monitor {
  const { config } = parts;
  const keys = createApiKeyProvider(config.apiKey, parts.env, parts.secrets);
  const api = createApiClient(config, keys);
  // One table holds every store role; each is handed to the cycle by its own adapter.
  const table = new DynamoStore(parts.dynamo, config.table);
  if (config.topicArn !== undefined && parts.sns === undefined) {
    throw new Error(`an SNS client is needed when ${SETTINGS.topicArn.env} is set`);
  }
  const sent =
    config.topicArn !== undefined && parts.sns !== undefined
      ? new SnsAlertPublisher(parts.sns, config.topicArn)
      : parts.fallbackPublisher;
  if (config.ackLink !== undefined && parts.secrets === undefined) {
    throw new Error(`a Secrets Manager client is needed when ${SETTINGS.ackSecret.env} is set`);
  }
  // Deployed: the alerts that open or remind of an incident carry the acknowledge link (docs/acknowledge.md).
  const publisher =
    config.ackLink !== undefined && parts.secrets !== undefined
      ? ackLinkPublisher(sent, {
          url: config.ackLink.url,
          signingKey: linkKeys(parts.secrets, config.ackLink.secretId, parts.now ?? Date.now),
          now: parts.now ?? Date.now,
          log: parts.log,
        })
      : sent;
  const deps: CycleDeps = {
    api,
    snapshots: table.snapshots,
    state: table.monitorState,
    publisher,
    keys,
    log: parts.log,
    ...(parts.metrics === undefined ? {} : { metrics: parts.metrics }),
    now: parts.now ?? Date.now,
    newId: randomUUID,
    published: new PublishedAlerts(),
    ruleState: table.ruleState,
    networkHealth: table.networkHealth,
    incidents: table.incidents,
    maintenance: maintenanceNoticeStore(parts.dynamo, config.table),
    silences: new DynamoSilenceStore(parts.dynamo, config.table, {
      now: parts.now ?? Date.now,
      ...(config.maintenance === undefined ? {} : { windows: config.maintenance }),
    }),
  };
  // The incidents judge reads the escalation schedule from the cycle's settings (judges/incidents.ts).
  const settings: CycleSettings & Pick<IncidentSettings, 'escalateAfterMs'> = {
    networks: config.networks,
    pollFilter: true,
    ...(config.statusPath === undefined ? {} : { statusPath: config.statusPath }),
    retentionDays: config.retentionDays,
    alertAfter: config.alertAfter,
    confirmations: config.confirmations,
    ...(config.expectedStatus === undefined ? {} : { expectedStatus: config.expectedStatus }),
    ...(config.remindEveryMs === undefined ? {} : { remindEveryMs: config.remindEveryMs }),
    monitorName: config.monitorName,
    apiUrl: config.apiUrl,
    figureFields: config.figureFields,
    rules: config.rules,
    groupBy: config.groupBy,
    groupIntervalMs: config.groupIntervalMs,
    ...(config.escalateAfterMs === undefined ? {} : { escalateAfterMs: config.escalateAfterMs }),
  };
  return { deps, settings, store: table, api, keys, close: () => api.close() };
}
