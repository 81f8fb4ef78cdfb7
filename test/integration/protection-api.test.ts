/**
 * The protection API client against a real loopback HTTP server (test/fixtures/fake-api.ts).
 * Time-outs and delays are short so the file runs in a few seconds.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_USER_AGENT,
  networkPath,
  ProtectionApiClient,
  type ProtectionApiOptions,
} from '../../lambda/adapters/protection-api.ts';
import type { ApiResponse } from '../../lambda/core/types.ts';
import { type FakeApi, type Reply, startFakeApi } from '../fixtures/fake-api.ts';

/** Distinctive, so a leak anywhere in a result is found by a plain substring search. */
const KEY = 'sk-live-DISTINCTIVE-9f8e7d6c5b4a';
const CHUNK = 64 * 1024;

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function fakeApi(options: Parameters<typeof startFakeApi>[0] = {}): Promise<FakeApi> {
  const api = await startFakeApi({ key: KEY, ...options });
  cleanups.push(() => api.close());
  return api;
}

function client(baseUrl: string, options: Partial<ProtectionApiOptions> = {}, dispatcher?: Dispatcher) {
  const created = new ProtectionApiClient(
    {
      baseUrl,
      apiKey: async () => KEY,
      timeoutMs: 1000,
      maxBodyBytes: 1024 * 1024,
      concurrency: 4,
      retries: 0,
      retryBaseDelayMs: 10,
      retryMaxDelayMs: 100,
      ...options,
    },
    dispatcher,
  );
  cleanups.push(() => created.close());
  return created;
}

/** A plain loopback server that only counts what it receives (a redirect target, a free port). */
async function countingServer(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}`, hits: () => hits, close };
}

/** Answers from a list, one reply per request; the last one repeats. */
function sequence(...replies: Reply[]): () => Reply {
  let index = 0;
  return () => replies[Math.min(index++, replies.length - 1)]!;
}

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; elapsedMs: number }> {
  const started = performance.now();
  const result = await run();
  return { result, elapsedMs: performance.now() - started };
}

describe('request shape', () => {
  it('sends GET with the bearer key, Accept JSON, a User-Agent and no body on every endpoint', async () => {
    // Prepare
    const api = await fakeApi();
    const sut = client(api.url);

    // Act
    const results = [await sut.getUser(), await sut.getFilterStatus(), await sut.getNetworkRealtime('net-1')];

    // Assess
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(api.requests.map((r) => r.url)).toEqual([
      '/api/user',
      '/api/filter/status',
      '/api/networks/net-1/realtime',
    ]);
    for (const request of api.requests) {
      expect(request.method).toBe('GET');
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.headers.accept).toBe('application/json');
      expect(request.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
      expect(request.headers['content-length']).toBeUndefined();
      expect(request.headers['transfer-encoding']).toBeUndefined();
    }
    expect(DEFAULT_USER_AGENT).toMatch(/^shieldwatch\/\d+\.\d+\.\d+/);
  });

  it('uses the userAgent option', async () => {
    const api = await fakeApi();

    await client(api.url, { userAgent: 'probe/9' }).getFilterStatus();

    expect(api.requests[0]?.headers['user-agent']).toBe('probe/9');
  });

  it.each(['/v1', '/v1/'])('keeps the base URL path prefix (%s)', async (suffix) => {
    const api = await fakeApi({ basePath: '/v1' });
    const base = api.url.replace(/\/v1$/, '') + suffix;

    const result = await client(base).getNetworkRealtime('n');

    expect(result.ok).toBe(true);
    expect(api.requests.map((r) => r.url)).toEqual(['/v1/api/networks/n/realtime']);
  });

  it.each([
    ['a/b', '/api/networks/a%2Fb/realtime'],
    ['a?b=1', '/api/networks/a%3Fb%3D1/realtime'],
    ['a#frag', '/api/networks/a%23frag/realtime'],
    ['100%', '/api/networks/100%25/realtime'],
    ['my network', '/api/networks/my%20network/realtime'],
    ['réseau-東京-🛡', `/api/networks/${encodeURIComponent('réseau-東京-🛡')}/realtime`],
    ['.', '/api/networks/%2E/realtime'],
    ['..', '/api/networks/%2E%2E/realtime'],
    ['...', '/api/networks/%2E%2E%2E/realtime'],
    ['../../api/user', '/api/networks/..%2F..%2Fapi%2Fuser/realtime'],
    ['.hidden', '/api/networks/.hidden/realtime'],
  ])('sends network id %j as one path segment', async (networkId, rawUrl) => {
    // Prepare
    const api = await fakeApi();
    const seen: string[] = [];
    api.network = (id) => {
      seen.push(id);
      return { body: { id } };
    };

    // Act
    const result = await client(api.url).getNetworkRealtime(networkId);

    // Assess
    expect(networkPath(networkId)).toBe(rawUrl);
    expect(api.requests.map((r) => r.url)).toEqual([rawUrl]);
    expect(seen).toEqual([networkId]);
    expect(result.json).toEqual({ id: networkId });
  });

  it('refuses an empty network id without sending anything', async () => {
    const api = await fakeApi();

    const result = await client(api.url).getNetworkRealtime('');

    expect(result).toMatchObject({ ok: false, errorKind: 'client', attempts: 0 });
    expect(result.error).toMatch(/empty/);
    expect(() => networkPath('')).toThrow(RangeError);
    expect(api.requests).toHaveLength(0);
  });
});

describe('answers', () => {
  it('returns the parsed body, its text, status, size, latency and attempts on success', async () => {
    const api = await fakeApi({ filter: () => ({ body: { status: 'active', n: 1 } }) });

    const result = await client(api.url).getFilterStatus();

    expect(result).toMatchObject({
      ok: true,
      httpStatus: 200,
      json: { status: 'active', n: 1 },
      text: '{"status":"active","n":1}',
      bodyBytes: 25,
      attempts: 1,
    });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(result.error).toBeUndefined();
    expect(result.errorKind).toBeUndefined();
  });

  it('strips a UTF-8 byte order mark before parsing', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"status":"on"}')]);
    const api = await fakeApi({ filter: () => ({ body }) });

    const result = await client(api.url).getFilterStatus();

    expect(result).toMatchObject({
      ok: true,
      json: { status: 'on' },
      text: '{"status":"on"}',
      bodyBytes: 18,
    });
  });

  it('reports a 2xx body that is not JSON as contract, naming the content-type', async () => {
    const api = await fakeApi({
      filter: () => ({ body: '<html>maintenance</html>', headers: { 'content-type': 'text/html' } }),
    });

    const result = await client(api.url).getFilterStatus();

    expect(result).toMatchObject({
      ok: false,
      errorKind: 'contract',
      httpStatus: 200,
      text: '<html>maintenance</html>',
    });
    expect(result.error).toBe('body is not JSON (content-type: text/html)');
    expect(result.json).toBeUndefined();
  });

  it.each([
    { name: 'a byte that never starts a character', bytes: [0xff] },
    { name: 'a sequence cut short', bytes: [0xe6, 0x9d] },
    { name: 'an overlong encoding', bytes: [0xc0, 0xaf] },
    { name: 'an encoded surrogate', bytes: [0xed, 0xa0, 0x80] },
  ])(
    'reports a 2xx body with invalid UTF-8 ($name) as contract, not as replacement characters',
    async ({ bytes }) => {
      // Prepare: two bodies that a lenient decoder would make equal
      const body = Buffer.concat([Buffer.from('{"status":"on'), Buffer.from(bytes), Buffer.from('"}')]);
      const api = await fakeApi({ filter: () => ({ body }) });

      // Act
      const result = await client(api.url).getFilterStatus();

      // Assess
      expect(result).toMatchObject({
        ok: false,
        errorKind: 'contract',
        httpStatus: 200,
        error: 'body is not valid UTF-8',
        bodyBytes: body.length,
      });
      expect(result.json).toBeUndefined();
      expect(result.text).toBeUndefined();
    },
  );

  it('reports an empty 2xx body as contract', async () => {
    const api = await fakeApi({ filter: () => ({ status: 204 }) });

    const result = await client(api.url).getFilterStatus();

    expect(result).toMatchObject({ ok: false, errorKind: 'contract', httpStatus: 204 });
    expect(result.error).toMatch(/^body is empty/);
  });

  it.each([
    [401, 'auth', /^key rejected \(HTTP 401\)/],
    [403, 'auth', /^key rejected \(HTTP 403\)/],
    [429, 'rate_limited', /^rate limited \(HTTP 429\)/],
    [500, 'server', /^server error \(HTTP 500\)/],
    [503, 'server', /^server error \(HTTP 503\)/],
    [400, 'client', /^unexpected answer \(HTTP 400\)/],
    [404, 'client', /^unexpected answer \(HTTP 404\)/],
    [418, 'client', /^unexpected answer \(HTTP 418\)/],
  ] as const)('maps HTTP %i to %s', async (status, kind, message) => {
    const api = await fakeApi({ filter: () => ({ status, body: { error: 'nope' } }) });

    const result = await client(api.url).getFilterStatus();

    expect(result).toMatchObject({ ok: false, errorKind: kind, httpStatus: status, attempts: 1 });
    expect(result.error).toMatch(message);
    expect(result.error).toContain('{"error":"nope"}');
    expect(result.json).toBeUndefined();
  });

  it('reports a wrong key as auth (the fake checks the bearer token)', async () => {
    const api = await fakeApi();

    const result = await client(api.url, { apiKey: async () => 'wrong-key' }).getFilterStatus();

    expect(result).toMatchObject({ ok: false, errorKind: 'auth', httpStatus: 401 });
  });

  it('quotes a non-2xx body as one short line of ASCII', async () => {
    const body = 'Ärger\r\n\tline two \u0000 東京 ' + 'x'.repeat(5000);
    const api = await fakeApi({
      filter: () => ({ status: 502, body, headers: { 'content-type': 'text/plain' } }),
    });

    const result = await client(api.url).getFilterStatus();

    const excerpt = result.error!.replace(/^server error \(HTTP 502\): /, '');
    expect(excerpt.startsWith('rger line two ')).toBe(true);
    expect(excerpt.length).toBeLessThanOrEqual(200);
    expect(excerpt).toMatch(/^[\x20-\x7e]+$/);
  });

  it('does not follow a redirect: the target gets nothing, the error does not name it', async () => {
    // Prepare
    const target = await countingServer();
    cleanups.push(target.close);
    const api = await fakeApi({
      filter: () => ({ status: 302, headers: { location: `${target.url}/api/filter/status?token=abc123` } }),
    });

    // Act
    const result = await client(api.url).getFilterStatus();
    await delay(50);

    // Assess
    expect(result).toMatchObject({ ok: false, errorKind: 'client', httpStatus: 302, attempts: 1 });
    expect(result.error).toBe('redirect (302) not followed (to another origin)');
    expect(result.error).not.toContain('127.0.0.1');
    expect(target.hits()).toBe(0);
  });

  it.each([
    { location: '/api/v2/filter/status?token=abc123', to: 'to the same origin' },
    { location: 'mailto:someone@example.com', to: 'no usable Location' },
    { location: undefined, to: 'no usable Location' },
  ])('says where a redirect to $location points without quoting it', async ({ location, to }) => {
    const api = await fakeApi({
      filter: () => ({ status: 307, ...(location === undefined ? {} : { headers: { location } }) }),
    });

    const result = await client(api.url).getFilterStatus();

    expect(result.error).toBe(`redirect (307) not followed (${to})`);
  });
});

describe('transport failures', () => {
  it('reports a refused connection', async () => {
    const closed = await countingServer();
    await closed.close();

    const result = await client(closed.url).getFilterStatus();

    expect(result).toMatchObject({
      ok: false,
      errorKind: 'transport',
      error: 'connection refused',
      attempts: 1,
    });
    expect(result.httpStatus).toBeUndefined();
  });

  it('reports a reset connection', async () => {
    const api = await fakeApi({ filter: () => ({ destroy: true }) });

    const result = await client(api.url).getFilterStatus();

    expect(result).toMatchObject({ ok: false, errorKind: 'transport', error: 'connection reset' });
  });

  it('reports a TLS failure (https to a plain HTTP port)', async () => {
    const api = await fakeApi();

    const result = await client(api.url.replace('http:', 'https:')).getFilterStatus();

    expect(result).toMatchObject({ ok: false, errorKind: 'transport' });
    expect(result.error).toMatch(/^TLS error/);
  });

  it('reports a DNS failure (from an injected dispatcher)', async () => {
    const failing = fakeDispatcher(
      Object.assign(new Error('getaddrinfo ENOTFOUND api.example'), { code: 'ENOTFOUND' }),
    );

    const result = await client('https://api.example', {}, failing).getFilterStatus();

    expect(result).toMatchObject({
      ok: false,
      errorKind: 'transport',
      error: 'DNS lookup failed (host not found)',
    });
  });

  it('times out on a server that accepts and never answers', async () => {
    const api = await fakeApi({ filter: () => ({ hang: true }) });

    const { result, elapsedMs } = await timed(() => client(api.url, { timeoutMs: 300 }).getFilterStatus());

    expect(result).toMatchObject({ ok: false, errorKind: 'transport', error: 'timed out after 300 ms' });
    expect(elapsedMs).toBeGreaterThanOrEqual(290);
    expect(elapsedMs).toBeLessThan(300 + 200);
  });

  it('times out on a body that stalls after the headers', async () => {
    const api = await fakeApi({
      filter: () => ({ stallBodyAfterHeaders: true, body: { status: 'active' } }),
    });

    const { result, elapsedMs } = await timed(() => client(api.url, { timeoutMs: 300 }).getFilterStatus());

    expect(result).toMatchObject({ ok: false, errorKind: 'transport', httpStatus: 200 });
    expect(result.error).toMatch(/^timed out after 300 ms/);
    expect(elapsedMs).toBeLessThan(300 + 200);
  });

  it('stops at the deadline when it comes before the time-out', async () => {
    const api = await fakeApi({ filter: () => ({ hang: true }) });
    const sut = client(api.url, { timeoutMs: 5000 });

    const { result, elapsedMs } = await timed(() => sut.getFilterStatus({ deadlineMs: Date.now() + 200 }));

    expect(result).toMatchObject({ ok: false, errorKind: 'transport' });
    expect(result.error).toMatch(/^deadline reached/);
    expect(elapsedMs).toBeLessThan(200 + 200);
  });

  it('stops when the signal aborts', async () => {
    const api = await fakeApi({ filter: () => ({ hang: true }) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);

    const { result, elapsedMs } = await timed(() =>
      client(api.url, { timeoutMs: 5000, retries: 3 }).getFilterStatus({ signal: controller.signal }),
    );

    expect(result).toMatchObject({ ok: false, errorKind: 'transport', attempts: 1 });
    expect(result.error).toMatch(/^aborted after \d+ ms$/);
    expect(elapsedMs).toBeLessThan(100 + 200);
  });

  it('names the reason the caller gave for stopping it', async () => {
    const api = await fakeApi({ filter: () => ({ hang: true }) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cycle deadline reached')), 50);

    const result = await client(api.url, { timeoutMs: 5000 }).getFilterStatus({ signal: controller.signal });

    expect(result.error).toMatch(/^cycle deadline reached after \d+ ms$/);
  });

  it('fails a request still queued at the deadline without sending it', async () => {
    // Prepare: one slot, held by a hanging request
    const api = await fakeApi({ filter: () => ({ hang: true }) });
    const sut = client(api.url, { concurrency: 1, timeoutMs: 400 });
    const holder = sut.getFilterStatus();
    await delay(20);

    // Act
    const { result, elapsedMs } = await timed(() => sut.getUser({ deadlineMs: Date.now() + 150 }));

    // Assess
    expect(result).toMatchObject({
      ok: false,
      errorKind: 'transport',
      error: 'deadline reached before the request was sent',
      attempts: 0,
    });
    expect(elapsedMs).toBeLessThan(150 + 100);
    expect(api.requests.map((r) => r.url)).toEqual(['/api/filter/status']);
    await holder;
  });

  it('stops a queued request on abort at once and never sends it, even once a connection is free', async () => {
    // Prepare: one connection, held by a request that hangs until its time-out
    const api = await fakeApi({ filter: () => ({ hang: true }) });
    const sut = client(api.url, { concurrency: 1, timeoutMs: 200, retries: 0 });
    const holder = sut.getFilterStatus();
    await delay(20);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);

    // Act
    const { result, elapsedMs } = await timed(() => sut.getUser({ signal: controller.signal }));
    await holder;
    await delay(100);

    // Assess
    expect(result).toMatchObject({
      ok: false,
      errorKind: 'transport',
      error: 'aborted before the request was sent',
      attempts: 0,
      latencyMs: 0,
    });
    expect(elapsedMs).toBeLessThan(50 + 100);
    expect(api.requests.map((r) => r.url)).toEqual(['/api/filter/status']);
    expect(sut.stats).toMatchObject({ requests: 1, maxInFlight: 1 });
  });

  it('starts the time-out when the slot is taken, not while queued', async () => {
    const api = await fakeApi({ filter: () => ({ delayMs: 200, body: { status: 'active' } }) });
    const sut = client(api.url, { concurrency: 1, timeoutMs: 300 });

    const results = await Promise.all([sut.getFilterStatus(), sut.getFilterStatus()]);

    expect(results.map((r) => r.ok)).toEqual([true, true]);
  });
});

describe('body size cap', () => {
  it('accepts a body of exactly the cap', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(1000 - 10) });
    const api = await fakeApi({ filter: () => ({ body }) });

    const result = await client(api.url, { maxBodyBytes: 1000 }).getFilterStatus();

    expect(Buffer.byteLength(body)).toBe(1000);
    expect(result).toMatchObject({ ok: true, bodyBytes: 1000 });
  });

  it('refuses a body whose Content-Length is over the cap without reading it', async () => {
    // Prepare: 100 MiB announced
    const chunks = 1600;
    const api = await fakeApi({
      filter: () => ({ chunks, headers: { 'content-length': String(chunks * CHUNK) } }),
    });

    // Act
    const result = await client(api.url, { maxBodyBytes: 1024 * 1024 }).getFilterStatus();
    await waitFor(() => api.requests[0]?.aborted === true);

    // Assess
    expect(result).toMatchObject({
      ok: false,
      errorKind: 'contract',
      httpStatus: 200,
      error: 'body larger than 1048576 bytes',
      bodyBytes: chunks * CHUNK,
    });
    expect(result.text).toBeUndefined();
    expect(api.requests[0]!.bytesSent).toBeLessThan((chunks * CHUNK) / 10);
  });

  it('stops reading a streamed body without Content-Length as soon as it passes the cap', async () => {
    // Prepare: 100 MiB, chunked; sample memory while it streams
    const chunks = 1600;
    const api = await fakeApi({ filter: () => ({ chunks }) });
    const sut = client(api.url, { maxBodyBytes: 1024 * 1024 });
    const memory = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const before = memory();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, memory());
    }, 2);

    // Act
    const result = await sut.getFilterStatus();
    clearInterval(sampler);
    await waitFor(() => api.requests[0]?.aborted === true);

    // Assess
    expect(result).toMatchObject({
      ok: false,
      errorKind: 'contract',
      error: 'body larger than 1048576 bytes',
    });
    expect(api.requests[0]!.bytesSent).toBeLessThan((chunks * CHUNK) / 10);
    expect(peak - before).toBeLessThan(32 * 1024 * 1024);
  });
});

describe('the key never leaks', () => {
  it('is absent from every result, even when the server or the HTTP stack echoes it', async () => {
    // Prepare: every reply repeats the Authorization header back
    const echo =
      (status: number, extra: Partial<Reply> = {}) =>
      (req: { headers: http.IncomingHttpHeaders }) => ({
        status,
        body: `echo: ${req.headers.authorization}`,
        headers: { 'content-type': 'text/plain' },
        ...extra,
      });
    const api = await fakeApi();
    const sut = client(api.url);
    const replies = [
      echo(401),
      echo(500),
      echo(429),
      echo(404),
      echo(200),
      (req: { headers: http.IncomingHttpHeaders }) => ({ body: { auth: req.headers.authorization } }),
      (req: { headers: http.IncomingHttpHeaders }) => ({
        status: 301,
        headers: { location: `http://127.0.0.1:1/?k=${req.headers.authorization?.slice(7)}` },
      }),
    ];
    const results: ApiResponse[] = [];

    // Act
    for (const reply of replies) {
      api.filter = reply;
      results.push(await sut.getFilterStatus());
    }
    const echoingError = new Error(`bad header authorization: Bearer ${KEY}`);
    const stack = client('https://api.example', {}, fakeDispatcher(echoingError));
    results.push(await stack.getFilterStatus());

    // Assess
    expect(results.map((r) => r.errorKind)).toEqual([
      'auth',
      'server',
      'rate_limited',
      'client',
      'contract',
      undefined,
      'client',
      'transport',
    ]);
    expect(results[0]!.error).toContain('[REDACTED]');
    expect(results[5]!.json).toEqual({ auth: 'Bearer [REDACTED]' });
    for (const result of results) expect(JSON.stringify(result)).not.toContain(KEY);
  });

  it.each([
    { name: 'JSON-escaped in a 2xx body', status: 200 },
    { name: 'JSON-escaped in an error body', status: 500 },
  ])('is found and scrubbed when it comes back $name', async ({ status }) => {
    // Prepare: every character of the key as a \u escape, and the slash-escaped form in a property name
    const escaped = [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const api = await fakeApi();
    api.filter = () => ({ status, body: `{"status":"on","echo":"${escaped}","${escaped}":1}` });

    // Act
    const result = await client(api.url, { retries: 0 }).getFilterStatus();

    // Assess
    const everything = JSON.stringify(result);
    expect(everything).not.toContain(KEY);
    expect(JSON.stringify(JSON.parse(everything))).not.toContain(KEY);
    if (status === 200) {
      expect(result.json).toEqual({ status: 'on', echo: '[REDACTED]', '[REDACTED]': 1 });
      expect(JSON.parse(result.text!)).toEqual(result.json);
    } else {
      expect(result.error).toContain('[REDACTED]');
    }
  });

  it.each([
    {
      name: 'percent-encoded, every character',
      echo: (key: string) => [...key].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(''),
    },
    { name: 'percent-encoded, some characters', echo: (key: string) => key.replaceAll('-', '%2d') },
    { name: 'in upper case', echo: (key: string) => key.toUpperCase() },
    { name: 'in lower case', echo: (key: string) => key.toLowerCase() },
    { name: 'as its first 12 characters', echo: (key: string) => key.slice(0, 12) },
    { name: 'as its last 9 characters, in upper case', echo: (key: string) => key.slice(-9).toUpperCase() },
  ])('is scrubbed from 2xx and error bodies when echoed $name', async ({ echo }) => {
    // Prepare
    const form = echo(KEY);
    const api = await fakeApi();
    const sut = client(api.url, { retries: 0 });

    // Act
    api.filter = () => ({ body: `{"status":"on","echo":"x${form}y","${form}":1}` });
    const ok = await sut.getFilterStatus();
    api.filter = () => ({
      status: 500,
      body: `trace: key=${form}; more`,
      headers: { 'content-type': 'text/plain' },
    });
    const failed = await sut.getFilterStatus();

    // Assess
    expect(ok.json).toEqual({ status: 'on', echo: 'x[REDACTED]y', '[REDACTED]': 1 });
    expect(ok.text).toBe('{"status":"on","echo":"x[REDACTED]y","[REDACTED]":1}');
    expect(failed.error).toBe('server error (HTTP 500): trace: key=[REDACTED]; more');
  });

  it('keeps the numbers of a body whose digits repeat the key, and scrubs the key from its strings (issue 19.5)', async () => {
    // Prepare: the key, whose digits stand whole in a counter; the key also echoed in a string and a name
    const key = 'sk-live-8402917365ab';
    const api = await fakeApi({ key });
    const body = `{"traffic":{"in":{"pps":184029173650}},"ids":[8402917365],"echo":"Bearer ${key}","${key}":true}`;
    api.network = () => ({ body });
    const sut = client(api.url, { apiKey: async () => key });

    // Act
    const result = await sut.getNetworkRealtime('net-1');

    // Assess: the body is JSON, its numbers intact (as text too), the key gone from its strings
    expect(result.ok).toBe(true);
    expect(result.json).toEqual({
      traffic: { in: { pps: 184029173650 } },
      ids: [8402917365],
      echo: 'Bearer [REDACTED]',
      '[REDACTED]': true,
    });
    expect(result.text).toBe(
      '{"traffic":{"in":{"pps":184029173650}},"ids":[8402917365],"echo":"Bearer [REDACTED]","[REDACTED]":true}',
    );
    expect(result.bodyBytes).toBe(Buffer.byteLength(body));
    expect(JSON.stringify(result)).not.toMatch(/sk-live-|7365ab/i);
  });

  it.each([
    { name: 'a 2xx that is not JSON', status: 200, field: 'text' as const },
    { name: 'an error', status: 502, field: 'error' as const },
  ])('still scrubs the key, beside its digits in a number, from $name', async ({ status, field }) => {
    // Prepare: an unparseable body (a number cut short) with the key and a counter holding its digits
    const key = 'sk-live-8402917365ab';
    const api = await fakeApi({ key });
    api.network = () => ({
      status,
      body: `{"pps":184029173650,"echo":"${key}",`,
      headers: { 'content-type': 'application/json' },
    });

    // Act
    const result = await client(api.url, { apiKey: async () => key }).getNetworkRealtime('net-1');

    // Assess: as text, the key's fragments go wherever they stand, numbers included (the text is no JSON)
    expect(result.ok).toBe(false);
    expect(result[field]).toContain('[REDACTED]');
    expect(JSON.stringify(result)).not.toMatch(/sk-live-|84029173|40291736|02917365/i);
  });

  it('names no host of a redirect, which may be the key itself', async () => {
    // Prepare: the redirect's host is the key, in another case
    const api = await fakeApi();
    api.filter = () => ({ status: 302, headers: { location: `https://${KEY.toUpperCase()}.example/x` } });

    // Act
    const result = await client(api.url).getFilterStatus();

    // Assess
    expect(result.error).toBe('redirect (302) not followed (to another origin)');
  });

  it('leaves no fragment of the key where the client stops reading an error body', async () => {
    // Prepare: the key begins 12 characters before the end of what is read (4 KiB); spaces collapse
    const api = await fakeApi();
    api.filter = () => ({
      status: 500,
      body: `${' '.repeat(4096 - 12)}${KEY} and more`,
      headers: { 'content-type': 'text/plain' },
    });

    // Act
    const result = await client(api.url, { retries: 0 }).getFilterStatus();

    // Assess
    expect(result.error).toBe('server error (HTTP 500): [REDACTED]');
  });

  it('leaves no fragment of the key in an error, wherever near the end of the read it stands', async () => {
    // Prepare: the key at every offset around the 4 KiB the client reads of an error body, after filler
    // that collapses (spaces) or turns into spaces (two-byte characters, cut anywhere)
    const api = await fakeApi();
    const sut = client(api.url, { retries: 0 });
    const fragments = Array.from({ length: KEY.length - 7 }, (_, i) => KEY.slice(i, i + 8).toLowerCase());
    const leaks: string[] = [];

    // Act
    for (const filler of [' ', '\u00e9']) {
      const unit = Buffer.byteLength(filler);
      for (let bytes = 4096 - KEY.length - 2; bytes <= 4096 + 1; bytes++) {
        const body = Buffer.concat([
          Buffer.from(filler.repeat(Math.ceil(bytes / unit))).subarray(0, bytes),
          Buffer.from(`${KEY} tail`),
        ]);
        api.filter = () => ({ status: 503, body, headers: { 'content-type': 'text/plain' } });
        const error = (await sut.getFilterStatus()).error!.toLowerCase();
        if (fragments.some((fragment) => error.includes(fragment))) leaks.push(`${bytes}: ${error}`);
      }
    }

    // Assess
    expect(leaks).toEqual([]);
  });

  it('leaves no fragment of the key where an error excerpt is cut', async () => {
    // Prepare: the key straddles the 200-character cut of the excerpt
    const api = await fakeApi();
    api.filter = () => ({
      status: 500,
      body: `${'x'.repeat(190)}${KEY}`,
      headers: { 'content-type': 'text/plain' },
    });

    // Act
    const result = await client(api.url, { retries: 0 }).getFilterStatus();

    // Assess
    expect(result.error).not.toContain(KEY.slice(0, 8));
    expect(result.error).toMatch(/x+\[REDACTED\]|x+\.\.\./);
  });
});

describe('hostile shapes', () => {
  it('refuses a body nested deeper than the limit, without recursion', async () => {
    // Prepare
    const api = await fakeApi();
    api.filter = () => ({ body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` });

    // Act
    const result = await client(api.url).getFilterStatus();

    // Assess
    expect(result).toMatchObject({ ok: false, errorKind: 'contract', httpStatus: 200 });
    expect(result.error).toMatch(/nested \d+ levels deep \(at most 64\)/);
    expect(result.json).toBeUndefined();
  });
});

describe('retries', () => {
  it('retries a 500 and succeeds on the second attempt', async () => {
    const api = await fakeApi({ filter: sequence({ status: 500 }, { body: { status: 'active' } }) });

    const result = await client(api.url, { retries: 2 }).getFilterStatus();

    expect(result).toMatchObject({ ok: true, attempts: 2, json: { status: 'active' } });
    expect(api.requests).toHaveLength(2);
  });

  it('retries a transport failure', async () => {
    const api = await fakeApi({ filter: sequence({ destroy: true }, { body: { status: 'active' } }) });

    const result = await client(api.url, { retries: 2 }).getFilterStatus();

    expect(result).toMatchObject({ ok: true, attempts: 2 });
  });

  it('gives up after the configured retries and returns the last failure', async () => {
    const api = await fakeApi({ filter: () => ({ status: 503, body: 'down' }) });

    const result = await client(api.url, { retries: 2 }).getFilterStatus();

    expect(result).toMatchObject({ ok: false, errorKind: 'server', httpStatus: 503, attempts: 3 });
    expect(api.requests).toHaveLength(3);
  });

  it('honours Retry-After in seconds on a 429', async () => {
    const api = await fakeApi({
      filter: sequence({ status: 429, headers: { 'retry-after': '1' } }, { body: { status: 'active' } }),
    });

    const { result, elapsedMs } = await timed(() =>
      client(api.url, { retries: 1, retryMaxDelayMs: 5000 }).getFilterStatus(),
    );

    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(elapsedMs).toBeGreaterThanOrEqual(980);
    expect(elapsedMs).toBeLessThan(1400);
  });

  it('caps Retry-After at retryMaxDelayMs', async () => {
    const api = await fakeApi({
      filter: sequence({ status: 429, headers: { 'retry-after': '30' } }, { body: { status: 'active' } }),
    });

    const { result, elapsedMs } = await timed(() =>
      client(api.url, { retries: 1, retryMaxDelayMs: 100 }).getFilterStatus(),
    );

    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(elapsedMs).toBeGreaterThanOrEqual(95);
    expect(elapsedMs).toBeLessThan(400);
  });

  it('honours Retry-After as an HTTP-date on a 503', async () => {
    const api = await fakeApi({
      filter: sequence(
        { status: 503, headers: { 'retry-after': new Date(Date.now() + 5000).toUTCString() } },
        { body: { status: 'active' } },
      ),
    });

    const { result, elapsedMs } = await timed(() =>
      client(api.url, { retries: 1, retryBaseDelayMs: 1, retryMaxDelayMs: 250 }).getFilterStatus(),
    );

    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(elapsedMs).toBeGreaterThanOrEqual(245);
  });

  it.each([
    ['auth', { status: 401 }],
    ['client', { status: 404 }],
    ['client', { status: 302, headers: { location: '/elsewhere' } }],
    ['contract', { body: 'not json', headers: { 'content-type': 'text/plain' } }],
  ] as const)('does not retry %s failures (%j)', async (kind, reply) => {
    const api = await fakeApi({ filter: () => ({ ...reply }) });

    const result = await client(api.url, { retries: 3 }).getFilterStatus();

    expect(result).toMatchObject({ ok: false, errorKind: kind, attempts: 1 });
    expect(api.requests).toHaveLength(1);
  });

  it('stops retrying at the deadline and returns the last failure', async () => {
    const api = await fakeApi({ filter: () => ({ status: 500 }) });
    const sut = client(api.url, { retries: 20, retryBaseDelayMs: 100, retryMaxDelayMs: 100 });

    const { result, elapsedMs } = await timed(() => sut.getFilterStatus({ deadlineMs: Date.now() + 250 }));

    expect(result).toMatchObject({ ok: false, errorKind: 'server', httpStatus: 500 });
    expect(result.attempts).toBeLessThan(21);
    expect(elapsedMs).toBeLessThan(250 + 50);
  });

  it('stops waiting for a retry when the signal aborts', async () => {
    const api = await fakeApi({ filter: () => ({ status: 429, headers: { 'retry-after': '5' } }) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);

    const { result, elapsedMs } = await timed(() =>
      client(api.url, { retries: 3, retryMaxDelayMs: 5000 }).getFilterStatus({ signal: controller.signal }),
    );

    expect(result).toMatchObject({ ok: false, errorKind: 'rate_limited', attempts: 1 });
    expect(elapsedMs).toBeLessThan(100 + 150);
  });

  it('releases the slot while waiting to retry', async () => {
    // Prepare: one slot; the filter is rate limited once, the user endpoint answers at once
    const api = await fakeApi({
      filter: sequence({ status: 429, headers: { 'retry-after': '1' } }, { body: { status: 'active' } }),
    });
    const sut = client(api.url, { concurrency: 1, retries: 1, retryMaxDelayMs: 300 });

    // Act
    const filter = sut.getFilterStatus();
    await delay(50);
    const user = await sut.getUser();

    // Assess
    expect(user.ok).toBe(true);
    expect((await filter).ok).toBe(true);
    expect(api.requests.map((r) => r.url)).toEqual(['/api/filter/status', '/api/user', '/api/filter/status']);
  });
});

describe('concurrency and connections', () => {
  it('keeps at most `concurrency` requests in flight over at most that many connections', async () => {
    // Prepare
    const api = await fakeApi({ network: (id) => ({ delayMs: 100, body: { id } }) });
    const sut = client(api.url, { concurrency: 4 });
    const ids = Array.from({ length: 20 }, (_, i) => `net-${i}`);

    // Act
    const { result, elapsedMs } = await timed(() => Promise.all(ids.map((id) => sut.getNetworkRealtime(id))));

    // Assess
    expect(result.every((r) => r.ok)).toBe(true);
    expect(api.maxInFlight()).toBe(4);
    expect(api.connections()).toBeLessThanOrEqual(4);
    expect(sut.stats).toEqual({ requests: 20, maxInFlight: 4, connections: api.connections() });
    expect(elapsedMs).toBeGreaterThanOrEqual(5 * 100 - 10);
    expect(elapsedMs).toBeLessThan(5 * 100 + 300);
  });

  it('reuses its keep-alive connections for the next batch', async () => {
    const api = await fakeApi({ network: (id) => ({ delayMs: 20, body: { id } }) });
    const sut = client(api.url, { concurrency: 4 });
    const batch = () => Promise.all(Array.from({ length: 8 }, (_, i) => sut.getNetworkRealtime(`n${i}`)));
    await batch();
    const opened = api.connections();

    const second = await batch();

    expect(second.every((r) => r.ok)).toBe(true);
    expect(opened).toBeLessThanOrEqual(4);
    expect(api.connections()).toBe(opened);
    expect(sut.stats.connections).toBe(opened);
  });
});

/** A dispatcher that fails every request with `error`, as undici would on a network problem. */
function fakeDispatcher(error: Error): Dispatcher {
  const emitter = new EventEmitter();
  return Object.assign(emitter, {
    request: () => Promise.reject(error),
    close: () => Promise.resolve(),
  }) as unknown as Dispatcher;
}

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await delay(5);
  }
}
