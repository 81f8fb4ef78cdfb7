/**
 * The key scrubber (lambda/adapters/key-redaction.ts): every copy and every fragment of 8 or more characters
 * of the key, in every echo form, wherever it stands in a text, including where the text was cut.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MIN_FRAGMENT_LENGTH,
  REDACTED,
  redactKey,
  redactorFor,
} from '../../lambda/adapters/key-redaction.ts';

const KEY = 'sk-live-Q7f9/x2B+k3LmN0pZr8W';

const percentAll = (text: string): string =>
  [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
const jsonEscapeAll = (text: string): string =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** Percent escapes and JSON escapes decoded, left to right, as an echo would be read. */
function decoded(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\(["\\/bfnrt])/g, (_, pct, uni, simple) => {
    if (pct !== undefined) return String.fromCharCode(Number.parseInt(pct, 16));
    if (uni !== undefined) return String.fromCharCode(Number.parseInt(uni, 16));
    return ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[simple] ?? simple;
  });
}

/** The first run of at least 8 characters of `key` found in `text`, as written or decoded, in any ASCII case. */
function leakedFragment(text: string, key: string): string | undefined {
  const views = [text, decoded(text)].map((view) => view.toLowerCase());
  const folded = key.toLowerCase();
  for (let i = 0; i + MIN_FRAGMENT_LENGTH <= folded.length; i++) {
    const fragment = folded.slice(i, i + MIN_FRAGMENT_LENGTH);
    if (views.some((view) => view.includes(fragment))) return fragment;
  }
  return undefined;
}

describe('redactKey', () => {
  it.each([
    { name: 'the whole key', text: `a ${KEY} b`, out: `a ${REDACTED} b` },
    { name: 'the key twice, back to back', text: `${KEY}${KEY}`, out: REDACTED },
    { name: 'its first 8 characters', text: `x${KEY.slice(0, 8)}`, out: `x${REDACTED}` },
    { name: 'its last 8 characters', text: `${KEY.slice(-8)}x`, out: `${REDACTED}x` },
    { name: 'a middle fragment', text: `(${KEY.slice(5, 17)})`, out: `(${REDACTED})` },
    { name: 'the key in upper case', text: `k=${KEY.toUpperCase()};`, out: `k=${REDACTED};` },
    { name: 'the key percent-encoded', text: `?k=${percentAll(KEY)}&`, out: `?k=${REDACTED}&` },
    {
      name: 'the key partly percent-encoded, in lower-case hex',
      text: `?k=${encodeURIComponent(KEY).toLowerCase()}&`,
      out: `?k=${REDACTED}&`,
    },
    { name: 'the key JSON-escaped', text: `"${jsonEscapeAll(KEY)}"`, out: `"${REDACTED}"` },
    { name: 'the key with its slash escaped', text: `"${KEY.replace('/', '\\/')}"`, out: `"${REDACTED}"` },
    { name: 'a fragment that starts inside an escape', text: `%${KEY.slice(0, 10)}`, out: `%${REDACTED}` },
  ])('scrubs $name', ({ text, out }) => {
    expect(redactKey(text, KEY)).toBe(out);
  });

  it.each([
    { name: 'no fragment', text: 'status: on, pps 1200' },
    { name: 'a 7-character fragment', text: `a ${KEY.slice(0, 7)} b` },
    { name: 'two 7-character fragments apart', text: `${KEY.slice(0, 7)} ${KEY.slice(7, 14)}` },
    { name: 'text shorter than a fragment', text: 'short' },
  ])('leaves $name as it is, the same string', ({ text }) => {
    expect(redactKey(text, KEY)).toBe(text);
  });

  it('scrubs a key that holds % and \\ itself, as written and percent-encoded', () => {
    const key = 'ab%41cd\\efgh12';
    expect(redactKey(`[${key}]`, key)).toBe(`[${REDACTED}]`);
    expect(redactKey(`[${percentAll(key)}]`, key)).toBe(`[${REDACTED}]`);
  });

  it.each([
    { key: 'abc1234', text: 'xx abc1234 yy', out: `xx ${REDACTED} yy` },
    { key: 'abc1234', text: 'xx ABC1234 abc123 yy', out: 'xx ABC1234 abc123 yy' },
    { key: 'abcd', text: 'abcdabcd', out: `${REDACTED}${REDACTED}` },
    { key: '', text: 'anything', out: 'anything' },
  ])('replaces a short key ($key) only where it stands whole and as written', ({ key, text, out }) => {
    expect(redactKey(text, key)).toBe(out);
  });
});

describe('redactKey, for any key placed at any offset of a body cut at any length', () => {
  const keyChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=');
  // Filler that can sit next to a key and make escapes or look-alike runs: key characters, %, \, u, hex.
  const fillChar = fc.constantFrom(...'ab01fF%\\u" {}:,x-/\n');
  const forms: Record<string, (key: string) => string> = {
    plain: (key) => key,
    upper: (key) => key.toUpperCase(),
    lower: (key) => key.toLowerCase(),
    percent: percentAll,
    'percent, some': (key) => encodeURIComponent(key),
    'json-escaped': jsonEscapeAll,
    'slash-escaped': (key) => key.replaceAll('/', '\\/'),
  };

  it('leaves no run of 8 or more of its characters, in any form', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: keyChar, minLength: 8, maxLength: 40 }).filter((k) => !/redacted/i.test(k)),
        fc.string({ unit: fillChar, maxLength: 24 }),
        fc.constantFrom(...Object.keys(forms)),
        (key, filler, formName) => {
          const echo = forms[formName]!(key);
          const redactor = redactorFor(key);
          for (let offset = 0; offset <= filler.length; offset++) {
            const body = filler.slice(0, offset) + echo + filler.slice(offset);
            for (let cut = 0; cut <= body.length; cut++) {
              const out = redactor.text(body.slice(0, cut));
              const leak = leakedFragment(out, key);
              if (leak !== undefined) {
                throw new Error(`leaked ${JSON.stringify(leak)} from ${JSON.stringify(body.slice(0, cut))}`);
              }
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('leaves no run of the key in the strings of a JSON body once parsed', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: keyChar, minLength: 8, maxLength: 40 }).filter((k) => !/redacted/i.test(k)),
        fc.jsonValue({ maxDepth: 3 }),
        fc.constantFrom('plain', 'upper', 'percent', 'json-escaped'),
        fc.nat(),
        (key, value, formName, where) => {
          // The echo, its start cut anywhere, as the API would write it into a string of a real body
          const echo = forms[formName]!(key);
          const text = `{"value":${JSON.stringify(value)},"echo":"${echo.slice(where % echo.length)}"}`;
          const parsed = JSON.parse(redactKey(text, key)) as unknown;
          const strings: string[] = [];
          JSON.stringify(parsed, (name, item: unknown) => {
            strings.push(name);
            if (typeof item === 'string') strings.push(item);
            return item;
          });
          for (const text of strings) expect(leakedFragment(text, key)).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('redactorFor(key).json: a JSON body scrubbed as JSON (issue 19.5)', () => {
  /** The key: its digits (8402917365) stand whole inside the counter 184029173650. */
  const DIGITS_KEY = 'sk-live-8402917365ab';

  /** Every string and property name of a parsed value, in order. */
  function stringsOf(value: unknown): string[] {
    const strings: string[] = [];
    JSON.stringify(value, (name, item: unknown) => {
      strings.push(name);
      if (typeof item === 'string') strings.push(item);
      return item;
    });
    return strings;
  }

  /** Every number of a JSON text, in document order. */
  function numbersOf(text: string): number[] {
    const numbers: number[] = [];
    JSON.parse(text, (_name, item: unknown) => {
      if (typeof item === 'number') numbers.push(item);
      return item;
    });
    return numbers;
  }

  it('keeps a number whose digits repeat the key, byte for byte, and the body stays JSON', () => {
    // Prepare: the counter holds all ten digits of the key; another number holds them alone
    const body =
      '{"queries":{"total":184029173650,"exact":8402917365,"neg":-184029173650e-3},"big":18402917365012345678}';

    // Act
    const out = redactorFor(DIGITS_KEY).json(body);

    // Assess: nothing to scrub, so the very same text (the integer past 2^53 keeps its digits too)
    expect(out).toBe(body);
    expect((JSON.parse(out) as { queries: unknown }).queries).toEqual({
      total: 184029173650,
      exact: 8402917365,
      neg: -184029173.65,
    });
  });

  it.each([
    {
      name: 'a string value',
      body: `{"n":184029173650,"echo":"Bearer ${DIGITS_KEY}"}`,
      scrubbed: { n: 184029173650, echo: `Bearer ${REDACTED}` },
    },
    {
      name: 'a property name',
      body: `{"${DIGITS_KEY}":184029173650}`,
      scrubbed: { [REDACTED]: 184029173650 },
    },
    {
      name: 'a number-looking string',
      body: '{"id":"8402917365","n":8402917365}',
      scrubbed: { id: REDACTED, n: 8402917365 },
    },
    {
      name: 'two strings, a half each',
      body: `["${DIGITS_KEY.slice(0, 10)}",184029173650,"${DIGITS_KEY.slice(10)}"]`,
      scrubbed: [REDACTED, 184029173650, REDACTED],
    },
    {
      name: 'a JSON-escaped string value and name',
      body: `{"${jsonEscapeAll(DIGITS_KEY)}":"${jsonEscapeAll(DIGITS_KEY)}","n":1.84029173650e11}`,
      scrubbed: { [REDACTED]: REDACTED, n: 184029173650 },
    },
    {
      name: 'a string escaped twice (\\u0025 for % of a percent-encoded key)',
      body: `{"e":"${percentAll(DIGITS_KEY).replaceAll('%', '\\u0025')}","n":184029173650}`,
      scrubbed: { e: REDACTED, n: 184029173650 },
    },
  ])('scrubs the key in $name and keeps the numbers', ({ body, scrubbed }) => {
    // Act
    const out = redactorFor(DIGITS_KEY).json(body);

    // Assess
    const parsed = JSON.parse(out) as unknown;
    expect(parsed).toEqual(scrubbed);
    for (const text of stringsOf(parsed)) expect(leakedFragment(text, DIGITS_KEY)).toBeUndefined();
    expect(leakedFragment(out.replace(/\d+/g, ''), DIGITS_KEY)).toBeUndefined();
    expect(numbersOf(out)).toEqual(numbersOf(body));
  });

  it('replaces a number that could be the key itself, for a key a number can spell', () => {
    // Prepare: a key of digits only; the API echoes it as a number, and a counter holds 8 of its digits
    const key = '840291736512';
    const body = '{"echo":840291736512,"counter":1840291736,"other":1234567890,"s":"x840291736512"}';

    // Act
    const out = redactorFor(key).json(body);

    // Assess
    expect(JSON.parse(out)).toEqual({
      echo: REDACTED,
      counter: REDACTED,
      other: 1234567890,
      s: `x${REDACTED}`,
    });
    expect(out.replace(/[^0-9]+/g, ' ')).not.toMatch(/84029173|40291736|02917365|29173651|91736512/);
  });

  it('leaves a body without the key as the same string', () => {
    const body = '{"a":[1,2.5e3,-0,"text",true,null],"b":{"c":"d\\n\\u00e9"}}';
    expect(redactorFor(DIGITS_KEY).json(body)).toBe(body);
    expect(redactorFor('abcd').json(body)).toBe(body);
    expect(redactorFor('').json(body)).toBe(body);
  });

  it('scrubs a short key where it stands whole in the decoded strings, numbers kept', () => {
    const out = redactorFor('k3y!').json('{"a":"x\\u006b3y!","k3y!":1,"n":13}');
    expect(JSON.parse(out)).toEqual({ a: `x${REDACTED}`, [REDACTED]: 1, n: 13 });
  });

  it('for any key and body: still JSON, no run of the key in any string or name, every number kept', () => {
    const keyChar = fc.constantFrom(
      ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=',
    );
    const forms: Record<string, (key: string) => string> = {
      plain: (key) => key,
      upper: (key) => key.toUpperCase(),
      percent: percentAll,
      'json-escaped': jsonEscapeAll,
    };
    fc.assert(
      fc.property(
        fc
          .string({ unit: keyChar, minLength: 8, maxLength: 40 })
          .filter((k) => !/redacted/i.test(k) && !/^[0-9+\-.eE]+$/.test(k)),
        fc.jsonValue({ maxDepth: 3 }),
        fc.constantFrom(...Object.keys(forms)),
        fc.nat(),
        (key, value, formName, where) => {
          // Prepare: the key's digits as a number beside the echo, in a value and in a name
          const echo = forms[formName]!(key);
          const cut = echo.slice(where % echo.length);
          const digits = key.replace(/[^0-9]/g, '').slice(0, 15);
          const number = digits === '' ? '7' : `1${digits}`;
          const body = `{"value":${JSON.stringify(value)},"echo":"x${cut}","${cut}y":${number},"n":[${number},-${number}.5e2]}`;

          // Act
          const out = redactorFor(key).json(body);

          // Assess
          const parsed = JSON.parse(out) as unknown;
          for (const text of stringsOf(parsed)) expect(leakedFragment(text, key)).toBeUndefined();
          expect(numbersOf(out)).toEqual(numbersOf(body));
        },
      ),
      { numRuns: 200 },
    );
  });
});
