/**
 * The protection API simulator (cli/simulator/), observed through our own client and status extraction:
 * what the monitor sees of each body shape, scenario timing, attack figures, the Bearer check, routing,
 * every fault kind, determinism, the loopback-only listener and a prompt close.
 */
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTROL_PATH } from '../../cli/simulator/control.ts';
import {
  builtinScenario,
  STATUS_SHAPES,
  type StatusShape,
  scenarioPosition,
  statusPathFor,
} from '../../cli/simulator/scenario.ts';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../cli/simulator/server.ts';
import { ProtectionApiClient, type ProtectionApiOptions } from '../../lambda/adapters/protection-api.ts';
import { extractStatus } from '../../lambda/core/status.ts';
import type { ApiResponse } from '../../lambda/core/types.ts';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, ...options });
  cleanups.push(() => sim.close());
  return sim;
}

function client(sim: Simulator, options: Partial<ProtectionApiOptions> = {}): ProtectionApiClient {
  const created = new ProtectionApiClient({
    baseUrl: sim.url,
    apiKey: async () => sim.key,
    timeoutMs: 2000,
    maxBodyBytes: 1024 * 1024,
    concurrency: 4,
    retries: 0,
    ...options,
  });
  cleanups.push(() => created.close());
  return created;
}

/** A clock the test moves by hand; scenario time follows it. */
function manualClock(start = 1_700_000_000_000) {
  let now = start;
  return {
    now: () => now,
    advanceTo: (elapsedMs: number) => {
      now = start + elapsedMs;
    },
  };
}

interface Realtime {
  networkId: string;
  timestamp: string;
  traffic: { in: { pps: number; bps: number }; out: { pps: number; bps: number } };
  dropped: { pps: number };
  attack: { active: boolean; vector: string | null };
}

function realtime(response: ApiResponse): Realtime {
  expect(response.ok, response.error).toBe(true);
  return response.json as Realtime;
}

describe('body shapes, as our monitor reads them', () => {
  const expected: Record<StatusShape, { active: string; mitigating: string }> = {
    flat: { active: 'active', mitigating: 'mitigating' },
    nested: { active: 'active', mitigating: 'mitigating' },
    envelope: { active: 'active', mitigating: 'mitigating' },
    numeric: { active: '1', mitigating: '2' },
    boolean: { active: 'true', mitigating: 'false' },
  };

  it.each(STATUS_SHAPES)('%s: extractStatus finds the status with statusPathFor(shape)', async (shape) => {
    // Prepare
    const clock = manualClock();
    const sim = await simulator({ shape, now: clock.now });
    const api = client(sim);

    // Act
    const first = await api.getFilterStatus();
    const second = await api.getFilterStatus();
    clock.advanceTo(10_000);
    const later = await api.getFilterStatus();

    // Assess
    const path = statusPathFor(shape);
    expect(first.ok, first.error).toBe(true);
    expect(extractStatus(first.json, path)).toMatchObject({ ok: true, status: expected[shape].active });
    expect(extractStatus(later.json, path)).toMatchObject({ ok: true, status: expected[shape].mitigating });
    expect(sim.observedStatusAt(0)).toBe(expected[shape].active);
    expect(sim.observedStatusAt(10_000)).toBe(expected[shape].mitigating);
    // Other fields change on every call, even with the clock standing still.
    expect(second.text).not.toBe(first.text);
    expect(extractStatus(second.json, path)).toEqual(extractStatus(first.json, path));
    // Only the nested shape needs a configured path, and the env it hands out says so.
    expect(extractStatus(first.json).ok).toBe(path === undefined);
    expect(sim.env['SHIELDWATCH_STATUS_PATH']).toBe(path);
  });
});

describe('scenarios', () => {
  it.each([
    { elapsedMs: 0, speed: 1, status: 'active' },
    { elapsedMs: 7_999, speed: 1, status: 'active' },
    { elapsedMs: 8_000, speed: 1, status: 'mitigating' },
    { elapsedMs: 19_999, speed: 1, status: 'mitigating' },
    { elapsedMs: 20_000, speed: 1, status: 'active' },
    { elapsedMs: 3_600_000, speed: 1, status: 'active' },
    { elapsedMs: 1_999, speed: 4, status: 'active' },
    { elapsedMs: 2_000, speed: 4, status: 'mitigating' },
    { elapsedMs: 5_000, speed: 4, status: 'active' },
  ])(
    'demo at $elapsedMs ms, speed $speed: $status (served and statusAt)',
    async ({ elapsedMs, speed, status }) => {
      // Prepare
      const clock = manualClock();
      const sim = await simulator({ scenario: 'demo', speed, now: clock.now });
      const api = client(sim);
      await api.getUser(); // the first request starts the scenario clock

      // Act
      clock.advanceTo(elapsedMs);
      const served = await api.getFilterStatus();

      // Assess
      expect(sim.statusAt(elapsedMs)).toBe(status);
      expect(extractStatus(served.json)).toMatchObject({ ok: true, status });
    },
  );

  it('nested bodies say since when the status holds, in clock time (speed applied)', async () => {
    // Prepare
    const clock = manualClock();
    const sim = await simulator({ shape: 'nested', speed: 2, now: clock.now });
    const api = client(sim);
    await api.getUser(); // the first request starts the scenario clock

    // Act
    clock.advanceTo(5_000);
    const response = await api.getFilterStatus();

    // Assess
    const body = response.json as { data: { filter: { state: string; since: string } } };
    expect(body.data.filter.state).toBe('mitigating');
    expect(Date.parse(body.data.filter.since)).toBe(clock.now() - 1_000);
  });

  it('a custom scenario is played as given', async () => {
    const clock = manualClock();
    const sim = await simulator({
      now: clock.now,
      shape: 'numeric',
      scenario: {
        name: 'custom',
        periodMs: 3_000,
        steps: [
          { atMs: 0, status: 'maintenance' },
          { atMs: 1_000, status: 'paused-by-admin' },
        ],
        attacks: [],
      },
    });
    const api = client(sim);
    const seen: string[] = [];
    for (const at of [0, 1_500, 3_100, 4_200]) {
      clock.advanceTo(at);
      const reading = extractStatus((await api.getFilterStatus()).json);
      seen.push(reading.ok ? reading.status : reading.error);
    }
    expect(seen).toEqual(['4', '10', '4', '10']);
  });

  it('refuses a scenario that does not start at 0', async () => {
    await expect(
      startSimulator({ scenario: { name: 'late', steps: [{ atMs: 5, status: 'x' }], attacks: [] } }),
    ).rejects.toThrow(/scenario\.steps must start with a step at 0/);
  });
});

describe('the scenario clock starts at the first request', () => {
  it('a monitor started a minute after the simulator still sees the whole demo scenario', async () => {
    // Prepare: the user takes a minute to paste the settings; a request with a wrong key does not count.
    const clock = manualClock();
    const sim = await simulator({ scenario: 'demo', now: clock.now });
    clock.advanceTo(30_000);
    const refused = await client(sim, { apiKey: async () => 'not-the-key' }).getFilterStatus();
    clock.advanceTo(60_000);
    const api = client(sim);
    const seen: string[] = [];

    // Act
    for (const at of [60_000, 65_000, 70_000, 75_000, 80_000, 85_000]) {
      clock.advanceTo(at);
      const reading = extractStatus((await api.getFilterStatus()).json);
      seen.push(reading.ok ? reading.status : reading.error);
    }

    // Assess
    expect(refused).toMatchObject({ errorKind: 'auth' });
    expect(sim.startedAt).toBe(clock.now() - 25_000);
    expect(seen).toEqual(['active', 'active', 'mitigating', 'mitigating', 'active', 'active']);
  });

  it('the clock stands still until then', async () => {
    // Prepare
    const clock = manualClock();
    const sim = await simulator({ scenario: 'flapping', now: clock.now });

    // Act
    clock.advanceTo(500_000);
    const before = { startedAt: sim.startedAt, scenarioMs: sim.scenarioNow(), status: sim.currentStatus() };
    await client(sim).getNetworkRealtime('edge-1');
    clock.advanceTo(507_000);

    // Assess
    expect(before).toEqual({ startedAt: undefined, scenarioMs: 0, status: 'active' });
    expect(sim.startedAt).toBe(manualClock().now() + 500_000);
    expect(sim.scenarioNow()).toBe(7_000);
    expect(sim.currentStatus()).toBe('mitigating');
  });

  it.each([5, 10, 15, 20, 30, 60, 120, 300])(
    'flapping polled every %i s shows a change within 10 cycles (it never keeps in step)',
    (everySeconds) => {
      // Prepare
      const scenario = builtinScenario('flapping');

      // Act
      const statuses = Array.from(
        { length: 10 },
        (_, k) => scenarioPosition(scenario, k * everySeconds * 1000).status,
      );

      // Assess
      expect(new Set(statuses)).toEqual(new Set(['active', 'mitigating']));
    },
  );
});

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

describe('real-time figures', () => {
  it('spike on the attacked network during the attack, and only there', async () => {
    // Prepare
    const clock = manualClock();
    const sim = await simulator({ scenario: 'demo', now: clock.now });
    const api = client(sim);
    await api.getUser(); // the first request starts the scenario clock

    // Act
    clock.advanceTo(2_000);
    const before = realtime(await api.getNetworkRealtime('edge-1'));
    const otherBefore = realtime(await api.getNetworkRealtime('edge-2'));
    clock.advanceTo(12_000);
    const during = realtime(await api.getNetworkRealtime('edge-1'));
    const otherDuring = realtime(await api.getNetworkRealtime('edge-2'));
    clock.advanceTo(25_000);
    const after = realtime(await api.getNetworkRealtime('edge-1'));

    // Assess
    expect(before).toMatchObject({ networkId: 'edge-1', attack: { active: false, vector: null } });
    expect(during).toMatchObject({ networkId: 'edge-1', attack: { active: true, vector: 'udp_flood' } });
    expect(during.traffic.in.pps).toBeGreaterThan(before.traffic.in.pps * 25);
    expect(during.traffic.in.bps).toBeGreaterThan(before.traffic.in.bps * 10);
    expect(during.dropped.pps).toBeGreaterThan(during.traffic.in.pps * 0.9);
    expect(during.traffic.out.pps).toBeLessThan(before.traffic.out.pps * 3);
    expect(after.attack.active).toBe(false);
    expect(after.traffic.in.pps).toBeLessThan(before.traffic.in.pps * 2);
    expect(otherDuring.attack.active).toBe(false);
    expect(otherDuring.traffic.in.pps).toBeLessThan(otherBefore.traffic.in.pps * 2);
    expect(Date.parse(during.timestamp)).toBe(sim.startedAt! + 12_000);
  });

  it('vary smoothly from one call to the next', async () => {
    const clock = manualClock();
    const sim = await simulator({ scenario: 'steady', now: clock.now });
    const api = client(sim);
    const series: number[] = [];
    for (let second = 0; second < 10; second++) {
      clock.advanceTo(second * 1_000);
      series.push(realtime(await api.getNetworkRealtime('edge-2')).traffic.in.pps);
    }
    expect(new Set(series).size).toBeGreaterThan(1);
    for (let i = 1; i < series.length; i++) {
      expect(Math.abs(series[i]! - series[i - 1]!) / series[i - 1]!).toBeLessThan(0.1);
    }
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

describe('determinism', () => {
  async function record(seed: number): Promise<string[]> {
    const clock = manualClock();
    const sim = await simulator({
      seed,
      now: clock.now,
      faults: { errorRate: 0.3, malformedRate: 0.3, authFailRate: 0.1, rateLimitRate: 0.1 },
    });
    const api = client(sim);
    const seen: string[] = [];
    for (let i = 0; i < 30; i++) {
      const response = i % 2 === 0 ? await api.getFilterStatus() : await api.getNetworkRealtime('edge-1');
      seen.push(`${response.httpStatus} ${response.errorKind ?? 'ok'} ${response.text ?? ''}`);
    }
    return seen;
  }

  it('the same seed replays the same faults and bodies; another seed does not', async () => {
    const [first, again, other] = await Promise.all([record(42), record(42), record(43)]);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    expect(new Set(first.map((line) => line.split(' ')[1])).size).toBeGreaterThan(2);
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
