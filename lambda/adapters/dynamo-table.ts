import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './table-schema.ts';

/**
 * Creates the table (on-demand, `pk`/`sk`, TTL on `expiresAt`) if it does not exist, and waits until it is
 * active. For local endpoints and the embedded store only: on AWS the stack owns the table. `signal` aborts
 * every request (and the wait).
 */
export async function ensureTable(
  client: DynamoDBClient,
  table: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const http = signal === undefined ? undefined : { abortSignal: signal };
  try {
    await client.send(new DescribeTableCommand({ TableName: table }), http);
    return false;
  } catch (error) {
    if (
      !(error instanceof ResourceNotFoundException || (error as Error).name === 'ResourceNotFoundException')
    ) {
      throw error;
    }
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: PARTITION_KEY, AttributeType: 'S' },
          { AttributeName: SORT_KEY, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
          { AttributeName: SORT_KEY, KeyType: 'RANGE' },
        ],
      }),
      http,
    );
  } catch (error) {
    // Another process created it at the same moment.
    if ((error as Error).name !== 'ResourceInUseException') throw error;
  }
  for (let i = 0; i < 100; i++) {
    signal?.throwIfAborted();
    const out = await client.send(new DescribeTableCommand({ TableName: table }), http);
    if (out.Table?.TableStatus === 'ACTIVE') break;
    await sleep(100);
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: table,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
      http,
    );
  } catch {
    // dynalite has no UpdateTimeToLive; local stores do not expire items, which is harmless.
  }
  return true;
}
