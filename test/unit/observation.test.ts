import { describe, expect, it } from 'vitest';
import { decide, INITIAL_STATE } from '../../lambda/core/detect/decide.ts';
import {
  MAX_STORED_BODY_BYTES,
  type ObservationContext,
  storedBodyBytes,
  toCycleObservation,
  toSnapshot,
} from '../../lambda/core/detect/observation.ts';
import type { ApiResponse, Snapshot } from '../../lambda/core/types.ts';

const AT = '2026-03-01T10:00:00.123Z';
const CYCLE = 'cycle-1';
const FILTER: ObservationContext = { target: { kind: 'filter' }, at: AT, cycleId: CYCLE };
const NETWORK: ObservationContext = {
  target: { kind: 'network', networkId: 'net/1' },
  at: AT,
  cycleId: CYCLE,
};

/** A 2xx JSON answer, as the client reports it. */
function answer(json: unknown, extra: Partial<ApiResponse> = {}): ApiResponse {
  const text = JSON.stringify(json);
  return {
    ok: true,
    httpStatus: 200,
    latencyMs: 42,
    json,
    text,
    bodyBytes: Buffer.byteLength(text),
    attempts: 1,
    ...extra,
  };
}

function failure(extra: Partial<ApiResponse>): ApiResponse {
  return { ok: false, latencyMs: 42, attempts: 1, ...extra };
}

describe('toSnapshot: filter answers', () => {
  it.each([
    {
      name: 'a string at status',
      json: { status: 'active' },
      path: undefined,
      status: 'active',
      from: 'status',
    },
    {
      name: 'a fallback further down',
      json: { data: { state: 'paused' } },
      path: undefined,
      status: 'paused',
      from: 'data.state',
    },
    { name: 'a number as its JSON text', json: { status: 1 }, path: undefined, status: '1', from: 'status' },
    {
      name: 'a boolean as its JSON text',
      json: { state: false },
      path: undefined,
      status: 'false',
      from: 'state',
    },
    { name: 'the empty string', json: { status: '' }, path: undefined, status: '', from: 'status' },
    {
      name: 'a non-ASCII string, exact',
      json: { status: ' aktiv\u00E9 ' },
      path: undefined,
      status: ' aktiv\u00E9 ',
      from: 'status',
    },
    {
      name: 'the configured path',
      json: { status: 'ignored', data: { filter: { state: 'on' } } },
      path: 'data.filter.state',
      status: 'on',
      from: 'data.filter.state',
    },
    {
      name: 'an array index in the path',
      json: { items: [{ s: 'x' }] },
      path: 'items.0.s',
      status: 'x',
      from: 'items.0.s',
    },
  ])('reads $name', ({ json, path, status, from }) => {
    // Prepare
    const response = answer(json);

    // Act
    const snapshot = toSnapshot(response, { ...FILTER, ...(path === undefined ? {} : { statusPath: path }) });

    // Assess
    expect(snapshot).toStrictEqual<Snapshot>({
      target: { kind: 'filter' },
      at: AT,
      cycleId: CYCLE,
      httpStatus: 200,
      latencyMs: 42,
      bodyText: response.text!,
      bodyBytes: response.bodyBytes!,
      ok: true,
      status,
      statusPath: from,
    });
  });

  it.each([
    {
      name: 'no status at any fallback',
      json: { data: {} },
      path: undefined,
      error: /^no status found at status, state/,
    },
    {
      name: 'only objects at the fallbacks',
      json: { status: { v: 1 }, state: null },
      path: undefined,
      error: /^no status found/,
    },
    { name: 'a JSON null body', json: null, path: undefined, error: /the body is null/ },
    {
      name: 'a missing configured path',
      json: { status: 'x' },
      path: 'data.state',
      error: /"data.state" not found/,
    },
    {
      name: 'an object at the configured path',
      json: { data: { state: {} } },
      path: 'data.state',
      error: /holds an object, not a status/,
    },
    {
      name: 'an array at the configured path',
      json: { data: { state: [1] } },
      path: 'data.state',
      error: /holds an array, not a status/,
    },
  ])('is unreadable (contract, body kept) with $name', ({ json, path, error }) => {
    // Prepare
    const response = answer(json, { httpStatus: 203 });

    // Act
    const snapshot = toSnapshot(response, { ...FILTER, ...(path === undefined ? {} : { statusPath: path }) });

    // Assess
    expect(snapshot).toStrictEqual<Snapshot>({
      target: { kind: 'filter' },
      at: AT,
      cycleId: CYCLE,
      httpStatus: 203,
      latencyMs: 42,
      bodyText: response.text!,
      bodyBytes: response.bodyBytes!,
      ok: false,
      error: expect.stringMatching(error),
      errorKind: 'contract',
    });
  });
});

describe('toSnapshot: what a status number was written as', () => {
  it.each([
    ['9007199254740993', '9007199254740992'],
    ['1e999', '2e999'],
  ])('gives %s and %s different statuses, from the body text', (a, b) => {
    // Prepare: what the client hands over, the text beside its parse
    const responses = [a, b].map((n) => answer(JSON.parse(`{"status":${n}}`), { text: `{"status":${n}}` }));

    // Act
    const [first, second] = responses.map((response) => toSnapshot(response, FILTER));

    // Assess
    expect(first).toMatchObject({ ok: true, status: a });
    expect(second).toMatchObject({ ok: true, status: b });
  });
});

describe('toSnapshot: only the body that will be stored', () => {
  const big = (bytes: number) => answer({ pad: 'x'.repeat(bytes - 10) });

  it.each([
    { name: 'at the limit', bytes: MAX_STORED_BODY_BYTES, kept: true },
    { name: 'one byte over the limit', bytes: MAX_STORED_BODY_BYTES + 1, kept: false },
    { name: 'of 1 MiB', bytes: 1024 * 1024, kept: false },
  ])('keeps a network body $name, or stores its size and why not', ({ bytes, kept }) => {
    // Prepare
    const response = big(bytes);
    expect(Buffer.byteLength(response.text!)).toBe(bytes);

    // Act
    const snapshot = toSnapshot(response, NETWORK);

    // Assess
    expect(snapshot.ok).toBe(true);
    expect(snapshot.bodyBytes).toBe(bytes);
    if (kept) {
      expect(snapshot.bodyText).toBe(response.text);
      expect(snapshot.error).toBeUndefined();
    } else {
      expect(snapshot.bodyText).toBeUndefined();
      expect(snapshot.error).toBe(`body too large to store (${bytes} bytes, limit ${MAX_STORED_BODY_BYTES})`);
    }
  });

  it('counts UTF-8 bytes, not characters: 150,001 two-byte characters are too large', () => {
    const response = answer({ s: '\u00e9'.repeat(150_001) });

    const snapshot = toSnapshot(response, NETWORK);

    expect(snapshot.bodyText).toBeUndefined();
    expect(snapshot.error).toMatch(/^body too large to store \(300010 bytes/);
  });

  it.each([
    { budget: 0, kept: false },
    { budget: 13, kept: false },
    { budget: 14, kept: true },
  ])('keeps a 14-byte body within a budget of $budget bytes: $kept', ({ budget, kept }) => {
    // Prepare
    const response = answer({ pps: 123456 });

    // Act
    const snapshot = toSnapshot(response, { ...NETWORK, bodyBudgetBytes: budget });

    // Assess
    expect(storedBodyBytes(snapshot)).toBe(kept ? 14 : 0);
    expect(snapshot.ok).toBe(true);
    if (!kept)
      expect(snapshot.error).toBe(
        "body not stored (14 bytes): this cycle's budget for stored bodies is spent",
      );
  });

  it('still reads the status of a filter body too large to store, and says both when it is unreadable', () => {
    const readable = toSnapshot(answer({ status: 'on', pad: 'x'.repeat(MAX_STORED_BODY_BYTES) }), FILTER);
    const unreadable = toSnapshot(answer({ pad: 'x'.repeat(MAX_STORED_BODY_BYTES) }), FILTER);

    expect(readable).toMatchObject({
      ok: true,
      status: 'on',
      error: expect.stringMatching(/^body too large/),
    });
    expect(readable.bodyText).toBeUndefined();
    expect(unreadable).toMatchObject({ ok: false, errorKind: 'contract' });
    expect(unreadable.error).toMatch(/^no status found at .*; body too large to store/);
  });
});

describe('toSnapshot: failed requests', () => {
  it.each([
    {
      name: 'a transport failure',
      response: failure({ errorKind: 'transport', error: 'timed out after 5000 ms', latencyMs: 5000.4 }),
      expected: { latencyMs: 5000, ok: false, error: 'timed out after 5000 ms', errorKind: 'transport' },
    },
    {
      name: 'a 503',
      response: failure({ httpStatus: 503, errorKind: 'server', error: 'HTTP 503' }),
      expected: { httpStatus: 503, latencyMs: 42, ok: false, error: 'HTTP 503', errorKind: 'server' },
    },
    {
      name: 'a 401',
      response: failure({ httpStatus: 401, errorKind: 'auth', error: 'HTTP 401' }),
      expected: { httpStatus: 401, latencyMs: 42, ok: false, error: 'HTTP 401', errorKind: 'auth' },
    },
    {
      name: 'a 2xx body that is not JSON: its text is not stored, its size is',
      response: failure({
        httpStatus: 200,
        errorKind: 'contract',
        error: 'body is not JSON (content-type: text/html)',
        text: '<html>maintenance</html>',
        bodyBytes: 24,
      }),
      expected: {
        httpStatus: 200,
        latencyMs: 42,
        bodyBytes: 24,
        ok: false,
        error: 'body is not JSON (content-type: text/html)',
        errorKind: 'contract',
      },
    },
    {
      name: 'a failure without an error text or kind',
      response: failure({ latencyMs: 0.4 }),
      expected: { latencyMs: 0, ok: false, error: 'request failed' },
    },
  ])('records $name, for the filter and for a network', ({ response, expected }) => {
    // Act
    const filter = toSnapshot(response, FILTER);
    const network = toSnapshot(response, NETWORK);

    // Assess
    expect(filter).toStrictEqual({ target: { kind: 'filter' }, at: AT, cycleId: CYCLE, ...expected });
    expect(network).toStrictEqual({ target: NETWORK.target, at: AT, cycleId: CYCLE, ...expected });
  });
});

describe('toSnapshot: network answers', () => {
  it.each([
    { name: 'figures', json: { pps: 10, bps: 20 } },
    { name: 'a status-like field, not read', json: { status: 'degraded' } },
    { name: 'a body with no status at all', json: [1, 2, 3] },
  ])('stores $name as an ok snapshot without a status', ({ json }) => {
    // Prepare
    const response = answer(json, { latencyMs: 7.5 });

    // Act
    const snapshot = toSnapshot(response, { ...NETWORK, statusPath: 'status' });

    // Assess
    expect(snapshot).toStrictEqual<Snapshot>({
      target: { kind: 'network', networkId: 'net/1' },
      at: AT,
      cycleId: CYCLE,
      httpStatus: 200,
      latencyMs: 8,
      bodyText: JSON.stringify(json),
      bodyBytes: response.bodyBytes!,
      ok: true,
    });
  });

  it('stores no body text when the client kept none', () => {
    // Prepare
    const response: ApiResponse = { ok: true, httpStatus: 200, latencyMs: 1, json: { pps: 1 }, attempts: 2 };

    // Act
    const snapshot = toSnapshot(response, NETWORK);

    // Assess
    expect(snapshot).toStrictEqual({
      target: NETWORK.target,
      at: AT,
      cycleId: CYCLE,
      httpStatus: 200,
      latencyMs: 1,
      ok: true,
    });
  });
});

function snap(extra: Partial<Snapshot> & Pick<Snapshot, 'ok'>, networkId?: string): Snapshot {
  return {
    target: networkId === undefined ? { kind: 'filter' } : { kind: 'network', networkId },
    at: AT,
    cycleId: CYCLE,
    latencyMs: 10,
    bodyText: '{"irrelevant":true}',
    ...extra,
  };
}

describe('toCycleObservation', () => {
  it.each([
    {
      name: 'a readable filter and two networks',
      filter: snap({ ok: true, status: 'active', statusPath: 'status', httpStatus: 200 }),
      networks: [
        snap({ ok: true, httpStatus: 200 }, 'a'),
        snap({ ok: false, errorKind: 'transport', error: 'timed out' }, 'b'),
      ],
      expected: {
        filter: { ok: true, status: 'active' },
        outcomes: [
          { ok: true, httpStatus: 200 },
          { ok: true, httpStatus: 200 },
          { ok: false, errorKind: 'transport', error: 'timed out' },
        ],
      },
    },
    {
      name: 'the empty status',
      filter: snap({ ok: true, status: '', httpStatus: 200 }),
      networks: [],
      expected: { filter: { ok: true, status: '' }, outcomes: [{ ok: true, httpStatus: 200 }] },
    },
    {
      name: 'a 2xx filter answer without a status',
      filter: snap({ ok: false, errorKind: 'contract', error: 'no status found', httpStatus: 200 }),
      networks: [],
      expected: {
        filter: { ok: false, error: 'no status found', errorKind: 'contract', httpStatus: 200 },
        outcomes: [{ ok: false, errorKind: 'contract', error: 'no status found', httpStatus: 200 }],
      },
    },
    {
      name: 'a filter transport failure',
      filter: snap({ ok: false, errorKind: 'transport', error: 'connection refused' }),
      networks: [snap({ ok: false, errorKind: 'auth', error: 'HTTP 401', httpStatus: 401 }, 'a')],
      expected: {
        filter: { ok: false, error: 'connection refused', errorKind: 'transport' },
        outcomes: [
          { ok: false, errorKind: 'transport', error: 'connection refused' },
          { ok: false, errorKind: 'auth', error: 'HTTP 401', httpStatus: 401 },
        ],
      },
    },
    {
      name: 'an ok filter snapshot without a status (unreadable, never a status)',
      filter: snap({ ok: true, httpStatus: 200 }),
      networks: [],
      expected: {
        filter: { ok: false, error: 'status unreadable', httpStatus: 200 },
        outcomes: [{ ok: true, httpStatus: 200 }],
      },
    },
    {
      name: 'no filter (a network-only cycle)',
      filter: undefined,
      networks: [
        snap({ ok: true, httpStatus: 200 }, 'a'),
        snap({ ok: false, errorKind: 'server', error: 'HTTP 502', httpStatus: 502 }, 'b'),
      ],
      expected: {
        outcomes: [
          { ok: true, httpStatus: 200 },
          { ok: false, errorKind: 'server', error: 'HTTP 502', httpStatus: 502 },
        ],
      },
    },
    { name: 'nothing polled', filter: undefined, networks: [], expected: { outcomes: [] } },
  ])('reduces $name', ({ filter, networks, expected }) => {
    // Act
    const observation = toCycleObservation(AT, filter, networks);

    // Assess
    expect(observation).toStrictEqual({ at: AT, ...expected });
  });

  it('takes the cycle time it is given, not the snapshots’', () => {
    // Act
    const observation = toCycleObservation('2026-03-01T11:00:00.000Z', snap({ ok: true, status: 'on' }), []);

    // Assess
    expect(observation.at).toBe('2026-03-01T11:00:00.000Z');
  });
});

describe('from answers to decisions', () => {
  it.each([
    {
      name: 'a 2xx body without a status is an unreadable status',
      response: answer({ message: 'hello' }),
      event: 'filter.status_unreadable',
    },
    {
      name: 'a 2xx body that is not JSON is an unreadable status',
      response: failure({ httpStatus: 200, errorKind: 'contract', error: 'body is not JSON', text: 'oops' }),
      event: 'filter.status_unreadable',
    },
    {
      name: 'a 401 is a rejected key',
      response: failure({ httpStatus: 401, errorKind: 'auth', error: 'HTTP 401' }),
      event: 'api.auth_failed',
    },
    {
      name: 'a time-out is unreachable',
      response: failure({ errorKind: 'transport', error: 'timed out' }),
      event: 'api.unreachable',
    },
  ])('$name', ({ response, event }) => {
    // Prepare
    const filter = toSnapshot(response, FILTER);

    // Act
    const decision = decide(INITIAL_STATE, toCycleObservation(AT, filter, []), {
      alertAfter: 1,
      confirmations: 1,
    });

    // Assess
    expect(decision.alerts.map((a) => a.event)).toEqual([event]);
    expect(decision.state.status).toBeUndefined();
  });

  it('a readable status becomes the baseline', () => {
    // Prepare
    const filter = toSnapshot(answer({ data: { status: 7 } }), FILTER);

    // Act
    const decision = decide(INITIAL_STATE, toCycleObservation(AT, filter, []), {
      alertAfter: 1,
      confirmations: 1,
    });

    // Assess
    expect(decision.alerts).toEqual([]);
    expect(decision.state.status).toBe('7');
    expect(decision.state.statusSince).toBe(AT);
  });
});
