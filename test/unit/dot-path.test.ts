import { describe, expect, it } from 'vitest';
import { lookUp, pathSegments } from '../../lambda/core/rules/dot-path.ts';

describe('pathSegments', () => {
  it.each([
    ['', []],
    ['status', ['status']],
    ['data.filter.state', ['data', 'filter', 'state']],
    ['links.0.pps', ['links', '0', 'pps']],
    ['a..b', ['a', '', 'b']],
  ])('splits %j into %j', (path, segments) => {
    expect(pathSegments(path)).toEqual(segments);
  });
});

describe('lookUp', () => {
  const body = JSON.parse(
    '{"data":{"state":"on","n":0,"f":false,"nil":null},"links":[{"pps":5},{"pps":7}],"a.b":1,"01":"x"}',
  ) as unknown;

  it.each([
    ['the body itself for no segments', [], body],
    ['a nested string', ['data', 'state'], 'on'],
    ['zero', ['data', 'n'], 0],
    ['false', ['data', 'f'], false],
    ['null', ['data', 'nil'], null],
    ['an array element by index', ['links', '1', 'pps'], 7],
    ['an object key that looks like a padded index', ['01'], 'x'],
  ])('finds %s', (_, segments, value) => {
    expect(lookUp(body, segments)).toEqual({ found: true, value });
  });

  it.each([
    ['a missing key', ['data', 'nope']],
    ['a path through a scalar', ['data', 'state', 'length']],
    ['a path through null', ['data', 'nil', 'x']],
    ['an index past the end', ['links', '2']],
    ['a padded index', ['links', '01']],
    ['a negative index', ['links', '-1']],
    ["an array's length", ['links', 'length']],
    ['a prototype member', ['data', 'constructor']],
    ['toString of the body', ['toString']],
    ['a dotted key as two segments', ['a', 'b']],
  ])('finds nothing for %s', (_, segments) => {
    expect(lookUp(body, segments)).toEqual({ found: false });
  });

  it('never runs a getter', () => {
    // Prepare
    let ran = false;
    const withGetter = Object.defineProperty({}, 'status', {
      get: () => {
        ran = true;
        return 'on';
      },
    });

    // Act
    const result = lookUp(withGetter, ['status']);

    // Assess
    expect(result).toEqual({ found: false });
    expect(ran).toBe(false);
  });

  it('treats a property holding undefined as missing', () => {
    expect(lookUp({ status: undefined }, ['status'])).toEqual({ found: false });
  });
});
