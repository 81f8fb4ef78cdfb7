import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeShape, suggestStatusPaths } from '../../lambda/core/shape.ts';

describe('describeShape', () => {
  it.each([
    [{ a: 1 }, ['a: number 1']],
    [{ data: { filter: { state: 'on' } } }, ['data: object', '  filter: object', '    state: string "on"']],
    [{ list: [{ x: true }, { x: false }] }, ['list: array(2)', '  0: object', '    x: boolean true']],
    [{}, ['(an empty object)']],
    ['text', ['(the body is a string: "text")']],
    [null, ['(the body is a null: null)']],
  ])('describes %j', (body, expected) => {
    // Act
    const lines = describeShape(body);

    // Assess
    expect(lines).toEqual(expected);
  });

  it('stays short and printable for any body', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        const lines = describeShape(body);
        expect(lines.length).toBeLessThanOrEqual(110);
        for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f]/);
      }),
      { numRuns: 200 },
    );
  });
});

describe('suggestStatusPaths', () => {
  it.each([
    [{ data: { filter: { mode: 'strict' } }, other: 1 }, ['data.filter.mode']],
    [{ result: { protectionState: 'on', count: 3 } }, ['result.protectionState']],
    [{ status: { code: 1, text: 'ok' } }, []],
    [{ items: [{ state: 'a' }] }, ['items.0.state']],
    [{ 'a.b': { state: 'x' } }, []],
    [[1, 2], []],
  ])('suggests paths in %j', (body, expected) => {
    // Act
    const paths = suggestStatusPaths(body);

    // Assess
    expect(paths).toEqual(expected);
  });

  it('lists the nearest candidates first', () => {
    // Act
    const paths = suggestStatusPaths({ deep: { deeper: { state: 'x' } }, mode: 'y' });

    // Assess
    expect(paths).toEqual(['mode', 'deep.deeper.state']);
  });
});
