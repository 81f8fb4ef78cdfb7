/**
 * The digest of one period read from the table (CONTRACT §19): the one listing of incidents, the filter
 * snapshots (and the last one before the period, which holds into it), the silences and window occurrences.
 * Reads only. Shared by `shieldwatch digest` and the stack's digest function, so both report the same figures.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoStore } from '../adapters/dynamo-store.ts';
import { readIncidentListing } from '../adapters/incident-listing.ts';
import { DynamoSilenceStore } from '../adapters/silence-store.ts';
import { buildDigest, type Digest } from '../core/digest/digest.ts';
import type { WindowRequest } from '../core/silences/maintenance-window.ts';

/** The period and what else the reading needs. */
export interface DigestReading {
  /** ISO-8601. */
  readonly since: string;
  readonly until: string;
  /** When the silences are read (their window occurrences around it), epoch ms. */
  readonly nowMs: number;
  /** Windows declared in configuration (the `maintenance` setting), beside the stored ones. */
  readonly windows?: readonly WindowRequest[];
}

/** Reads the period's digest from `table`. */
export async function readDigest(
  client: DynamoDBClient,
  table: string,
  reading: DigestReading,
): Promise<Digest> {
  const { since, until } = reading;
  const silenceStore = new DynamoSilenceStore(client, table, {
    now: () => reading.nowMs,
    ...(reading.windows === undefined ? {} : { windows: reading.windows }),
  });
  const history = new DynamoStore(client, table);
  // The last filter snapshot before the period holds into it (its status until the period's first one).
  const before = new Date(Date.parse(since) - 1).toISOString();
  const [incidents, previous, snapshots, silences] = await Promise.all([
    readIncidentListing(client, table, { since }),
    history.querySnapshots({ kind: 'filter' }, { until: before, limit: 1 }),
    history.querySnapshots({ kind: 'filter' }, { since, until }),
    silenceStore.list(),
  ]);
  return buildDigest({ incidents, snapshots: [...previous, ...snapshots], silences, since, until });
}
