import { describe, expect, it } from 'vitest';
import {
  type Answer,
  classifyAnswer,
  MAX_BODY_DEPTH,
  parseRetryAfter,
} from '../../lambda/core/detect/answer.ts';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);
const ORIGIN = 'https://api.example';

function answer(status: number, text = '', extra: Partial<Answer> = {}): Answer {
  return { status, origin: ORIGIN, text, nowMs: NOW, ...extra };
}

describe('classifyAnswer', () => {
  it.each([
    [200, '{"status":"active"}', { status: 'active' }],
    [204, '[]', []],
    [299, '"on"', 'on'],
    [200, ' 42 ', 42],
  ])('takes a %i with JSON %j as ok', (status, text, json) => {
    expect(classifyAnswer(answer(status, text))).toEqual({
      response: { ok: true, httpStatus: status, json, text },
    });
  });

  it.each([
    ['', 'text/plain', 'body is empty (content-type: text/plain)'],
    ['  \n', undefined, 'body is empty (content-type: none)'],
    [
      '<html>hi</html>',
      'text/html; charset=utf-8',
      'body is not JSON (content-type: text/html; charset=utf-8)',
    ],
    ['{"a":', 'application/json', 'body is not JSON (content-type: application/json)'],
  ])('takes a 2xx with %j (%s) as a contract failure that keeps the text', (text, contentType, error) => {
    expect(classifyAnswer(answer(200, text, { contentType }))).toEqual({
      response: { ok: false, errorKind: 'contract', httpStatus: 200, error, text },
    });
  });

  it.each([
    [MAX_BODY_DEPTH, true],
    [MAX_BODY_DEPTH + 1, false],
  ])('takes a body nested %i deep as ok: %s', (depth, ok) => {
    const text = '['.repeat(depth) + ']'.repeat(depth);
    const { response } = classifyAnswer(answer(200, text));
    expect(response.ok).toBe(ok);
    if (!ok) expect(response.error).toBe(`body nested ${depth} levels deep (at most ${MAX_BODY_DEPTH})`);
  });

  it('counts brackets inside strings as text, not nesting', () => {
    const text = JSON.stringify({ s: '['.repeat(MAX_BODY_DEPTH * 2) });
    expect(classifyAnswer(answer(200, text)).response.ok).toBe(true);
  });

  it.each([
    [301, '/elsewhere', 'redirect (301) not followed (to the same origin)'],
    [302, 'https://api.example:443/x', 'redirect (302) not followed (to the same origin)'],
    [307, 'https://sk-live-key.evil.example/?k=1', 'redirect (307) not followed (to another origin)'],
    [308, undefined, 'redirect (308) not followed (no usable Location)'],
    [303, 'http://[bad', 'redirect (303) not followed (no usable Location)'],
  ])('words a %i to %j without naming it', (status, location, error) => {
    expect(classifyAnswer(answer(status, 'https://sk-live-key.evil.example', { location }))).toEqual({
      response: { ok: false, errorKind: 'client', httpStatus: status, error },
    });
  });

  it.each([
    [401, '', undefined, 'auth', 'key rejected (HTTP 401)', undefined],
    [
      403,
      '{"error":"forbidden"}',
      undefined,
      'auth',
      'key rejected (HTTP 403): {"error":"forbidden"}',
      undefined,
    ],
    [429, '', '3', 'rate_limited', 'rate limited (HTTP 429, Retry-After 3 s)', 3000],
    [429, 'slow down', undefined, 'rate_limited', 'rate limited (HTTP 429): slow down', undefined],
    [503, 'busy', '120', 'server', 'server error (HTTP 503, Retry-After 120 s): busy', 120_000],
    [500, 'oops', '3', 'server', 'server error (HTTP 500): oops', undefined],
    [
      404,
      'no\n\tsuch   network',
      undefined,
      'client',
      'unexpected answer (HTTP 404): no such network',
      undefined,
    ],
    [418, '', '3', 'client', 'unexpected answer (HTTP 418)', undefined],
    [101, '', undefined, 'client', 'unexpected answer (HTTP 101)', undefined],
  ])('takes a %i with body %j and Retry-After %j as %s', (status, text, retryAfter, kind, error, wait) => {
    const classified = classifyAnswer(answer(status, text, { retryAfter }));
    expect(classified.response).toEqual({ ok: false, errorKind: kind, httpStatus: status, error });
    expect(classified.retryAfterMs).toBe(wait);
  });

  it('quotes at most 200 characters of one line of printable ASCII', () => {
    const { response } = classifyAnswer(answer(500, `${'é'.repeat(3)}${'x'.repeat(500)}`));
    const excerpt = response.error!.replace('server error (HTTP 500): ', '');
    expect(excerpt).toHaveLength(200);
    expect(excerpt).toMatch(/^x+\.\.\.$/);
  });

  it.each([
    ['plain, where the cut would leave a fragment', `${'y'.repeat(190)} SECRETKEY and more`],
    ['JSON-escaped', `${'y'.repeat(10)} \\u0053ECRETKEY\\/`],
  ])('scrubs the key (%s) before it cuts the excerpt', (_, text) => {
    // Prepare
    const scrub = (text: string) => text.replaceAll('SECRETKEY', '[redacted]');

    // Act
    const { response } = classifyAnswer(answer(401, text), { text: scrub, json: scrub });

    // Assess
    expect(response.error).not.toMatch(/SECRE|ECRETKEY/);
    expect(response.error!.length).toBeLessThanOrEqual('key rejected (HTTP 401): '.length + 200);
  });

  it('scrubs the text it keeps of a non-JSON 2xx', () => {
    const scrub = (text: string) => text.replaceAll('SECRETKEY', '[redacted]');
    const { response } = classifyAnswer(answer(200, 'echo SECRETKEY'), { text: scrub, json: scrub });
    expect(response.text).toBe('echo [redacted]');
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    [' 5 ', 5000],
    ['Sun, 22 Nov 2026 10:00:30 GMT', 30_000],
    ['Sun, 22 Nov 2026 09:00:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
    [['1', '2'], undefined],
  ])('reads %j as %j ms from now', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });
});
