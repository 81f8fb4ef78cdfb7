import { describe, expect, it } from 'vitest';
import {
  fittingShardSize,
  MAX_SCHEDULE_INPUT_CHARS,
  planShards,
  scheduledEvent,
  scheduleInputChars,
  templateInputChars,
} from '../../lib/shards.ts';

const ids = (n: number, prefix = 'n') => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

describe('planShards', () => {
  it.each([
    ['no networks, no shardSize', [], undefined, [[]]],
    ['no networks, shardSize 3', [], 3, [[]]],
    ['networks, no shardSize', ids(5), undefined, [ids(5)]],
    ['fewer networks than a shard', ids(2), 3, [ids(2)]],
    ['exactly one shard', ids(3), 3, [ids(3)]],
    ['an exact multiple', ids(6), 3, [ids(3), ['n4', 'n5', 'n6']]],
    ['a remainder', ids(7), 3, [ids(3), ['n4', 'n5', 'n6'], ['n7']]],
    ['shardSize 1', ids(3), 1, [['n1'], ['n2'], ['n3']]],
  ])('splits %s', (_name, networks: string[], shardSize: number | undefined, slices: string[][]) => {
    // Act
    const shards = planShards(networks, shardSize);

    // Assess
    expect(shards).toEqual(
      slices.map((slice, index) => ({
        index,
        networks: slice,
        pollFilter: index === 0,
        count: slices.length,
      })),
    );
  });

  it.each([
    [5000, 100, 50, 100],
    [5000, 300, 17, 200],
    [5000, 5000, 1, 5000],
    [5001, 1000, 6, 1],
  ])(
    'splits %i networks in shards of %i into %i, the last of %i, keeping every id once and in order',
    (total, shardSize, count, last) => {
      // Prepare
      const networks = ids(total, 'network-');

      // Act
      const shards = planShards(networks, shardSize);

      // Assess
      expect(shards).toHaveLength(count);
      expect(shards.flatMap((s) => s.networks)).toEqual(networks);
      expect(shards.slice(0, -1).every((s) => s.networks.length === shardSize)).toBe(true);
      expect(shards.at(-1)!.networks).toHaveLength(last);
      expect(shards.filter((s) => s.pollFilter).map((s) => s.index)).toEqual([0]);
      expect(shards.map((s) => s.index)).toEqual([...shards.keys()]);
    },
  );

  it.each([0, -1, 1.5, Number.NaN])('refuses shardSize %s', (shardSize) => {
    expect(() => planShards(ids(3), shardSize)).toThrow(RangeError);
  });
});

describe('scheduledEvent', () => {
  const fields = {
    account: '123456789012',
    region: 'eu-west-1',
    executionId: 'e-1',
    scheduledTime: '2025-01-01T00:00:00Z',
    scheduleArn: 'arn:aws:scheduler:eu-west-1:123456789012:schedule/default/poll',
  };

  it('has the shape of a scheduled event and names no networks without a shard', () => {
    expect(scheduledEvent(fields)).toEqual({
      version: '0',
      id: 'e-1',
      'detail-type': 'Scheduled Event',
      source: 'aws.scheduler',
      account: '123456789012',
      time: '2025-01-01T00:00:00Z',
      region: 'eu-west-1',
      resources: ['arn:aws:scheduler:eu-west-1:123456789012:schedule/default/poll'],
      detail: {},
    });
  });

  it("adds a shard's index (its rule items), how many shards run, networks and whether it polls the filter", () => {
    const [first, second] = planShards(ids(4), 2);
    expect(scheduledEvent(fields, first)).toMatchObject({
      shard: 0,
      shards: 2,
      networks: ['n1', 'n2'],
      pollFilter: true,
    });
    expect(scheduledEvent(fields, second)).toMatchObject({
      shard: 1,
      shards: 2,
      networks: ['n3', 'n4'],
      pollFilter: false,
    });
  });
});

describe('schedule input size', () => {
  it('counts the input as Scheduler fills it in, at the longest, and the template escapes it further', () => {
    // Prepare
    const [shard] = planShards(['a"b', 'c'], 2);

    // Act
    const chars = scheduleInputChars(shard!);
    const inTemplate = templateInputChars(shard!);

    // Assess: every network adds its JSON and a comma; the template escapes each quote once more.
    const [empty] = planShards([], 1);
    expect(chars - scheduleInputChars(empty!)).toBe('"a\\"b","c"'.length);
    expect(inTemplate).toBeGreaterThan(chars);
    expect(chars).toBeLessThan(600);
  });

  it.each([
    ['short ids', ids(5000, 'network-')],
    ['ids of 100 characters', ids(300, 'x'.repeat(96))],
    ['ids full of quotes', ids(500, '""""""')],
  ])('suggests a shardSize whose every shard fits, not far below the largest (%s)', (_name, networks) => {
    // Act
    const size = fittingShardSize(networks)!;

    // Assess
    const fits = (s: number) =>
      planShards(networks, s).every((x) => scheduleInputChars(x) <= MAX_SCHEDULE_INPUT_CHARS);
    expect(fits(size)).toBe(true);
    expect(fits(Math.ceil(size * 1.1))).toBe(false);
  });

  it('keeps a shardSize that already fits, and finds none when one id alone is too long', () => {
    expect(fittingShardSize(ids(10), 4)).toBe(4);
    expect(fittingShardSize(['x'.repeat(MAX_SCHEDULE_INPUT_CHARS)])).toBeUndefined();
  });
});
