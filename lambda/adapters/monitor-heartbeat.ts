/**
 * The live monitor's heartbeat in the monitor's table (lambda/core/live-monitor.ts): one item, pk `state`, sk
 * `heartbeat`, written by every cycle of a `run` and of the deployed function, removed by a `run` that stops.
 * It holds when the last cycle started, the interval, who wrote it and the settings' fingerprint (keyed hashes,
 * never a value); a TTL lets DynamoDB drop it a day after its monitor stopped writing.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { MonitorConfig } from '../config.ts';
import {
  FINGERPRINTED,
  type FingerprintedSetting,
  fingerprinter,
  type Heartbeat,
  type HeartbeatOwner,
  newSalt,
} from '../core/live-monitor.ts';
import type { ApiKeyProvider } from '../ports.ts';
import { isConditionFailure } from './scope-store.ts';
import { KEY, TTL_ATTRIBUTE } from './table-schema.ts';

/** The heartbeat's sort key under pk `state`. */
export const HEARTBEAT_SORT_KEY = 'heartbeat';

const KEPT_AFTER_MS = 86_400_000;

/** The heartbeat item of one table. */
export class DynamoHeartbeatStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }

  private readonly key = { pk: KEY.state, sk: HEARTBEAT_SORT_KEY };

  /** The heartbeat, strongly consistent; undefined when there is none or it is not well formed. */
  async read(signal?: AbortSignal): Promise<Heartbeat | undefined> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: this.key, ConsistentRead: true }),
      signal === undefined ? undefined : { abortSignal: signal },
    );
    return out.Item === undefined ? undefined : toHeartbeat(out.Item);
  }

  /** Records this monitor's heartbeat (the last writer's stands). */
  async write(heartbeat: Heartbeat, signal?: AbortSignal): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...this.key,
          ...heartbeat,
          [TTL_ATTRIBUTE]: Math.floor((Date.parse(heartbeat.at) + KEPT_AFTER_MS) / 1000),
        },
      }),
      signal === undefined ? undefined : { abortSignal: signal },
    );
  }

  /** Removes the heartbeat if `ownerId` wrote it last (a `run` that stops); true when it did. */
  async clear(ownerId: string): Promise<boolean> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: this.key,
          ConditionExpression: '#owner.#id = :id',
          ExpressionAttributeNames: { '#owner': 'owner', '#id': 'id' },
          ExpressionAttributeValues: { ':id': ownerId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

function toHeartbeat(item: Record<string, unknown>): Heartbeat | undefined {
  const { at, everyMs, owner, fingerprint } = item as Partial<Record<string, unknown>>;
  if (typeof at !== 'string' || typeof everyMs !== 'number' || !Number.isFinite(everyMs)) return undefined;
  if (typeof owner !== 'object' || owner === null) return undefined;
  const o = owner as Partial<Record<string, unknown>>;
  if (typeof o['id'] !== 'string' || (o['kind'] !== 'run' && o['kind'] !== 'lambda')) return undefined;
  if (typeof fingerprint !== 'object' || fingerprint === null) return undefined;
  const f = fingerprint as Partial<Record<string, unknown>>;
  const digests = f['digests'];
  if (typeof f['salt'] !== 'string' || typeof digests !== 'object' || digests === null) return undefined;
  const read = digests as Partial<Record<string, unknown>>;
  const known = Object.fromEntries(
    FINGERPRINTED.map((name) => [name, typeof read[name] === 'string' ? read[name] : '']),
  ) as Record<FingerprintedSetting, string>;
  const heartbeatOwner: HeartbeatOwner = {
    id: o['id'],
    kind: o['kind'],
    description: typeof o['description'] === 'string' ? o['description'] : o['kind'],
    ...(typeof o['host'] === 'string' ? { host: o['host'] } : {}),
    ...(typeof o['pid'] === 'number' ? { pid: o['pid'] } : {}),
  };
  return { at, everyMs, owner: heartbeatOwner, fingerprint: { salt: f['salt'], digests: known } };
}

/**
 * The deployed function's heartbeat: written each invocation (every shard alike: they share one
 * configuration), never checked against (the deployment's settings are the monitor's; a redeploy changes
 * them). `everyMs` is the schedule's interval.
 */
export function lambdaHeartbeat(parts: {
  readonly client: DynamoDBClient;
  readonly config: MonitorConfig;
  readonly keys: ApiKeyProvider;
  readonly everyMs: number;
  readonly functionName?: string;
  readonly now: () => number;
}): (signal?: AbortSignal) => Promise<void> {
  const store = new DynamoHeartbeatStore(parts.client, parts.config.table);
  const fingerprint = fingerprinter(parts.config);
  const salt = newSalt();
  const owner: HeartbeatOwner = {
    id: randomUUID(),
    kind: 'lambda',
    description: `the deployed schedule (function ${parts.functionName ?? '?'}, every ${parts.everyMs / 1000}s)`,
  };
  return async (signal) => {
    const at = new Date(parts.now()).toISOString();
    await store.write(
      { at, everyMs: parts.everyMs, owner, fingerprint: await fingerprint(await parts.keys.get(), salt) },
      signal,
    );
  };
}
