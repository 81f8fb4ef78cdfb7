import { describe, expect, it } from 'vitest';
import { extractFigures, FIGURES_MAX_DEPTH } from '../../lambda/core/figures.ts';

/** `{ n: { n: ... { leaf: 1 } } }` whose leaf path has `segments` segments. */
function nested(segments: number): unknown {
  let body: unknown = { leaf: 1 };
  for (let i = 1; i < segments; i++) {
    body = { n: body };
  }
  return body;
}

describe('extractFigures', () => {
  it.each([
    {
      name: 'flat numbers',
      body: { pps: 10, bps: 2.5 },
      figures: [
        ['pps', 10],
        ['bps', 2.5],
      ],
    },
    {
      name: 'nested objects, depth-first in body order',
      body: { a: { x: 1, y: { z: 2 } }, b: 3 },
      figures: [
        ['a.x', 1],
        ['a.y.z', 2],
        ['b', 3],
      ],
    },
    {
      name: 'array elements by index',
      body: { links: [{ pps: 1 }, { pps: 2 }], totals: [7, 8] },
      figures: [
        ['links.0.pps', 1],
        ['links.1.pps', 2],
        ['totals.0', 7],
        ['totals.1', 8],
      ],
    },
    {
      name: 'a root array',
      body: [5, { v: 6 }],
      figures: [
        ['0', 5],
        ['1.v', 6],
      ],
    },
    {
      name: 'zero and negative numbers',
      body: { a: 0, b: -4, c: -0 },
      figures: [
        ['a', 0],
        ['b', -4],
        ['c', -0],
      ],
    },
    {
      name: 'no booleans, numeric strings, null or strings',
      body: { a: true, b: '12', c: null, d: 'x', e: false, f: 1 },
      figures: [['f', 1]],
    },
    {
      name: 'no NaN or Infinity',
      body: { a: Number.NaN, b: Number.POSITIVE_INFINITY, c: 2 },
      figures: [['c', 2]],
    },
    { name: 'an empty object', body: {}, figures: [] },
    { name: 'an empty array', body: [], figures: [] },
    { name: 'a number body (no path)', body: 42, figures: [] },
    { name: 'a string body', body: '42', figures: [] },
    { name: 'a null body', body: null, figures: [] },
    { name: 'an undefined body', body: undefined, figures: [] },
    { name: 'a key with a dot, kept as it is', body: { 'a.b': 1 }, figures: [['a.b', 1]] },
    { name: 'no empty path', body: { '': 1, x: { '': 2 } }, figures: [['x.', 2]] },
    {
      name: 'integer-like keys first, as JSON.parse orders them',
      body: JSON.parse('{"b": 1, "2": 2}'),
      figures: [
        ['2', 2],
        ['b', 1],
      ],
    },
    {
      name: 'a JSON-parsed __proto__ key as an own key',
      body: JSON.parse('{"__proto__": {"x": 9}}'),
      figures: [['__proto__.x', 9]],
    },
  ])('reads $name', ({ body, figures }) => {
    // Act
    const found = extractFigures(body);

    // Assess
    expect(found).toEqual(figures);
  });

  it('stops at maxFigures, keeping the first ones in body order', () => {
    // Prepare
    const body = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));

    // Act
    const byDefault = extractFigures(body);
    const three = extractFigures(body, 3);

    // Assess
    expect(byDefault).toHaveLength(20);
    expect(byDefault.at(-1)).toEqual(['k19', 19]);
    expect(three).toEqual([
      ['k0', 0],
      ['k1', 1],
      ['k2', 2],
    ]);
  });

  it.each([
    { cap: 0, length: 0 },
    { cap: -5, length: 0 },
    { cap: Number.NaN, length: 0 },
    { cap: 2.9, length: 2 },
    { cap: Number.POSITIVE_INFINITY, length: 30 },
  ])('treats a cap of $cap as $length figures', ({ cap, length }) => {
    // Prepare
    const body = Array.from({ length: 30 }, (_, i) => i);

    // Act
    const found = extractFigures(body, cap);

    // Assess
    expect(found).toHaveLength(length);
  });

  it(`keeps leaves up to ${FIGURES_MAX_DEPTH} segments deep and skips deeper ones`, () => {
    // Prepare
    const deepest = nested(FIGURES_MAX_DEPTH);
    const tooDeep = nested(FIGURES_MAX_DEPTH + 1);

    // Act
    const kept = extractFigures(deepest);
    const skipped = extractFigures(tooDeep);

    // Assess
    expect(kept).toEqual([
      [
        `${Array(FIGURES_MAX_DEPTH - 1)
          .fill('n')
          .join('.')}.leaf`,
        1,
      ],
    ]);
    expect(skipped).toEqual([]);
  });

  it('does not blow the stack on a hostile, deeply nested body', () => {
    // Prepare
    const body = JSON.parse(`${'['.repeat(100_000)}1${']'.repeat(100_000)}`);

    // Act
    const found = extractFigures({ top: 1, deep: body });

    // Assess
    expect(found).toEqual([['top', 1]]);
  });

  it('reads only own data properties, without running getters', () => {
    // Prepare
    let calls = 0;
    const proto = { inherited: 1 };
    const body = Object.create(proto, {
      own: { value: 2, enumerable: true },
      computed: {
        enumerable: true,
        get() {
          calls++;
          return 3;
        },
      },
    });

    // Act
    const found = extractFigures(body);

    // Assess
    expect(found).toEqual([['own', 2]]);
    expect(calls).toBe(0);
  });

  it('returns what it found before a Proxy trap threw', () => {
    // Prepare
    const hostile = new Proxy(
      { x: 1 },
      {
        ownKeys() {
          throw new Error('boom');
        },
      },
    );

    // Act
    const found = extractFigures({ before: 1, hostile, after: 2 });

    // Assess
    expect(found).toEqual([['before', 1]]);
  });

  it('skips the holes of a sparse array quickly', () => {
    // Prepare
    const sparse: number[] = [];
    sparse[10_000_000] = 5;

    // Act
    const found = extractFigures({ sparse });

    // Assess
    expect(found).toEqual([['sparse.10000000', 5]]);
  });
});
