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
