/**
 * One target's stored snapshots read page by page, oldest first, so that a reader of a long history holds one
 * page at a time (`shieldwatch backtest`). Reads only.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Snapshot, Target } from '../core/types.ts';
import { fromSnapshotItem } from './dynamo-items.ts';
import { targetKey } from './table-schema.ts';

/** Options of {@link snapshotPages}. */
export interface SnapshotPagesOptions {
  /** Inclusive lower bound, ISO-8601. */
  readonly since?: string;
  /** Inclusive upper bound, ISO-8601. */
  readonly until?: string;
  /** Items per page. @default 100 */
  readonly pageSize?: number;
  /**
   * Only these item attributes (e.g. `at`, `cycleId`, `ok`, `body`); the rest of each snapshot is absent.
   * @default every attribute
   */
  readonly attributes?: readonly string[];
  /** Called after each page read, with the number of snapshots in it (for progress across readers). */
  readonly onPage?: (snapshotsInPage: number) => void;
}

/** The snapshots of `target` in the window, oldest first, one page (one Query) at a time. */
export async function* snapshotPages(
  client: DynamoDBClient,
  table: string,
  target: Target,
  options: SnapshotPagesOptions = {},
): AsyncGenerator<Snapshot[]> {
  const doc = DynamoDBDocumentClient.from(client);
  const names = Object.fromEntries((options.attributes ?? []).map((name, i) => [`#a${i}`, name]));
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: {
          ':pk': targetKey(target),
          ':lo': options.since ?? '0',
          // '~' sorts after every character of an ISO timestamp and '#', so `until` is inclusive.
          ':hi': `${options.until ?? '9999'}~`,
        },
        ...(options.attributes === undefined
          ? {}
          : { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names }),
        ScanIndexForward: true,
        Limit: options.pageSize ?? 100,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    const items = (out.Items ?? []) as Record<string, unknown>[];
    options.onPage?.(items.length);
    // A projected item lacks kind and networkId: the target is the one asked for.
    if (items.length > 0) yield items.map((item) => ({ ...fromSnapshotItem(item), target }));
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined);
}
