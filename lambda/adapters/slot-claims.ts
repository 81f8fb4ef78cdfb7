/**
 * The poll slots' claims (CONTRACT §18; `core/poll-slots.ts`): one item per shard, pk `state`, sk
 * `slot#<shard>`, holding the start of the latest slot claimed and who claimed it. A claim is one conditional
 * write that succeeds only for a later slot than the one recorded, so of two invocations for the same minute
 * (EventBridge delivers at least once) each slot runs in one. A TTL drops the item a day after its shard last
 * polled.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Slot } from '../core/poll-slots.ts';
import { isConditionFailure } from './scope-store.ts';
import { KEY, TTL_ATTRIBUTE } from './table-schema.ts';

const KEPT_AFTER_MS = 86_400_000;

/** The sort key of a shard's slot claims under pk `state`. */
export const slotSortKey = (shard: number): string => `slot#${shard}`;

/** Claims of one shard's slots in one table. */
export class DynamoSlotClaims {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
    private readonly shard: number,
    private readonly owner: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client);
  }

  /** Claims `slot` for this invocation: true when it is ours, false when this or a later slot was claimed. */
  async claim(slot: Slot, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: KEY.state,
            sk: slotSortKey(this.shard),
            slot: slot.startMs,
            owner: this.owner,
            [TTL_ATTRIBUTE]: Math.floor((slot.startMs + KEPT_AFTER_MS) / 1000),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR #slot < :slot',
          ExpressionAttributeNames: { '#slot': 'slot' },
          ExpressionAttributeValues: { ':slot': slot.startMs },
        }),
        signal === undefined ? undefined : { abortSignal: signal },
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
