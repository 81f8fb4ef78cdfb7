import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../lambda/core/duration.ts';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['2w', 1_209_600_000],
    ['2 H', 7_200_000],
    [' 5s ', 5000],
    ['0s', 0],
    ['1MS', 1],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 's', '1', '1.5h', '-1s', '1y', '1hh', '1 h s', 'hourly', '1e3s', `${'9'.repeat(400)}s`])(
    '%j is no duration',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it.each([
    ['1h', ['s', 'm', 'h', 'd'], 3_600_000],
    ['1w', ['s', 'm', 'h', 'd'], undefined],
    ['500ms', ['s', 'm', 'h', 'd'], undefined],
    ['1D', ['d'], 86_400_000],
  ] as const)('%j with units %j is %j', (text, units, ms) => {
    expect(parseDuration(text, units)).toBe(ms);
  });
});
