import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_STATUS_PATHS,
  displayStatus,
  extractStatus,
  parseStatusPath,
} from '../../lambda/core/detect/status.ts';

const NO_DEFAULT = 'no status found at status, state, data.status, data.state, filter.status, filter.state';

describe('extractStatus without a configured path', () => {
  it('tries the default paths in the documented order', () => {
    // Assess
    expect(DEFAULT_STATUS_PATHS).toEqual([
      'status',
      'state',
      'data.status',
      'data.state',
      'filter.status',
      'filter.state',
    ]);
  });

  it.each([
    { name: 'status', body: { status: 'active' }, status: 'active', path: 'status' },
    { name: 'state', body: { state: 'active' }, status: 'active', path: 'state' },
    { name: 'data.status', body: { data: { status: 'active' } }, status: 'active', path: 'data.status' },
    { name: 'data.state', body: { data: { state: 'active' } }, status: 'active', path: 'data.state' },
    {
      name: 'filter.status',
      body: { filter: { status: 'active' } },
      status: 'active',
      path: 'filter.status',
    },
    { name: 'filter.state', body: { filter: { state: 'active' } }, status: 'active', path: 'filter.state' },
    {
      name: 'status wins over everything after it',
      body: { filter: { state: 'f' }, data: { status: 'd' }, state: 's', status: 'first' },
      status: 'first',
      path: 'status',
    },
    {
      name: 'state wins over data.status',
      body: { data: { status: 'd' }, state: 's' },
      status: 's',
      path: 'state',
    },
    {
      name: 'data.state wins over filter.status',
      body: { filter: { status: 'f' }, data: { state: 'd' } },
      status: 'd',
      path: 'data.state',
    },
    { name: 'null is passed over', body: { status: null, state: 'on' }, status: 'on', path: 'state' },
    {
      name: 'an object is passed over',
      body: { status: { code: 1 }, data: { status: 'on' } },
      status: 'on',
      path: 'data.status',
    },
    { name: 'an array is passed over', body: { status: ['a'], state: 'on' }, status: 'on', path: 'state' },
    { name: 'a number is its JSON text', body: { status: 2 }, status: '2', path: 'status' },
    { name: 'a fraction is its JSON text', body: { state: 1.5 }, status: '1.5', path: 'state' },
    { name: 'a negative zero reads as 0', body: { status: -0 }, status: '0', path: 'status' },
    { name: 'true is "true"', body: { status: true }, status: 'true', path: 'status' },
    {
      name: 'false is "false", not passed over',
      body: { status: false, state: 'x' },
      status: 'false',
      path: 'status',
    },
    {
      name: 'zero is a status, not passed over',
      body: { status: 0, state: 'x' },
      status: '0',
      path: 'status',
    },
    { name: 'the empty string is a status', body: { status: '', state: 'x' }, status: '', path: 'status' },
    { name: 'whitespace is kept exactly', body: { status: ' on \n' }, status: ' on \n', path: 'status' },
    {
      name: 'unicode is kept exactly',
      body: { status: 'aktiv \u00FC \u{1F6E1}' },
      status: 'aktiv \u00FC \u{1F6E1}',
      path: 'status',
    },
    {
      name: 'a JSON-parsed __proto__ key is an own property',
      body: JSON.parse('{"__proto__": "p", "data": {"state": "d"}}'),
      status: 'd',
      path: 'data.state',
    },
  ])('$name', ({ body, status, path }) => {
    // Act
    const reading = extractStatus(body);

    // Assess
    expect(reading).toEqual({ ok: true, status, path });
  });

  it.each([
    { name: 'an empty object', body: {}, hint: '' },
    { name: 'only null and objects', body: { status: null, state: {}, data: { status: [] } }, hint: '' },
    { name: 'a string body', body: 'active', hint: 'the body is a string; ' },
    { name: 'a number body', body: 42, hint: 'the body is a number; ' },
    { name: 'a boolean body', body: true, hint: 'the body is a boolean; ' },
    { name: 'a null body', body: null, hint: 'the body is null; ' },
    { name: 'an undefined body', body: undefined, hint: 'the body is nothing; ' },
    { name: 'an array body', body: [{ status: 'a' }], hint: '' },
    { name: 'an empty data object', body: { data: {}, filter: {} }, hint: '' },
  ])('finds nothing in $name', ({ body, hint }) => {
    // Act
    const reading = extractStatus(body);

    // Assess
    expect(reading).toEqual({ ok: false, error: `${NO_DEFAULT} (${hint}set SHIELDWATCH_STATUS_PATH)` });
  });
});

describe('extractStatus with a configured path', () => {
  it.each([
    {
      name: 'a nested string',
      body: { data: { filter: { state: 'on' } } },
      path: 'data.filter.state',
      status: 'on',
    },
    { name: 'a top-level key', body: { mode: 'off' }, path: 'mode', status: 'off' },
    { name: 'surrounding spaces are trimmed', body: { a: { b: 'x' } }, path: '  a.b ', status: 'x' },
    {
      name: 'an array index',
      body: { items: [{ state: 'a' }, { state: 'b' }] },
      path: 'items.1.state',
      status: 'b',
    },
    { name: 'index 0', body: { items: [{ state: 'a' }] }, path: 'items.0.state', status: 'a' },
    { name: 'a root array', body: ['zero', 'one'], path: '1', status: 'one' },
    { name: 'a numeric key of an object', body: { 0: { state: 'k' } }, path: '0.state', status: 'k' },
    { name: 'a number', body: { code: 3 }, path: 'code', status: '3' },
    { name: 'a large number', body: { code: 1e21 }, path: 'code', status: '1e+21' },
    { name: 'a boolean', body: { up: false }, path: 'up', status: 'false' },
    { name: 'the empty string', body: { s: '' }, path: 's', status: '' },
    { name: 'whitespace only', body: { s: '   ' }, path: 's', status: '   ' },
    {
      name: 'unicode',
      body: { s: '\u0433\u043E\u0442\u043E\u0432\u043E' },
      path: 's',
      status: '\u0433\u043E\u0442\u043E\u0432\u043E',
    },
    { name: 'a lone surrogate', body: { s: '\uD800' }, path: 's', status: '\uD800' },
    { name: 'a key with spaces inside', body: { 'filter state': 'on' }, path: 'filter state', status: 'on' },
    {
      name: 'a JSON-parsed __proto__ key',
      body: JSON.parse('{"__proto__": {"status": "own"}}'),
      path: '__proto__.status',
      status: 'own',
    },
    { name: 'an own constructor key', body: { constructor: 'c' }, path: 'constructor', status: 'c' },
    {
      name: 'a configured path beats the defaults',
      body: { status: 'default', mine: 'mine' },
      path: 'mine',
      status: 'mine',
    },
  ])('reads $name', ({ body, path, status }) => {
    // Act
    const reading = extractStatus(body, path);

    // Assess
    expect(reading).toEqual({ ok: true, status, path: path.trim() });
  });

  it.each([
    {
      name: 'an object',
      body: { data: { state: {} } },
      path: 'data.state',
      error: 'status path "data.state" holds an object, not a status',
    },
    {
      name: 'an array',
      body: { data: { state: [1] } },
      path: 'data.state',
      error: 'status path "data.state" holds an array, not a status',
    },
    {
      name: 'null',
      body: { data: { state: null } },
      path: 'data.state',
      error: 'status path "data.state" holds null, not a status',
    },
    {
      name: 'a missing key',
      body: { data: {} },
      path: 'data.state',
      error: 'status path "data.state" not found in the body',
    },
    {
      name: 'a missing parent',
      body: {},
      path: 'data.state',
      error: 'status path "data.state" not found in the body',
    },
    {
      name: 'a path through a string',
      body: { data: 'x' },
      path: 'data.state',
      error: 'status path "data.state" not found in the body',
    },
    {
      name: 'an index past the end',
      body: { items: [] },
      path: 'items.0',
      error: 'status path "items.0" not found in the body',
    },
    {
      name: 'a non-canonical index',
      body: { items: ['a', 'b'] },
      path: 'items.01',
      error: 'status path "items.01" not found in the body',
    },
    {
      name: 'a negative index',
      body: { items: ['a'] },
      path: 'items.-1',
      error: 'status path "items.-1" not found in the body',
    },
    {
      name: 'array length',
      body: { items: ['a'] },
      path: 'items.length',
      error: 'status path "items.length" not found in the body',
    },
    {
      name: 'string length',
      body: { s: 'abc' },
      path: 's.length',
      error: 'status path "s.length" not found in the body',
    },
    {
      name: 'inherited constructor',
      body: {},
      path: 'constructor',
      error: 'status path "constructor" not found in the body',
    },
    {
      name: 'inherited constructor.name',
      body: {},
      path: 'constructor.name',
      error: 'status path "constructor.name" not found in the body',
    },
    {
      name: 'inherited toString',
      body: { a: {} },
      path: 'a.toString',
      error: 'status path "a.toString" not found in the body',
    },
    {
      name: 'inherited __proto__',
      body: {},
      path: '__proto__',
      error: 'status path "__proto__" not found in the body',
    },
    {
      name: 'a string body',
      body: 'active',
      path: 'status',
      error: 'status path "status" not found in the body (the body is a string)',
    },
    {
      name: 'a number body',
      body: 7,
      path: 'status',
      error: 'status path "status" not found in the body (the body is a number)',
    },
    {
      name: 'a null body',
      body: null,
      path: 'status',
      error: 'status path "status" not found in the body (the body is null)',
    },
    {
      name: 'an undefined body',
      body: undefined,
      path: 'status',
      error: 'status path "status" not found in the body (the body is nothing)',
    },
    {
      name: 'an array body',
      body: [{ status: 'a' }],
      path: 'status',
      error: 'status path "status" not found in the body',
    },
    {
      name: 'an empty path',
      body: { status: 'a' },
      path: '',
      error: 'status path is empty (expected a dot path such as data.filter.state)',
    },
  ])('refuses $name', ({ body, path, error }) => {
    // Act
    const reading = extractStatus(body, path);

    // Assess
    expect(reading).toEqual({ ok: false, error });
  });

  it('does not run getters', () => {
    // Prepare
    let calls = 0;
    const body = {
      get status() {
        calls++;
        return 'from a getter';
      },
    };

    // Act
    const reading = extractStatus(body, 'status');

    // Assess
    expect(reading.ok).toBe(false);
    expect(calls).toBe(0);
  });

  it('does not throw for a Proxy whose traps throw', () => {
    // Prepare
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
      },
    );

    // Act
    const configured = extractStatus(hostile, 'status');
    const defaults = extractStatus(hostile);

    // Assess
    expect(configured).toEqual({ ok: false, error: 'status could not be read from the body' });
    expect(defaults.ok).toBe(false);
  });

  it('follows a deeply nested path without trouble', () => {
    // Prepare
    const depth = 5000;
    let body: unknown = 'deep';
    for (let i = 0; i < depth; i++) {
      body = { n: body };
    }
    const path = Array.from({ length: depth }, () => 'n').join('.');

    // Act
    const reading = extractStatus(body, path);

    // Assess
    expect(reading).toEqual({ ok: true, status: 'deep', path });
  });

  it('keeps the error short when the path is long', () => {
    // Prepare
    const path = Array.from({ length: 400 }, (_, i) => `segment${i}`).join('.');

    // Act
    const reading = extractStatus({}, path);

    // Assess
    expect(reading.ok).toBe(false);
    if (!reading.ok) {
      expect(reading.error.length).toBeLessThan(200);
      expect(reading.error).toMatch(/^status path "segment0\.segment1\..*\.\.\." not found in the body$/);
    }
  });

  it('keeps the error short when the path is full of control characters', () => {
    // Prepare
    const path = '\u0000'.repeat(500);

    // Act
    const reading = extractStatus({}, path);

    // Assess
    expect(reading.ok).toBe(false);
    if (!reading.ok) {
      expect(reading.error.length).toBeLessThan(200);
      expect(reading.error).toContain('\\u0000');
    }
  });
});

describe('parseStatusPath', () => {
  it.each([
    { path: 'status', segments: ['status'] },
    { path: 'data.filter.state', segments: ['data', 'filter', 'state'] },
    { path: '  data.state\t', segments: ['data', 'state'] },
    { path: 'items.0.state', segments: ['items', '0', 'state'] },
    { path: 'filter state.x', segments: ['filter state', 'x'] },
    { path: '\u00E9tat', segments: ['\u00E9tat'] },
  ])('accepts "$path"', ({ path, segments }) => {
    // Act
    const parsed = parseStatusPath(path);

    // Assess
    expect(parsed).toEqual({ ok: true, segments });
  });

  it.each([
    { path: '', error: 'status path is empty' },
    { path: '   ', error: 'status path is empty' },
    { path: '.status', error: 'status path ".status" has an empty segment' },
    { path: 'status.', error: 'status path "status." has an empty segment' },
    { path: 'data..state', error: 'status path "data..state" has an empty segment' },
    { path: '.', error: 'status path "." has an empty segment' },
    { path: 'data. state', error: 'status path "data. state" has spaces around a segment' },
    { path: 'data .state', error: 'status path "data .state" has spaces around a segment' },
  ])('refuses "$path"', ({ path, error }) => {
    // Act
    const parsed = parseStatusPath(path);

    // Assess
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.startsWith(error)).toBe(true);
      expect(parsed.error.length).toBeLessThan(200);
    }
  });

  it('refuses a value that is not a string', () => {
    // Act
    const parsed = parseStatusPath(42 as unknown as string);

    // Assess
    expect(parsed).toEqual({ ok: false, error: 'status path must be a string' });
  });
});

describe('displayStatus', () => {
  it.each([
    { status: '', shown: '(empty)' },
    { status: 'active', shown: 'active' },
    { status: ' ', shown: ' ' },
    { status: '(empty)', shown: '(empty)' },
    { status: '\u00FC', shown: '\u00FC' },
  ])('shows $status as $shown', ({ status, shown }) => {
    // Act
    const text = displayStatus(status);

    // Assess
    expect(text).toBe(shown);
  });
});

describe('extractStatus: the length cap', () => {
  it.each([
    { name: 'at the cap, configured path', body: { s: 'x'.repeat(1024) }, path: 's', ok: true },
    { name: 'over the cap, configured path', body: { s: 'x'.repeat(1025) }, path: 's', ok: false },
    {
      name: 'over the cap, default path',
      body: { status: 'y'.repeat(250_000), state: 'on' },
      path: undefined,
      ok: false,
    },
  ])('$name', ({ body, path, ok }) => {
    // Act
    const reading = extractStatus(body, path);

    // Assess
    expect(reading.ok).toBe(ok);
    if (!reading.ok) expect(reading.error).toMatch(/is \d+ characters long \(at most 1024\)/);
    if (!reading.ok) expect(reading.error.length).toBeLessThan(200);
  });
});

describe('extractStatus: a number status keeps what was written', () => {
  it.each([
    { name: 'integers past 2^53', a: '9007199254740993', b: '9007199254740992' },
    { name: 'large integers one apart', a: '123456789012345678901', b: '123456789012345678902' },
    { name: 'numbers that overflow to Infinity', a: '1e999', b: '2e999' },
    { name: 'negative overflows', a: '-1e400', b: '-1e401' },
    { name: 'a number that underflows to 0, and 0', a: '1e-400', b: '0' },
    { name: 'more digits than a double holds', a: '0.1', b: '0.10000000000000000001' },
  ])('tells $name apart', ({ a, b }) => {
    // Prepare
    const texts = [a, b].map((n) => `{"status":${n}}`);

    // Act
    const readings = texts.map((text) => extractStatus(JSON.parse(text), undefined, text));

    // Assess
    expect(readings[0]).toEqual({ ok: true, status: a, path: 'status' });
    expect(readings[1]).toMatchObject({ ok: true });
    expect(readings[0]).not.toEqual(readings[1]);
  });

  it.each([
    { written: '1', status: '1' },
    { written: '1.0', status: '1' },
    { written: '1e3', status: '1000' },
    { written: '1E+3', status: '1000' },
    { written: '-0', status: '0' },
    { written: '0.5e-0', status: '0.5' },
    { written: '1e21', status: '1e+21' },
    { written: '9007199254740992', status: '9007199254740992' },
    { written: '-12.50', status: '-12.5' },
  ])('keeps the JSON text of $written, which the double holds exactly: $status', ({ written, status }) => {
    const text = `{"status":${written}}`;
    expect(extractStatus(JSON.parse(text), undefined, text)).toEqual({ ok: true, status, path: 'status' });
  });

  it.each([
    {
      name: 'a configured path through arrays and escaped names',
      text: '{"d\\u0061ta":[{"x":[1,{"s":"]}"}]},{"filter":{"state":18446744073709551617}}]}',
      path: 'data.1.filter.state',
      status: '18446744073709551617',
    },
    {
      name: 'the last of duplicate names, as JSON.parse takes it',
      text: '{"status":18446744073709551615, "status" : 18446744073709551617 }',
      path: undefined,
      status: '18446744073709551617',
    },
    {
      name: 'a default path further down, past a null status',
      text: '{"status":null,"data":{"state":\n  -1e500}}',
      path: undefined,
      status: '-1e500',
    },
    {
      name: 'an own __proto__ name',
      text: '{"__proto__":{"status":1e999}}',
      path: '__proto__.status',
      status: '1e999',
    },
  ])('finds the source of $name', ({ text, path, status }) => {
    expect(extractStatus(JSON.parse(text), path, text)).toMatchObject({ ok: true, status });
  });

  it('reads the parsed number as before without the source text', () => {
    expect(extractStatus({ status: Number.POSITIVE_INFINITY })).toEqual({
      ok: true,
      status: 'Infinity',
      path: 'status',
    });
  });

  it('refuses a number whose source is longer than the cap', () => {
    const text = `{"status":${'9'.repeat(1025)}}`;
    expect(extractStatus(JSON.parse(text), undefined, text)).toMatchObject({ ok: false });
  });

  it('reads every body as before when its numbers are what was written', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.constantFrom(undefined, 'status', 'data.status', 'a.0', 'x.y.z'),
        fc.constantFrom(0, 2),
        (leaf, path, indent) => {
          const body = { status: leaf, data: { status: leaf }, a: [leaf], x: { y: { z: leaf } } };
          const text = JSON.stringify(body, null, indent);
          expect(extractStatus(JSON.parse(text), path, text)).toEqual(extractStatus(body, path));
        },
      ),
      { numRuns: 300 },
    );
  });
});
