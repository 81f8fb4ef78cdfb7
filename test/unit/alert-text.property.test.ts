import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ATTRIBUTE_MAX_CHARS,
  asciiFold,
  EMAIL_MAX_BYTES,
  renderAlert,
  shorten,
} from '../../lambda/core/alerts/alert-text.ts';
import { extractFigures } from '../../lambda/core/detect/figures.ts';
import { DEFAULT_STATUS_PATHS, extractStatus } from '../../lambda/core/detect/status.ts';
import type { AlertEvent, AlertRecord, NetworkFigures } from '../../lambda/core/types.ts';

const EVENTS: readonly AlertEvent[] = [
  'filter.status_changed',
  'api.auth_failed',
  'api.auth_restored',
  'api.unreachable',
  'api.recovered',
  'filter.status_unreadable',
  'filter.status_readable',
  'filter.status_reminder',
  'network.rule_triggered',
  'network.rule_resolved',
  'monitor.test',
];

const HIDDEN_IN_EMAIL = /[^\P{Cc}\n]|[\p{Cf}\u2028\u2029]|[^\P{Zs} ]/u;

/** Look-alike pieces: letters, invisible and format characters, unusual spaces, fullwidth and accented forms. */
const lookAlikeStatus: fc.Arbitrary<string> = fc
  .array(
    fc.constantFrom(
      'O',
      'N',
      'a',
      ' ',
      '\u200B',
      '\u200C',
      '\u202E',
      '\u2066',
      '\u2069',
      '\uFEFF',
      '\u00AD',
      '\u00A0',
      '\u3000',
      '\u0000',
      '\t',
      '\n',
      '\u041E',
      '\uFF2F',
      '\u0301',
      '\u00E9',
      'e\u0301',
      '\u8FD0',
      '\u505C',
      '\uFE0F',
    ),
    { maxLength: 40 },
  )
  .map((pieces) => pieces.join(''));

const NOT_XML_1_0 = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Short texts of every kind, now and then a huge one (repeated so it costs little to generate). */
const anyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary' }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme' }) },
  { weight: 2, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\n', '\u200B', '\uD800', '\u0000') },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }), fc.integer({ min: 500, max: 50_000 }))
      .map(([piece, times]) => piece.repeat(times)),
  },
);

const anyTime: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()) },
  { weight: 1, arbitrary: anyText },
);

const anyEvent: fc.Arbitrary<AlertEvent> = fc.oneof(
  { weight: 9, arbitrary: fc.constantFrom(...EVENTS) },
  { weight: 1, arbitrary: anyText.map((text) => text as AlertEvent) },
);

const anyAlert: fc.Arbitrary<AlertRecord> = fc.record(
  {
    seq: fc.oneof(fc.integer(), fc.double()),
    event: anyEvent,
    at: anyTime,
    from: anyText,
    to: anyText,
    previousSince: anyTime,
    since: anyTime,
    expected: anyText,
    severity: fc.constantFrom('high' as const, 'resolved' as const),
    cycles: fc.oneof(fc.integer(), fc.double()),
    detail: anyText,
  },
  { requiredKeys: ['seq', 'event', 'at'] },
);

const anyNetwork: fc.Arbitrary<NetworkFigures> = fc.record(
  {
    networkId: anyText,
    at: anyTime,
    figures: fc.array(fc.tuple(anyText, fc.double()), { maxLength: 25 }),
    error: anyText,
  },
  { requiredKeys: ['networkId', 'at', 'figures'] },
);

const anyContext = fc.record(
  {
    networks: fc.array(anyNetwork, { maxLength: 8 }),
    monitorName: anyText,
    apiUrl: anyText,
  },
  { requiredKeys: ['networks'] },
);

describe('renderAlert, for any alert and any networks', () => {
  it('keeps every text within what SNS, SMS and email accept', () => {
    fc.assert(
      fc.property(anyAlert, anyContext, (alert, ctx) => {
        // Act
        const rendered = renderAlert(alert, ctx);

        // Assess
        expect(rendered.subject).toMatch(/^[\x20-\x7E]{1,99}$/);
        expect(rendered.sms.length).toBeLessThanOrEqual(160);
        expect(rendered.sms).toMatch(/^[\x20-\x7E]+$/);
        expect(Buffer.byteLength(rendered.email, 'utf8')).toBeLessThanOrEqual(EMAIL_MAX_BYTES);
        expect(rendered.default).toBe(rendered.email);
        // Nothing hidden: no control but the line feed, no format character, no space but U+0020.
        expect(rendered.email).not.toMatch(HIDDEN_IN_EMAIL);
        expect(Object.keys(rendered.attributes)).toContain('event');
        for (const value of Object.values(rendered.attributes)) {
          expect(value.length).toBeGreaterThan(0);
          expect(value.length).toBeLessThanOrEqual(ATTRIBUTE_MAX_CHARS);
          expect(value).not.toMatch(NOT_XML_1_0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('names the new status in the subject and the SMS when it is plain ASCII and short', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-z0-9_-]{0,19}$/),
        fc.stringMatching(/^[a-z][a-z0-9_-]{0,19}$/),
        (from, to) => {
          // Act
          const rendered = renderAlert(
            { seq: 1, event: 'filter.status_changed', at: '2026-11-22T10:04:05.000Z', from, to },
            { networks: [] },
          );

          // Assess
          expect(rendered.subject).toBe(`[shieldwatch] Filter status changed: ${from} -> ${to}`);
          expect(rendered.sms).toContain(`is now "${to}" (was "${from}")`);
          expect(rendered.attributes).toEqual({ event: 'filter.status_changed', from, to });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('renderAlert, for two different statuses (issue 15.8)', () => {
  const NOTE = 'differ only in invisible or look-alike characters';

  it('shows them differently in the subject and the SMS, or says that they differ only in such characters', () => {
    fc.assert(
      fc.property(
        lookAlikeStatus,
        lookAlikeStatus,
        fc.constantFrom(undefined, 'high' as const, 'resolved' as const),
        (from, to, severity) => {
          fc.pre(from !== to);
          // Act
          const { subject, sms } = renderAlert(
            {
              seq: 1,
              event: 'filter.status_changed',
              at: '2026-11-22T10:04:05.000Z',
              from,
              to,
              ...(severity === undefined ? {} : { severity, expected: 'ON' }),
            },
            { networks: [] },
          );

          // Assess
          const inSubject = /changed( \(look-alike\))?: (.*) -> (.*)$/.exec(subject);
          expect(inSubject).not.toBeNull();
          const [, subjectNote, shownFrom, shownTo] = inSubject ?? [];
          expect(shownFrom !== shownTo || subjectNote !== undefined).toBe(true);
          const inSms =
            /is now "(.*)" \(was "(.*)"(; differ only in invisible or look-alike characters)?\), seen/.exec(
              sms,
            );
          expect(inSms).not.toBeNull();
          const [, smsTo, smsFrom, smsNote] = inSms ?? [];
          expect(smsTo !== smsFrom || smsNote !== undefined).toBe(true);
          // The note is never a false alarm: without the hidden characters and accents, the two are the same
          // (or both are blank: nothing but spaces and invisible characters, shown as `(blank)`).
          if (subjectNote !== undefined || smsNote !== undefined) {
            const blank = (s: string) => asciiFold(s).trim() === '';
            expect(asciiFold(from) === asciiFold(to) || (blank(from) && blank(to))).toBe(true);
            expect(sms).toContain(NOTE);
          }
          expect(subject.length).toBeLessThanOrEqual(99);
          expect(sms.length).toBeLessThanOrEqual(160);
        },
      ),
      // The first example is a counterexample fast-check once found: both blank, shown as `(blank)`.
      { numRuns: 1000, examples: [['\uFE0F', ' ', undefined]] },
    );
  });
});

describe('extractStatus, for any body and any path', () => {
  const anyPath = fc.option(
    fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom(...DEFAULT_STATUS_PATHS, '__proto__'),
    ),
    { nil: undefined },
  );

  it.each([
    { kind: 'JSON', body: fc.jsonValue() },
    { kind: 'anything', body: fc.anything({ withNullPrototype: true, withMap: true, withTypedArray: true }) },
  ])('never throws and keeps its errors short ($kind bodies)', ({ body }) => {
    fc.assert(
      fc.property(body, anyPath, (value, path) => {
        // Act
        const reading = extractStatus(value, path);

        // Assess
        if (reading.ok) {
          expect(typeof reading.status).toBe('string');
        } else {
          expect(reading.error.length).toBeGreaterThan(0);
          expect(reading.error.length).toBeLessThan(200);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('returns a string status exactly as the body holds it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.constantFrom(...DEFAULT_STATUS_PATHS), (status, path) => {
        // Prepare
        const [head, tail] = path.split('.');
        const body = tail === undefined ? { [path]: status } : { [head ?? '']: { [tail]: status } };

        // Act
        const byDefault = extractStatus(body);
        const configured = extractStatus(body, path);

        // Assess
        expect(byDefault).toEqual({ ok: true, status, path });
        expect(configured).toEqual({ ok: true, status, path });
      }),
      { numRuns: 200 },
    );
  });
});

describe('extractFigures, for any body', () => {
  it('never throws and returns at most the cap of finite numbers', () => {
    fc.assert(
      fc.property(fc.anything(), fc.integer({ min: -2, max: 30 }), (body, cap) => {
        // Act
        const figures = extractFigures(body, cap);

        // Assess
        expect(figures.length).toBeLessThanOrEqual(Math.max(0, cap));
        for (const [path, value] of figures) {
          expect(path.length).toBeGreaterThan(0);
          expect(Number.isFinite(value)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('asciiFold and shorten, for any text', () => {
  it('asciiFold gives printable ASCII only', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (text) => {
        // Act
        const folded = asciiFold(text);

        // Assess
        expect(folded).toMatch(/^[\x20-\x7E]*$/);
      }),
      { numRuns: 500 },
    );
  });

  it('asciiFold leaves printable ASCII alone', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
        (text) => {
          // Act
          const folded = asciiFold(text);

          // Assess
          expect(folded).toBe(text);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('shorten never exceeds the limit and marks a cut', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 3, max: 50 }), (text, max) => {
        // Act
        const short = shorten(text, max);

        // Assess
        expect(short.length).toBeLessThanOrEqual(max);
        if (short !== text) {
          expect(short.endsWith('...')).toBe(true);
          expect(text.startsWith(short.slice(0, -3))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
