/** The simulator's pure parts: the scenario timeline, the status body shapes and the fault decisions. */
import { describe, expect, it } from 'vitest';
import {
  drawFaults,
  type FaultDraw,
  faultBeforeAnswer,
  faultProblems,
  malformed,
} from '../../cli/simulator/faults.ts';
import { json } from '../../cli/simulator/http.ts';
import {
  attackFactor,
  attacksAt,
  builtinScenario,
  mulberry32,
  nextChangeAt,
  numericCodesFor,
  observedText,
  realtimeBody,
  type Scenario,
  scenarioPosition,
  scenarioProblems,
  statusBody,
} from '../../cli/simulator/scenario.ts';

describe('scenario timeline', () => {
  it.each([
    { name: 'steady', scenarioMs: 0, status: 'active', next: undefined },
    { name: 'steady', scenarioMs: 86_400_000, status: 'active', next: undefined },
    { name: 'flapping', scenarioMs: 0, status: 'active', next: 7_000 },
    { name: 'flapping', scenarioMs: 7_000, status: 'mitigating', next: 13_000 },
    { name: 'flapping', scenarioMs: 12_999, status: 'mitigating', next: 13_000 },
    { name: 'flapping', scenarioMs: 13_000, status: 'active', next: 20_000 },
    { name: 'flapping', scenarioMs: 1_300_008_000, status: 'mitigating', next: 1_300_013_000 },
    { name: 'demo', scenarioMs: 0, status: 'active', next: 8_000 },
    { name: 'demo', scenarioMs: 8_000, status: 'mitigating', next: 11_000 },
    { name: 'demo', scenarioMs: 17_000, status: 'mitigating', next: 20_000 },
    { name: 'demo', scenarioMs: 20_000, status: 'active', next: undefined },
    { name: 'demo', scenarioMs: -5, status: 'active', next: 8_000 },
  ] as const)(
    '$name at $scenarioMs ms: $status, next change at $next',
    ({ name, scenarioMs, status, next }) => {
      const scenario = builtinScenario(name);
      expect(scenarioPosition(scenario, scenarioMs).status).toBe(status);
      expect(nextChangeAt(scenario, scenarioMs)).toBe(next);
    },
  );

  it.each([
    { scenarioMs: 7_999, network: 'edge-1', factor: 1, attacks: 0 },
    { scenarioMs: 8_000, network: 'edge-1', factor: 40, attacks: 1 },
    { scenarioMs: 8_000, network: 'edge-2', factor: 1, attacks: 1 },
    // The attack spreads: edge-2 from 11 s to 17 s (one incident, a network that joins).
    { scenarioMs: 11_000, network: 'edge-2', factor: 30, attacks: 2 },
    { scenarioMs: 17_000, network: 'edge-2', factor: 1, attacks: 1 },
    { scenarioMs: 19_999, network: 'edge-1', factor: 40, attacks: 1 },
    { scenarioMs: 20_000, network: 'edge-1', factor: 1, attacks: 0 },
  ])('demo attack at $scenarioMs ms on $network: x$factor', ({ scenarioMs, network, factor, attacks }) => {
    const scenario = builtinScenario('demo', ['edge-1', 'edge-2']);
    expect(attackFactor(scenario, scenarioMs, network)).toBe(factor);
    expect(attacksAt(scenario, scenarioMs)).toHaveLength(attacks);
  });

  it('flapping attacks every network in the second part of each loop', () => {
    const scenario = builtinScenario('flapping', ['a']);
    expect(attackFactor(scenario, 13_000 * 3 + 7_000, 'a')).toBe(8);
    expect(attackFactor(scenario, 13_000 * 3 + 6_999, 'a')).toBe(1);
  });

  it.each([
    [{ name: 'x', steps: [{ atMs: 5, status: 'a' }], attacks: [] }, /start with a step at 0/],
    [
      {
        name: 'x',
        steps: [
          { atMs: 0, status: 'a' },
          { atMs: 0, status: 'b' },
        ],
        attacks: [],
      },
      /strictly ascending/,
    ],
    [{ name: 'x', periodMs: 0, steps: [{ atMs: 0, status: 'a' }], attacks: [] }, /periodMs/],
    [
      { name: 'x', steps: [{ atMs: 0, status: 'a' }], attacks: [{ fromMs: 5, toMs: 5, factor: 2 }] },
      /fromMs < toMs/,
    ],
    ['sometimes', /scenario must be one of demo, steady, flapping/],
  ] as const)('refuses %j', (scenario, problem) => {
    expect(scenarioProblems(scenario as Scenario).join('; ')).toMatch(problem);
  });

  it.each([undefined, 'steady', builtinScenario('demo')] as const)('accepts %j', (scenario) => {
    expect(scenarioProblems(scenario)).toEqual([]);
  });
});

describe('status bodies', () => {
  const codes = numericCodesFor({ name: 'x', steps: [{ atMs: 0, status: 'odd' }], attacks: [] });
  const moment = { status: 'mitigating', sinceMs: 0, clockMs: 1000, requestId: 'req_1' };

  it.each([
    ['flat', { status: 'mitigating', updatedAt: '1970-01-01T00:00:01.000Z', requestId: 'req_1' }],
    [
      'nested',
      {
        data: { filter: { state: 'mitigating', since: '1970-01-01T00:00:00.000Z' } },
        meta: { requestId: 'req_1', generatedAt: '1970-01-01T00:00:01.000Z' },
      },
    ],
    [
      'envelope',
      { data: { status: 'mitigating' }, requestId: 'req_1', servedAt: '1970-01-01T00:00:01.000Z' },
    ],
    ['numeric', { state: 2, requestId: 'req_1', updatedAt: '1970-01-01T00:00:01.000Z' }],
    ['boolean', { filter: { state: false }, requestId: 'req_1', updatedAt: '1970-01-01T00:00:01.000Z' }],
  ] as const)('%s', (shape, body) => {
    expect(statusBody(shape, moment, codes)).toEqual(body);
  });

  it.each([
    ['numeric', 'active', '1'],
    ['numeric', 'odd', '10'],
    ['numeric', 'never-seen', '99'],
    ['boolean', 'active', 'true'],
    ['boolean', 'mitigating', 'false'],
    ['flat', 'mitigating', 'mitigating'],
  ] as const)('%s shape shows %s as %s', (shape, status, text) => {
    expect(observedText(shape, status, codes)).toBe(text);
  });

  it('real-time figures come from the seed alone and multiply during an attack', () => {
    const scenario = builtinScenario('demo', ['edge-1']);
    const body = (seed: number, ms: number) => realtimeBody(scenario, ms, 0, 'edge-1', mulberry32(seed));
    expect(body(1, 0)).toEqual(body(1, 0));
    expect(body(1, 0)).not.toEqual(body(2, 0));
    const quiet = body(1, 7_000) as { traffic: { in: { pps: number } }; attack: { active: boolean } };
    const attacked = body(1, 9_000) as typeof quiet;
    expect(attacked.traffic.in.pps).toBeGreaterThan(quiet.traffic.in.pps * 20);
    expect([quiet.attack.active, attacked.attack.active]).toEqual([false, true]);
  });
});

describe('faults', () => {
  const none: FaultDraw = {
    delayMs: 0,
    hang: false,
    authFail: false,
    rateLimit: false,
    error: false,
    errorStatus: 502,
    malformed: false,
    truncate: false,
  };

  it.each([
    [{}, undefined, undefined],
    [{ hang: true, authFail: true }, 'hang', undefined],
    [{ authFail: true, rateLimit: true }, 'authFail', 401],
    [{ rateLimit: true, error: true }, 'rateLimit', 429],
    [{ error: true, malformed: true }, 'error', 502],
    [{ malformed: true }, undefined, undefined],
  ] as const)('draw %j: %s answered %s', (hits, kind, status) => {
    const fault = faultBeforeAnswer({ ...none, ...hits }, { retryAfterSeconds: 2.4 });
    expect(fault?.kind).toBe(kind);
    expect(fault?.answer?.status).toBe(status);
    if (kind === 'rateLimit') expect(fault?.answer?.headers?.['retry-after']).toBe('2');
  });

  it('draws 8 numbers per request whatever the rates, so a seed replays the same decisions', () => {
    const first = mulberry32(7);
    const second = mulberry32(7);
    drawFaults({}, first);
    drawFaults({ errorRate: 1, latencyMs: 5, jitterMs: 10 }, second);
    expect(first()).toBe(second());
    const always = drawFaults({ errorRate: 1, hangRate: 0, latencyMs: 5 }, mulberry32(1));
    expect(always).toMatchObject({ error: true, hang: false });
    expect(always.delayMs).toBe(5);
  });

  it.each([
    [true, (body: string) => expect(() => JSON.parse(body)).toThrow()],
    [false, (body: string) => expect(body).toMatch(/^<html>/)],
  ])('malformed (truncate %s) keeps the 2xx and spoils the body', (truncate, check) => {
    const answer = malformed(json(200, { status: 'active', requestId: 'req_1' }), truncate);
    expect(answer.status).toBe(200);
    check(answer.body);
  });

  it.each([
    [{ errorRate: 1.5 }, /faults.errorRate must be a number from 0 to 1/],
    [{ latencyMs: -1 }, /faults.latencyMs must be a number of 0 or more/],
    [{ hangRate: Number.NaN }, /faults.hangRate/],
  ])('refuses %j', (faults, problem) => {
    expect(faultProblems(faults).join('; ')).toMatch(problem);
  });
});
