import { describe, expect, it } from 'vitest';
import {
  builtinScenario,
  STATUS_SHAPES,
  type StatusShape,
  scenarioPosition,
  statusPathFor,
} from '../../cli/simulator/scenario.ts';
import { startSimulator } from '../../cli/simulator/server.ts';
import { extractStatus } from '../../lambda/core/detect/status.ts';
import { client, manualClock, realtime, simulator } from '../fixtures/simulator.ts';

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
    clock.advanceTo(9_500);
    const during = realtime(await api.getNetworkRealtime('edge-1'));
    const otherDuring = realtime(await api.getNetworkRealtime('edge-2'));
    // The attack spreads to edge-2 from 11 s (docs/alerts.md, Incidents).
    clock.advanceTo(12_000);
    const spread = realtime(await api.getNetworkRealtime('edge-2'));
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
    expect(Date.parse(during.timestamp)).toBe(sim.startedAt! + 9_500);
    expect(spread.attack.active).toBe(true);
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
