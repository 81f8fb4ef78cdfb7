import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSlotClaims } from '../../lambda/adapters/slot-claims.ts';
import { planSlots } from '../../lambda/core/poll-slots.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startDynamo();
});
afterAll(async () => {
  await dynamo.close();
});

describe('slot claims in the table (dynalite)', () => {
  it('of two invocations of the same minute racing for each slot, exactly one gets it; shards claim apart', async () => {
    const T = Date.parse('2026-11-27T10:00:00.000Z');
    const slots = planSlots({ scheduledMs: T, nowMs: T, everyMs: 10_000, endByMs: T + 67_000 });
    const a = new DynamoSlotClaims(dynamo.client, dynamo.table, 0, 'a');
    const b = new DynamoSlotClaims(dynamo.client, dynamo.table, 0, 'b');
    const other = new DynamoSlotClaims(dynamo.client, dynamo.table, 1, 'c');
    for (const slot of slots) {
      const [x, y, z] = await Promise.all([a.claim(slot), b.claim(slot), other.claim(slot)]);
      expect([x, y].filter(Boolean)).toHaveLength(1);
      expect(z).toBe(true);
    }
    // An earlier slot, claimed again late (a retried invocation), is refused.
    expect(await a.claim(slots[2]!)).toBe(false);
  });
});
