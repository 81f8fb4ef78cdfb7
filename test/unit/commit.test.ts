import { describe, expect, it } from 'vitest';
import { COMMIT_ATTEMPTS, commitJudged, type Judgement } from '../../lambda/commit.ts';
import { fullJitterMs } from '../../lambda/core/backoff.ts';
import { StoreError } from '../../lambda/errors.ts';
import type { StateStore, VersionedState } from '../../lambda/ports.ts';

/** A store whose item another cycle writes `racing` times before each of this cycle's commits goes through. */
function racingStore(racing: number, fail?: 'commit' | 'load') {
  let version = 1;
  let lost = 0;
  const writes: Array<{ state: number; expected: number }> = [];
  const store = {
    load: async (): Promise<VersionedState<number>> => {
      if (fail === 'load') throw new Error('throttled');
      return { state: version * 10, version, outbox: [] };
    },
    commit: async (state: number, expected: number) => {
      if (fail === 'commit') throw new Error('throttled');
      if (lost < racing) {
        lost++;
        version++;
        return false;
      }
      writes.push({ state, expected });
      version++;
      return true;
    },
  } as unknown as StateStore<number>;
  return { store, writes };
}

const FIRST: VersionedState<number> = { state: 10, version: 1, outbox: [] };
const CLAIM = { claimant: 'c1', untilMs: 1 };
const plusOne = (loaded: VersionedState<number>): Judgement<number> => ({
  stale: false,
  state: loaded.state + 1,
  alerts: [],
});

describe('commitJudged: one optimistic commit for every state item', () => {
  it.each([
    { racing: 0, judged: [10], written: { state: 11, expected: 1 } },
    { racing: 1, judged: [10, 20], written: { state: 21, expected: 2 } },
    { racing: 3, judged: [10, 20, 30, 40], written: { state: 41, expected: 4 } },
  ])('judges again on the newer item after $racing lost race(s)', async ({ racing, judged, written }) => {
    // Prepare
    const { store, writes } = racingStore(racing);
    const seen: number[] = [];
    // Act
    const done = await commitJudged(store, 'the item', FIRST, CLAIM, (loaded) => {
      seen.push(loaded.state);
      return plusOne(loaded);
    });
    // Assess
    expect(seen).toEqual(judged);
    expect(writes).toEqual([written]);
    expect(done).toMatchObject({ stale: false, state: written.state, loaded: { version: written.expected } });
  });

  it('a stale judgement writes nothing and keeps the item as read', async () => {
    const { store, writes } = racingStore(0);
    const done = await commitJudged(store, 'the item', FIRST, CLAIM, () => ({ stale: true }));
    expect(writes).toEqual([]);
    expect(done).toEqual({ loaded: FIRST, queued: [], stale: true, state: 10 });
  });

  it.each([
    {
      racing: COMMIT_ATTEMPTS,
      fail: undefined,
      message: `the item kept changing under this cycle (${COMMIT_ATTEMPTS} attempts)`,
    },
    { racing: 0, fail: 'commit' as const, message: 'cannot write the item: Error: throttled' },
    { racing: 1, fail: 'load' as const, message: 'cannot read the item: Error: throttled' },
  ])('gives up with a StoreError naming the item: $message', async ({ racing, fail, message }) => {
    const { store } = racingStore(racing, fail);
    const judging = commitJudged(store, 'the item', FIRST, CLAIM, plusOne);
    await expect(judging).rejects.toBeInstanceOf(StoreError);
    await expect(judging).rejects.toThrow(message);
  });
});

describe('fullJitterMs: one backoff formula', () => {
  it.each([
    { attempt: 1, base: 50, cap: 1000, random: 0.5, wait: 50 },
    { attempt: 4, base: 50, cap: 1000, random: 0.5, wait: 400 },
    { attempt: 10, base: 50, cap: 1000, random: 0.5, wait: 500 },
    { attempt: 10, base: 50, cap: 2000, random: 0.999, wait: 1998 },
    { attempt: 0, base: 200, cap: 5000, random: 0, wait: 0 },
  ])('attempt $attempt, base $base, cap $cap: $wait ms', ({ attempt, base, cap, random, wait }) => {
    expect(fullJitterMs(attempt, base, cap, () => random)).toBe(wait);
  });
});
