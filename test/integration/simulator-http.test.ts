/**
 * The protection API simulator's HTTP side (cli/simulator/), observed through our own client: the control
 * endpoint, routing and the Bearer check, every fault kind, the loopback-only listener and a prompt close.
 */
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { CONTROL_PATH } from '../../cli/simulator/control.ts';
import { statusPathFor } from '../../cli/simulator/scenario.ts';
import { type Simulator, startSimulator } from '../../cli/simulator/server.ts';
import { extractStatus } from '../../lambda/core/detect/status.ts';
import { client, manualClock, realtime, simulator } from '../fixtures/simulator.ts';

describe('holding a status by hand: the control endpoint', () => {
  const control = (sim: Simulator, init: { method?: string; body?: string; key?: string } = {}) =>
    fetch(`${sim.url}${CONTROL_PATH}`, {
      method: init.method ?? 'POST',
      headers: { authorization: `Bearer ${init.key ?? sim.key}`, 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: init.body }),
    });

  it.each([
    { shape: 'flat', held: 'maintenance', served: 'maintenance', back: 'active' },
    { shape: 'nested', held: 'mitigating', served: 'mitigating', back: 'active' },
    { shape: 'numeric', held: 'maintenance', served: '4', back: '1' },
    { shape: 'numeric', held: 'paused-by-admin', served: '10', back: '1' },
    { shape: 'boolean', held: 'mitigating', served: 'false', back: 'true' },
    { shape: 'flat', held: '', served: '', back: 'active' },
  ] as const)(
    '$shape: holds $held (served as "$served") until released',
    async ({ shape, held, served, back }) => {
      // Prepare
      const sim = await simulator({ shape, scenario: 'steady' });
      const api = client(sim);
      const path = statusPathFor(shape);
      const read = async () => {
        const reading = extractStatus((await api.getFilterStatus()).json, path);
        return reading.ok ? reading.status : reading.error;
      };
      const before = await read();

      // Act
      const hold = await control(sim, { body: JSON.stringify({ status: held }) });
      const during = [await read(), await read()];
      const release = await control(sim, { body: JSON.stringify({ status: null }) });
      const after = await read();

      // Assess
      expect(before).toBe(back);
      expect(hold.status).toBe(200);
      expect(await hold.json()).toMatchObject({ status: held, held: true, scenario: 'steady' });
      expect(during).toEqual([served, served]);
      expect(await release.json()).toMatchObject({ status: 'active', held: false });
      expect(after).toBe(back);
    },
  );

  it('asks for the API key, refuses bad bodies and other methods, and changes nothing then', async () => {
    // Prepare
    const sim = await simulator({ scenario: 'steady' });

    // Act
    const wrongKey = await control(sim, { key: 'not-the-key', body: '{"status":"mitigating"}' });
    const noKey = await fetch(`${sim.url}${CONTROL_PATH}`, { method: 'POST', body: '{"status":"x"}' });
    const notJson = await control(sim, { body: 'mitigating' });
    const noStatus = await control(sim, { body: '{"state":"mitigating"}' });
    const notText = await control(sim, { body: '{"status":42}' });
    const control_ = await control(sim, { body: '{"status":"a\\u001b[2Jb"}' });
    const tooLong = await control(sim, { body: JSON.stringify({ status: 'x'.repeat(201) }) });
    const huge = await control(sim, { body: JSON.stringify({ status: 'x', pad: 'y'.repeat(10_000) }) }).catch(
      () => 'reset',
    );
    const put = await control(sim, { method: 'PUT', body: '{"status":"x"}' });
    const get = await control(sim, { method: 'GET' });

    // Assess
    expect([wrongKey.status, noKey.status]).toEqual([401, 401]);
    for (const response of [notJson, noStatus, notText, control_, tooLong]) {
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'bad_request' });
    }
    expect(huge === 'reset' || (huge as Response).status === 400).toBe(true);
    expect(put.status).toBe(405);
    expect(await get.json()).toEqual({ status: 'active', held: false, scenario: 'steady', started: false });
    expect(sim.heldStatus).toBeUndefined();
  });

  it('answers even when every API request hangs, and neither draws faults nor starts the clock', async () => {
    // Prepare
    const clock = manualClock();
    const sim = await simulator({ scenario: 'demo', faults: { hangRate: 1 }, now: clock.now });

    // Act
    const held = await control(sim, { body: '{"status":"maintenance"}' });
    clock.advanceTo(10_000);
    const state = await control(sim, { method: 'GET' });

    // Assess
    expect(held.status).toBe(200);
    expect(await state.json()).toEqual({
      status: 'maintenance',
      held: true,
      scenario: 'demo',
      started: false,
    });
    expect(sim.stats.faults.hang).toBe(0);
    expect(sim.startedAt).toBeUndefined();
  });

  it('tells subscribers when the clock starts and when a status is held or released', async () => {
    // Prepare
    const clock = manualClock();
    const sim = await simulator({ scenario: 'steady', now: clock.now });
    const events: unknown[] = [];
    sim.subscribe((event) => events.push(event));

    // Act
    clock.advanceTo(1_000);
    await client(sim).getFilterStatus();
    await client(sim).getFilterStatus();
    clock.advanceTo(2_000);
    sim.setStatus('mitigating');
    clock.advanceTo(3_000);
    sim.setStatus(undefined);

    // Assess
    const t = manualClock().now();
    expect(events).toEqual([
      { kind: 'started', atMs: t + 1_000 },
      { kind: 'held', status: 'mitigating', atMs: t + 2_000 },
      { kind: 'released', atMs: t + 3_000 },
    ]);
    expect(() => sim.setStatus('x'.repeat(201))).toThrow(RangeError);
  });
});

describe('routing and the Bearer check', () => {
  it('refuses a wrong or missing key with a JSON 401, on every endpoint', async () => {
    const sim = await simulator();
    const wrong = client(sim, { apiKey: async () => 'not-the-key' });
    for (const response of [
      await wrong.getUser(),
      await wrong.getFilterStatus(),
      await wrong.getNetworkRealtime('edge-1'),
    ]) {
      expect(response).toMatchObject({ ok: false, errorKind: 'auth', httpStatus: 401 });
    }
    const missing = await fetch(`${sim.url}/api/filter/status`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await missing.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('answers /api/user for the key', async () => {
    const sim = await simulator({ key: 'sk-test-123' });
    const response = await client(sim).getUser();
    expect(response.json).toEqual({
      id: 'usr_demo',
      email: 'demo@example.com',
      name: 'Demo Operator',
      plan: 'pro',
    });
  });

  it('404 JSON for other paths and unknown networks, 405 for other methods, 400 for a bad escape', async () => {
    const sim = await simulator();
    const headers = { authorization: `Bearer ${sim.key}` };
    const unknownPath = await fetch(`${sim.url}/api/filter/status/`, { headers });
    const unknownNetwork = await client(sim).getNetworkRealtime('edge-9');
    const post = await fetch(`${sim.url}/api/filter/status`, { method: 'POST', headers });
    const badEscape = await fetch(`${sim.url}/api/networks/%E0%A4%A/realtime`, { headers });

    expect(unknownPath.status).toBe(404);
    expect(unknownPath.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await unknownPath.json()).toMatchObject({ error: 'not_found' });
    expect(unknownNetwork).toMatchObject({ ok: false, errorKind: 'client', httpStatus: 404 });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect(await post.json()).toMatchObject({ error: 'method_not_allowed' });
    expect(badEscape.status).toBe(400);
  });

  it('decodes the id as one path segment, `/` and `..` included', async () => {
    const sim = await simulator({ networks: ['a/b', '..', 'edge 1?#'] });
    const api = client(sim);
    for (const id of ['a/b', '..', 'edge 1?#']) {
      expect(realtime(await api.getNetworkRealtime(id)).networkId).toBe(id);
    }
    expect(await api.getNetworkRealtime('a')).toMatchObject({ errorKind: 'client', httpStatus: 404 });
    expect(sim.stats.byPath['/api/networks/a%2Fb/realtime']).toBe(1);
    expect(sim.env['SHIELDWATCH_NETWORKS']).toBe('a/b,..,edge 1?#');
  });

  it('`*` accepts any id', async () => {
    const sim = await simulator({ networks: ['*'] });
    expect(realtime(await client(sim).getNetworkRealtime('anything/at all')).networkId).toBe(
      'anything/at all',
    );
    expect(sim.env['SHIELDWATCH_NETWORKS']).toBe('edge-1,edge-2');
  });
});

describe('faults, as our client classifies them', () => {
  it.each([
    { fault: 'errorRate', faults: { errorRate: 1 }, kind: 'server', http: /^50[023]$/ },
    {
      fault: 'rateLimitRate',
      faults: { rateLimitRate: 1, retryAfterSeconds: 7 },
      kind: 'rate_limited',
      http: /^429$/,
    },
    { fault: 'malformedRate', faults: { malformedRate: 1 }, kind: 'contract', http: /^200$/ },
    { fault: 'hangRate', faults: { hangRate: 1 }, kind: 'transport', http: /^$/ },
    { fault: 'authFailRate', faults: { authFailRate: 1 }, kind: 'auth', http: /^401$/ },
  ] as const)('$fault → $kind', async ({ faults, kind, http: httpStatus }) => {
    // Prepare
    const sim = await simulator({ faults });
    const api = client(sim, { timeoutMs: 150 });

    // Act
    const responses = await Promise.all([
      api.getFilterStatus(),
      api.getUser(),
      api.getNetworkRealtime('edge-1'),
      api.getFilterStatus(),
    ]);

    // Assess
    for (const response of responses) {
      expect(response.errorKind).toBe(kind);
      expect(String(response.httpStatus ?? '')).toMatch(httpStatus);
    }
    if (kind === 'rate_limited') expect(responses[0]!.error).toContain('Retry-After 7 s');
  });

  it('malformed bodies are either an HTML page or JSON cut short, both 2xx', async () => {
    const sim = await simulator({ faults: { malformedRate: 1 } });
    const api = client(sim);
    const texts = await Promise.all(Array.from({ length: 12 }, () => api.getFilterStatus()));
    const html = texts.filter((r) => r.text?.startsWith('<html>'));
    const cut = texts.filter((r) => r.text?.startsWith('{'));
    expect(html.length).toBeGreaterThan(0);
    expect(cut.length).toBeGreaterThan(0);
    expect(html.length + cut.length).toBe(12);
    expect(sim.stats.faults.malformed).toBe(12);
  });

  it('latency and jitter delay the answer', async () => {
    const sim = await simulator({ faults: { latencyMs: 120, jitterMs: 60 } });
    const api = client(sim);
    const responses = await Promise.all(Array.from({ length: 4 }, () => api.getFilterStatus()));
    for (const response of responses) {
      expect(response.ok).toBe(true);
      expect(response.latencyMs).toBeGreaterThanOrEqual(115);
      expect(response.latencyMs).toBeLessThan(1_000);
    }
  });

  it('a rate of 0.3 hits about that share', async () => {
    const sim = await simulator({ faults: { errorRate: 0.3 } });
    const api = client(sim, { concurrency: 8 });
    const responses = await Promise.all(Array.from({ length: 200 }, () => api.getUser()));
    const failed = responses.filter((r) => r.errorKind === 'server').length;
    expect(failed).toBeGreaterThan(35);
    expect(failed).toBeLessThan(85);
    expect(sim.stats.faults.error).toBe(failed);
  });
});

describe('the listener', () => {
  function connectTo(host: string, port: number): Promise<string> {
    return new Promise((resolve) => {
      const socket = net.connect({ host, port, timeout: 1_000 });
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('timeout', () => {
        socket.destroy();
        resolve('timeout');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
  }

  it('listens on 127.0.0.1 only', async () => {
    const sim = await simulator();
    expect(new URL(sim.url).hostname).toBe('127.0.0.1');
    expect(await connectTo('127.0.0.1', sim.port)).toBe('connected');
    const others = [
      '::1',
      ...Object.values(os.networkInterfaces())
        .flat()
        .filter((nic) => nic !== undefined && !nic.internal && nic.family === 'IPv4')
        .map((nic) => nic!.address),
    ];
    for (const host of others) expect(await connectTo(host, sim.port), host).not.toBe('connected');
  });

  it('keeps connections alive and counts them, requests and the most in flight', async () => {
    const sim = await simulator({ faults: { latencyMs: 20 } });
    const api = client(sim, { concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? api.getUser() : api.getFilterStatus())));
    expect(sim.stats.requests).toBe(12);
    expect(sim.stats.byPath).toEqual({ '/api/user': 6, '/api/filter/status': 6 });
    expect(sim.stats.maxInFlight).toBe(3);
    expect(sim.stats.connections).toBe(3);
  });

  it('close() is prompt with hung and delayed requests, and frees the port', async () => {
    // Prepare
    const hung = await startSimulator({ faults: { hangRate: 1 } });
    const slow = await startSimulator({ faults: { latencyMs: 60_000 } });
    const outcomes: Promise<string>[] = [];
    for (const sim of [hung, slow]) {
      for (let i = 0; i < 3; i++) {
        outcomes.push(
          new Promise((resolve) => {
            const req = http.get(`${sim.url}/api/filter/status`, {
              headers: { authorization: `Bearer ${sim.key}` },
            });
            req.once('response', () => resolve('answered'));
            req.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
          }),
        );
      }
    }
    await expect.poll(() => hung.stats.inFlight + slow.stats.inFlight).toBe(6);

    // Act
    const started = Date.now();
    await Promise.all([hung.close(), slow.close()]);
    const tookMs = Date.now() - started;

    // Assess
    expect(tookMs).toBeLessThan(500);
    expect(await Promise.all(outcomes)).toEqual(Array(6).fill('ECONNRESET'));
    expect(await connectTo('127.0.0.1', hung.port)).toBe('ECONNREFUSED');
    await hung.close(); // idempotent
  });

  it('rejects a taken port and bad options with clear messages', async () => {
    const sim = await simulator();
    await expect(startSimulator({ port: sim.port })).rejects.toThrow(
      /127\.0\.0\.1:\d+: the port is already in use/,
    );
    await expect(startSimulator({ faults: { errorRate: 2 }, speed: 0 })).rejects.toThrow(
      /speed must be a number above 0.*faults\.errorRate must be a number from 0 to 1/,
    );
  });
});
