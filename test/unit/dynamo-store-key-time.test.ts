/**
 * `keyTime`: the time bounds of a history Query (snapshots, events) written as the sort keys write times, so an
 * ISO-8601 bound without milliseconds (the digest function's period, `2026-11-30T00:00:00Z`) or with an offset
 * compares as the time it is. Before, the lower bound `...00Z` sorted after the key `...00.000Z#...` ('Z' after
 * '.'), and the snapshot and events written at the period's very start were left out of the stack's digest.
 */
import { describe, expect, it } from 'vitest';
import { keyTime } from '../../lambda/adapters/dynamo-store.ts';

describe('keyTime', () => {
  it.each([
    ['2026-11-30T00:00:00Z', '2026-11-30T00:00:00.000Z'],
    ['2026-11-30T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ['2026-11-30T01:00:00+01:00', '2026-11-30T00:00:00.000Z'],
    ['2026-11-30T00:00:00.5Z', '2026-11-30T00:00:00.500Z'],
    // A date alone or a prefix is no time of day: kept, as the bound it was.
    ['2026-11-30', '2026-11-30'],
    ['9999', '9999'],
    ['2026-11-30Tnonsense', '2026-11-30Tnonsense'],
  ])('%s → %s', (bound, key) => {
    expect(keyTime(bound)).toBe(key);
  });

  it('a bound without milliseconds takes in the key written at that very time, and keeps out the one before', () => {
    const written = (iso: string) => `${new Date(iso).toISOString()}#filter`;
    const lo = keyTime('2026-11-30T00:00:00Z');
    expect(written('2026-11-30T00:00:00Z') >= lo).toBe(true);
    expect(written('2026-11-29T23:59:59.999Z') >= lo).toBe(false);
    // As the raw bound compared, the one at that very time was out.
    expect(written('2026-11-30T00:00:00Z') >= '2026-11-30T00:00:00Z').toBe(false);
  });
});
