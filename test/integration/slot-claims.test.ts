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
      expect([x.claimed, y.claimed].filter(Boolean)).toHaveLength(1);
      expect(z.claimed).toBe(true);
    }
    // An earlier slot, claimed again late (a retried invocation), is refused.
    expect((await a.claim(slots[2]!)).claimed).toBe(false);
  });

  it('keeps a slow-down asked for by the API with the claims: the next claim of the shard tells it', async () => {
    const T = Date.parse('2026-11-27T11:00:00.000Z');
    const [first, second] = planSlots({ scheduledMs: T, nowMs: T, everyMs: 10_000, endByMs: T + 67_000 });
    const a = new DynamoSlotClaims(dynamo.client, dynamo.table, 5, 'a');
    expect(await a.claim(first!)).toEqual({ claimed: true });
    await a.slowDown(T + 300_000);
    await a.slowDown(T + 100_000);
    const b = new DynamoSlotClaims(dynamo.client, dynamo.table, 5, 'b');
    expect(await b.claim(second!)).toEqual({ claimed: true, slowUntilMs: T + 300_000 });
  });
});
