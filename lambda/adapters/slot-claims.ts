/**
 * The poll slots' claims (CONTRACT §18; `core/poll-slots.ts`): one item per shard, pk `state`, sk
 * `slot#<shard>`, holding the start of the latest slot claimed and who claimed it. A claim is one conditional
 * write that succeeds only for a later slot than the one recorded, so of two invocations for the same minute
 * (EventBridge delivers at least once) each slot runs in one. A TTL drops the item a day after its shard last
 * polled.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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

  /**
   * Claims `slot` for this invocation: `claimed` when it is ours, false when this or a later slot was claimed;
   * with it, until when the shard polls slowly (the API asked it to: {@link slowDown}), when it does.
   */
  async claim(
    slot: Slot,
    signal?: AbortSignal,
  ): Promise<{ readonly claimed: boolean; readonly slowUntilMs?: number }> {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: KEY.state, sk: slotSortKey(this.shard) },
          UpdateExpression: 'SET #slot = :slot, #owner = :owner, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#slot) OR #slot < :slot',
          ExpressionAttributeNames: { '#slot': 'slot', '#owner': 'owner', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':slot': slot.startMs,
            ':owner': this.owner,
            ':ttl': Math.floor((slot.startMs + KEPT_AFTER_MS) / 1000),
          },
          ReturnValues: 'ALL_NEW',
        }),
        signal === undefined ? undefined : { abortSignal: signal },
      );
      const slow = out.Attributes?.['slowUntil'];
      return typeof slow === 'number' && Number.isFinite(slow)
        ? { claimed: true, slowUntilMs: slow }
        : { claimed: true };
    } catch (error) {
      if (isConditionFailure(error)) return { claimed: false };
      throw error;
    }
  }

  /** Records that the shard polls slowly until `untilMs` (a later time already recorded stands). */
  async slowDown(untilMs: number, signal?: AbortSignal): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: KEY.state, sk: slotSortKey(this.shard) },
          UpdateExpression: 'SET slowUntil = :until',
          ConditionExpression: 'attribute_not_exists(slowUntil) OR slowUntil < :until',
          ExpressionAttributeValues: { ':until': untilMs },
        }),
        signal === undefined ? undefined : { abortSignal: signal },
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
