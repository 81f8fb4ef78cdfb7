import { describe, expect, it } from 'vitest';
import {
  extractFigures,
  FIGURES_MAX_DEPTH,
  figureCandidates,
  figureMetricName,
  parseFigureFields,
  pickFigures,
} from '../../lambda/core/detect/figures.ts';

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

describe('parseFigureFields (issue 14.3)', () => {
  it.each([
    { value: '', fields: [] },
    { value: '   ', fields: [] },
    { value: [], fields: [] },
    { value: 'pps', fields: ['pps'] },
    { value: 'traffic.in_pps, links.0.pps', fields: ['traffic.in_pps', 'links.0.pps'] },
    { value: ['a.b', ' c '], fields: ['a.b', 'c'] },
    { value: 'weird-key!.$value', fields: ['weird-key!.$value'] },
  ])('accepts $value', ({ value, fields }) => {
    // Act
    const parsed = parseFigureFields(value);

    // Assess
    expect(parsed).toEqual({ ok: true, fields });
  });

  it.each([
    { value: 'a..b', problem: /"a\.\.b" has an empty segment/ },
    { value: '.a', problem: /empty segment/ },
    { value: 'a,', problem: /field 2 is empty/ },
    { value: 'a. b', problem: /spaces around a segment/ },
    { value: 'a\u0000b', problem: /field 1 has a control or invisible character/ },
    { value: 'x'.repeat(101), problem: /longer than 100 characters/ },
    { value: Array.from({ length: 11 }, (_, i) => `f${i}`), problem: /lists 11 fields, more than 10/ },
    { value: 'a,a', problem: /lists "a" twice/ },
    { value: 'in/pps,in pps', problem: /"in pps" and "in\/pps" would both be metric Figure\.in_pps/ },
  ])('refuses $value', ({ value, problem }) => {
    // Act
    const parsed = parseFigureFields(value);

    // Assess
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.problems.join('\n')).toMatch(problem);
  });
});

describe('figureMetricName', () => {
  it.each([
    { path: 'pps', name: 'Figure.pps' },
    { path: 'traffic.in_pps', name: 'Figure.traffic.in_pps' },
    { path: 'links.0.in-bps', name: 'Figure.links.0.in-bps' },
    { path: 'a b/ç"\'', name: 'Figure.a_b____' },
  ])('$path is metric $name', ({ path, name }) => {
    // Act / Assess
    expect(figureMetricName(path)).toBe(name);
  });
});

describe('pickFigures: exactly the chosen fields that hold finite numbers', () => {
  const body = {
    id: 48213,
    ts: 1_767_225_600,
    traffic: { in_pps: 900, in_bps: 7.5e6, label: 'x', up: true, gone: null },
    links: [{ pps: 3 }, { pps: 4 }],
    '': { pps: 1 },
  };
  it.each([
    { fields: [], picked: [] },
    { fields: ['traffic.in_pps'], picked: [['traffic.in_pps', 900]] },
    {
      fields: ['traffic.in_bps', 'traffic.in_pps'],
      picked: [
        ['traffic.in_bps', 7.5e6],
        ['traffic.in_pps', 900],
      ],
    },
    { fields: ['links.1.pps'], picked: [['links.1.pps', 4]] },
    { fields: ['links.01.pps', 'links.length', 'links.-1.pps'], picked: [] },
    { fields: ['traffic.label', 'traffic.up', 'traffic.gone', 'traffic', 'missing.x'], picked: [] },
    { fields: ['traffic.in_pps.deeper', 'constructor', 'toString', '__proto__'], picked: [] },
  ])('$fields', ({ fields, picked }) => {
    // Act / Assess
    expect(pickFigures(body, fields)).toEqual(picked);
  });

  it.each([null, undefined, 3, 'text', [1, 2]])('finds nothing in the body %j', (value) => {
    // Act / Assess
    expect(pickFigures(value, ['a', '0'])).toEqual(
      typeof value === 'object' && value !== null ? [['0', 1]] : [],
    );
  });

  it('does not throw on a Proxy whose traps throw', () => {
    // Prepare
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
      },
    );

    // Act / Assess
    expect(pickFigures({ a: hostile, b: 2 }, ['a.x', 'b'])).toEqual([['b', 2]]);
  });
});

describe('figureCandidates: what check suggests', () => {
  it.each([
    {
      name: 'ids, timestamps and times left out of the suggestion, kept among the candidates',
      bodies: [
        {
          id: 48213,
          networkId: 7,
          ts: 1_767_225_600,
          seen: 1_767_225_600_000,
          updated_at: 5,
          traffic: { in_pps: 900, in_bps: 7.5e6, format: 2, rate: 3 },
        },
      ],
      perBody: [
        [
          'id',
          'networkId',
          'ts',
          'seen',
          'updated_at',
          'traffic.in_pps',
          'traffic.in_bps',
          'traffic.format',
          'traffic.rate',
        ],
      ],
      suggested: ['traffic.in_pps', 'traffic.in_bps', 'traffic.format', 'traffic.rate'],
    },
    {
      name: 'the union of several bodies, first seen first; a failed body has none',
      bodies: [{ a: 1 }, undefined, { b: 2, a: 3 }],
      perBody: [['a'], [], ['b', 'a']],
      suggested: ['a', 'b'],
    },
    {
      name: 'paths that cannot be chosen (a dotted or comma key, an empty key) are no candidates',
      bodies: [{ 'a.b': 1, 'c,d': 2, ' e': 3, ok: 4 }],
      perBody: [['ok']],
      suggested: ['ok'],
    },
    {
      name: 'at most 10 suggested',
      bodies: [Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`f${i}`, i]))],
      perBody: [Array.from({ length: 14 }, (_, i) => `f${i}`)],
      suggested: Array.from({ length: 10 }, (_, i) => `f${i}`),
    },
  ])('$name', ({ bodies, perBody, suggested }) => {
    // Act
    const candidates = figureCandidates(bodies);

    // Assess
    expect(candidates).toEqual({ perBody, suggested });
  });
});
