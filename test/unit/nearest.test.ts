import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearest } from '../../lambda/core/nearest.ts';
import { SETTING_ENV_NAMES, SETTINGS, unknownSettings } from '../../lambda/settings.ts';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', 'abc', 0],
    ['abc', '', 3],
    ['limit', 'limt', 1],
    ['networks', 'netwroks', 1],
    ['kitten', 'sitting', 3],
    ['ca', 'abc', 3],
  ])('%j to %j is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('nearest', () => {
  const commands = ['poll', 'run', 'history', 'events', 'check', 'uptime'];
  it.each([
    ['pol', commands, '', 'poll'],
    ['histroy', commands, '', 'history'],
    ['HISTORY', commands, '', 'history'],
    ['hist', commands, '', 'history'],
    ['frobnicate', commands, '', undefined],
    ['x', commands, '', undefined],
    ['SHIELDWATCH_NETWROKS', SETTING_ENV_NAMES, 'SHIELDWATCH_', 'SHIELDWATCH_NETWORKS'],
    ['SHIELDWATCH_APIKEY', SETTING_ENV_NAMES, 'SHIELDWATCH_', 'SHIELDWATCH_API_KEY'],
    ['SHIELDWATCH_TOPIC', SETTING_ENV_NAMES, 'SHIELDWATCH_', 'SHIELDWATCH_TOPIC_ARN'],
    ['SHIELDWATCH_RETENTION', SETTING_ENV_NAMES, 'SHIELDWATCH_', 'SHIELDWATCH_RETENTION_DAYS'],
    ['SHIELDWATCH_X', SETTING_ENV_NAMES, 'SHIELDWATCH_', undefined],
    ['SHIELDWATCH_DEBUG', SETTING_ENV_NAMES, 'SHIELDWATCH_', undefined],
  ])('%j among the candidates is %j', (word, candidates, prefix, expected) => {
    expect(nearest(word, candidates, prefix)).toBe(expected);
  });

  it('does not take a prefix for a match when told not to', () => {
    expect(nearest('networksExtra', ['networks'], '', false)).toBeUndefined();
    expect(nearest('networksExtra', ['networks'])).toBe('networks');
  });

  it.each([
    ['limt', ' (did you mean limit?)'],
    ['zzz', ''],
  ])('didYouMean(%j) is %j', (word, text) => {
    expect(didYouMean(word, ['limit', 'since'])).toBe(text);
  });
});

describe('the settings catalogue', () => {
  it('lists every variable once, under the prefix', () => {
    expect(new Set(SETTING_ENV_NAMES).size).toBe(SETTING_ENV_NAMES.length);
    expect(SETTING_ENV_NAMES.every((name) => /^SHIELDWATCH_[A-Z0-9_]+$/.test(name))).toBe(true);
  });

  it('states the default of each whole-number setting as its range does', () => {
    for (const spec of Object.values(SETTINGS)) {
      if ('range' in spec) {
        expect(spec.default, spec.env).toBe(String(spec.range.default));
        expect(spec.range.min <= spec.range.default && spec.range.default <= spec.range.max, spec.env).toBe(
          true,
        );
      }
    }
  });

  it('names unknown variables in order, with a suggestion only when one is near', () => {
    expect(
      unknownSettings({
        SHIELDWATCH_ZZZ_TOP: '1',
        SHIELDWATCH_NETWORK: 'a',
        SHIELDWATCH_NETWORKS: 'a',
        HOME: '/',
      }),
    ).toEqual([
      { name: 'SHIELDWATCH_NETWORK', suggestion: 'SHIELDWATCH_NETWORKS' },
      { name: 'SHIELDWATCH_ZZZ_TOP' },
    ]);
  });
});
