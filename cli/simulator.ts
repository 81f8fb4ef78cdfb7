/**
 * A simulator of the protection API on 127.0.0.1, for the demo, tests and benchmarks.
 *
 * It serves the three known endpoints behind a Bearer check, plays a scenario (the filter status over time
 * and when networks are under attack), shapes the filter status body in one of several ways a real API
 * might, and injects faults (latency, 5xx, 429, malformed bodies, hangs, rejected keys) from a seeded PRNG,
 * so that a run is repeatable. Scenario time comes from an injectable clock and can run faster than real
 * time; latency is always real time. The scenario clock starts at the first authorized API request, not when
 * the server starts, so a monitor started later still sees the whole scenario. A status can be held by hand
 * (`setStatus`, or the Bearer-protected control endpoint {@link CONTROL_PATH}) until it is released.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the filter status body looks. */
export type StatusShape = 'flat' | 'nested' | 'envelope' | 'numeric' | 'boolean';

/** Every {@link StatusShape}, in the order `--help` lists them. */
export const STATUS_SHAPES: readonly StatusShape[] = ['flat', 'nested', 'envelope', 'numeric', 'boolean'];

/** The built-in scenarios. */
export type ScenarioName = 'demo' | 'steady' | 'flapping';

/** Every {@link ScenarioName}. */
export const SCENARIO_NAMES: readonly ScenarioName[] = ['demo', 'steady', 'flapping'];

/** From `atMs` (scenario time) on, the filter status is `status`, until the next step. */
export interface ScenarioStep {
  readonly atMs: number;
  readonly status: string;
}

/** Traffic of `networks` (default all) is multiplied by `factor` from `fromMs` (inclusive) to `toMs` (exclusive). */
export interface ScenarioAttack {
  readonly fromMs: number;
  readonly toMs: number;
  /** @default every network */
  readonly networks?: readonly string[];
  readonly factor: number;
}

/** The filter status over time and when attacks happen. Times are scenario milliseconds from the start. */
export interface Scenario {
  readonly name: string;
  /** Loop length; `undefined` holds the last step forever. */
  readonly periodMs?: number;
  /** Ascending by `atMs`; the first step is at 0. */
  readonly steps: ReadonlyArray<ScenarioStep>;
  readonly attacks: ReadonlyArray<ScenarioAttack>;
}

/**
 * Fault injection, all off by default. Every request draws its faults from the seeded PRNG; latency applies to
 * every request, the other faults to authorized GETs of the three endpoints (a wrong key is always a 401, an
 * unknown path always a 404), in this order of precedence: hang, 401, 429, 5xx, malformed.
 */
export interface Faults {
  /** Delay before every answer, ms. @default 0 */
  latencyMs?: number;
  /** Extra random delay, uniform in [0, jitterMs), ms. @default 0 */
  jitterMs?: number;
  /** Share of requests answered with a 5xx (500, 502 or 503), in [0, 1]. @default 0 */
  errorRate?: number;
  /** Share of requests answered with a 429 and `Retry-After`, in [0, 1]. @default 0 */
  rateLimitRate?: number;
  /** `Retry-After` of a 429, seconds. @default 1 */
  retryAfterSeconds?: number;
  /** Share of 2xx answers whose body is not JSON (an HTML page) or truncated JSON, in [0, 1]. @default 0 */
  malformedRate?: number;
  /** Share of requests accepted and never answered (until `close()`), in [0, 1]. @default 0 */
  hangRate?: number;
  /** Share of requests refused with a 401 although the key is right, in [0, 1]. @default 0 */
  authFailRate?: number;
}

/** Options of {@link startSimulator}. The host is always 127.0.0.1. */
export interface SimulatorOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** The Bearer key accepted; any other gets a 401. @default 'demo-key' */
  key?: string;
  /** Network ids known; any other id gets a 404; `*` accepts any id. @default ['edge-1', 'edge-2'] */
  networks?: readonly string[];
  /** How the filter status body looks. @default 'flat' */
  shape?: StatusShape;
  /** The filter status over time, or a built-in scenario's name. @default 'demo' */
  scenario?: Scenario | ScenarioName;
  /** Scenario time runs this many times faster than the clock. @default 1 */
  speed?: number;
  /** @default no faults */
  faults?: Faults;
  /** Seed of the PRNG behind faults, noise and request ids. @default 20240601 */
  seed?: number;
  /** The clock (epoch ms) that drives scenario time and timestamps. @default Date.now */
  now?: () => number;
}

/** Fault kinds, as counted in {@link SimulatorStats.faults}. */
export type FaultKind = 'hang' | 'authFail' | 'rateLimit' | 'error' | 'malformed';

/** Counters for benchmarks and tests; updated in place. */
export interface SimulatorStats {
  /** Requests received (all of them, also refused ones). */
  requests: number;
  /** Requests by raw path (query removed, still percent-encoded). */
  byPath: Record<string, number>;
  /** Requests being handled right now (hung ones included). */
  inFlight: number;
  /** Most requests handled at the same time. */
  maxInFlight: number;
  /** TCP connections accepted. */
  connections: number;
  /** Faults injected, by kind. */
  faults: Record<FaultKind, number>;
}

/** A running simulator. */
export interface Simulator {
  /** Base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly key: string;
  readonly port: number;
  readonly networks: readonly string[];
  readonly shape: StatusShape;
  /** The scenario played (a built-in one resolved for `networks`). */
  readonly scenario: Scenario;
  readonly speed: number;
  /** Clock time (epoch ms) of scenario time 0: the first authorized API request; `undefined` before it. */
  readonly startedAt: number | undefined;
  /** Scenario time now (speed applied); 0 until the first request. */
  scenarioNow(): number;
  /** The filter status served now: the held one, or the scenario's. */
  currentStatus(): string;
  /** The status held by hand, or `undefined` while the scenario plays. */
  readonly heldStatus: string | undefined;
  /**
   * Holds the filter status at `status` (any text, up to {@link MAX_HELD_STATUS_LENGTH} characters, no control
   * characters) until called again; `undefined` gives it back to the scenario. Throws a RangeError otherwise.
   */
  setStatus(status: string | undefined): void;
  /** Calls `listener` when the scenario clock starts and when a status is held or released; returns an unsubscribe. */
  subscribe(listener: (event: SimulatorEvent) => void): () => void;
  /** The status text a monitor reads for `status` in this shape (`numeric` and `boolean` encode it). */
  observedStatusOf(status: string): string;
  /**
   * What a monitor needs to watch this simulator: `SHIELDWATCH_API_URL`, `SHIELDWATCH_API_KEY`,
   * `SHIELDWATCH_NETWORKS` and, for shapes the default paths do not find, `SHIELDWATCH_STATUS_PATH`.
   */
  readonly env: Readonly<Record<string, string>>;
  /** The scenario status `elapsedMs` of clock time after the start (speed applied). */
  statusAt(elapsedMs: number): string;
  /** The status text a monitor reads from the body at that time (`numeric` and `boolean` shapes encode it). */
  observedStatusAt(elapsedMs: number): string;
  readonly stats: SimulatorStats;
  /** Stops listening and drops every connection, hung requests included; idempotent. */
  close(): Promise<void>;
}

/** What {@link Simulator.subscribe} reports. */
export type SimulatorEvent =
  | { readonly kind: 'started'; readonly atMs: number }
  | { readonly kind: 'held'; readonly status: string; readonly atMs: number }
  | { readonly kind: 'released'; readonly atMs: number };

/** Why a status cannot be held, or `undefined` when it can. */
export function heldStatusProblem(status: unknown): string | undefined {
  if (typeof status !== 'string') return 'status must be a string (or null to give it back to the scenario)';
  if ([...status].length > MAX_HELD_STATUS_LENGTH) {
    return `status must be at most ${MAX_HELD_STATUS_LENGTH} characters`;
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(status)) return 'status must not hold control characters';
  return undefined;
}

/** The key accepted by default. */
export const DEFAULT_SIMULATOR_KEY = 'demo-key';
/** The networks known by default. */
export const DEFAULT_SIMULATOR_NETWORKS: readonly string[] = ['edge-1', 'edge-2'];
/** The seed used when none is given, so that two runs without one are alike. */
export const DEFAULT_SIMULATOR_SEED = 20240601;

/** Codes of the `numeric` shape; statuses not listed get 10, 11, ... in order of appearance in the scenario. */
export const NUMERIC_STATUS_CODES: Readonly<Record<string, number>> = {
  inactive: 0,
  active: 1,
  mitigating: 2,
  degraded: 3,
  maintenance: 4,
};

/** Loop length of the built-in `flapping` scenario, ms: active 7 s, mitigating 6 s. */
export const FLAPPING_PERIOD_MS = 13_000;

/**
 * The simulator's control endpoint, behind the same Bearer key as the API: `GET` answers
 * `{"status", "held", "scenario", "started"}`, `POST` with `{"status": "TEXT"}` holds that filter status until
 * a `POST` with `{"status": null}` gives the status back to the scenario.
 */
export const CONTROL_PATH = '/simulator/status';

/** Longest status the control endpoint accepts, characters. */
export const MAX_HELD_STATUS_LENGTH = 200;

/** Largest control request body read, bytes. */
const MAX_CONTROL_BODY_BYTES = 4096;

/** Most distinct paths counted in `stats.byPath`; the rest are counted under `(other)`. */
const MAX_COUNTED_PATHS = 1000;
const NETWORK_ROUTE = /^\/api\/networks\/([^/]+)\/realtime$/;

/**
 * The `SHIELDWATCH_STATUS_PATH` a monitor needs for a shape, or `undefined` when the default paths
 * (`status`, `state`, `data.status`, ...) already find the status.
 */
export function statusPathFor(shape: StatusShape): string | undefined {
  return shape === 'nested' ? 'data.filter.state' : undefined;
}

/** A built-in scenario; `networks` names the first network, which `demo` attacks. */
export function builtinScenario(
  name: ScenarioName,
  networks: readonly string[] = DEFAULT_SIMULATOR_NETWORKS,
): Scenario {
  const first = networks.find((id) => id !== '*');
  const target = first === undefined ? {} : { networks: [first] };
  switch (name) {
    case 'demo':
      return {
        name,
        steps: [
          { atMs: 0, status: 'active' },
          { atMs: 8_000, status: 'mitigating' },
          { atMs: 20_000, status: 'active' },
        ],
        attacks: [{ fromMs: 8_000, toMs: 20_000, factor: 40, ...target }],
      };
    case 'steady':
      return { name, steps: [{ atMs: 0, status: 'active' }], attacks: [] };
    case 'flapping':
      // 7 s and 6 s: a 13 s period, prime, so that no round polling interval (5 s, 10 s, 30 s, 60 s...)
      // keeps in step with it and always sees the same status.
      return {
        name,
        periodMs: FLAPPING_PERIOD_MS,
        steps: [
          { atMs: 0, status: 'active' },
          { atMs: 7_000, status: 'mitigating' },
        ],
        attacks: [{ fromMs: 7_000, toMs: FLAPPING_PERIOD_MS, factor: 8, ...target }],
      };
  }
}

/** Where a scenario is at `scenarioMs`: the step in force and when it began (scenario ms). */
export function scenarioPosition(
  scenario: Scenario,
  scenarioMs: number,
): { readonly status: string; readonly stepIndex: number; readonly sinceMs: number } {
  const t = Math.max(0, scenarioMs);
  const loopStart =
    scenario.periodMs === undefined ? 0 : Math.floor(t / scenario.periodMs) * scenario.periodMs;
  const local = t - loopStart;
  let index = 0;
  for (let i = 1; i < scenario.steps.length; i++) {
    if (scenario.steps[i]!.atMs <= local) index = i;
  }
  const step = scenario.steps[index]!;
  return { status: step.status, stepIndex: index, sinceMs: loopStart + step.atMs };
}

/** The attack factor on a network at `scenarioMs`: the largest of the attacks in force, 1 without one. */
export function attackFactor(scenario: Scenario, scenarioMs: number, networkId: string): number {
  const local = loopTime(scenario, scenarioMs);
  let factor = 1;
  for (const attack of scenario.attacks) {
    const hits = attack.networks === undefined || attack.networks.includes(networkId);
    if (hits && attack.fromMs <= local && local < attack.toMs) factor = Math.max(factor, attack.factor);
  }
  return factor;
}

/** The attacks in force at `scenarioMs`. */
export function attacksAt(scenario: Scenario, scenarioMs: number): ScenarioAttack[] {
  const local = loopTime(scenario, scenarioMs);
  return scenario.attacks.filter((attack) => attack.fromMs <= local && local < attack.toMs);
}

/**
 * The next scenario time after `scenarioMs` at which a step begins or an attack starts or ends;
 * `undefined` when nothing changes any more.
 */
export function nextChangeAt(scenario: Scenario, scenarioMs: number): number | undefined {
  const t = Math.max(0, scenarioMs);
  const marks = [
    ...scenario.steps.map((step) => step.atMs),
    ...scenario.attacks.flatMap((attack) => [attack.fromMs, attack.toMs]),
  ];
  if (scenario.periodMs === undefined) {
    const later = marks.filter((mark) => mark > t);
    return later.length === 0 ? undefined : Math.min(...later);
  }
  const period = scenario.periodMs;
  const loopStart = Math.floor(t / period) * period;
  const local = t - loopStart;
  const later = marks.filter((mark) => mark > local && mark < period);
  return later.length === 0 ? loopStart + period : loopStart + Math.min(...later);
}

/** A small, fast, seeded PRNG (mulberry32): uniform numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Problems with simulator options, each naming the option; empty when they are usable. */
export function validateSimulatorOptions(options: SimulatorOptions): string[] {
  const problems: string[] = [];
  const { port, key, networks, shape, speed, seed, faults = {} } = options;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    problems.push(`port must be a whole number from 0 to 65535 (got ${String(port)})`);
  }
  if (key !== undefined && !/^[\x21-\x7E]{1,512}$/.test(key)) {
    problems.push('key must be 1 to 512 printable ASCII characters without spaces');
  }
  if (networks !== undefined) {
    if (networks.length === 0) problems.push('networks must name at least one id (or `*`)');
    if (networks.some((id) => typeof id !== 'string' || id === '' || /[\x00-\x1F\x7F]/.test(id))) {
      problems.push('networks must be non-empty ids without control characters');
    }
  }
  if (shape !== undefined && !STATUS_SHAPES.includes(shape)) {
    problems.push(`shape must be one of ${STATUS_SHAPES.join(', ')} (got ${String(shape)})`);
  }
  if (speed !== undefined && !(Number.isFinite(speed) && speed > 0)) {
    problems.push(`speed must be a number above 0 (got ${String(speed)})`);
  }
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    problems.push(`seed must be a whole number from 0 to 4294967295 (got ${String(seed)})`);
  }
  for (const name of ['latencyMs', 'jitterMs', 'retryAfterSeconds'] as const) {
    const value = faults[name];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      problems.push(`faults.${name} must be a number of 0 or more (got ${String(value)})`);
    }
  }
  for (const name of ['errorRate', 'rateLimitRate', 'malformedRate', 'hangRate', 'authFailRate'] as const) {
    const value = faults[name];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0 && value <= 1)) {
      problems.push(`faults.${name} must be a number from 0 to 1 (got ${String(value)})`);
    }
  }
  const scenario = options.scenario;
  if (typeof scenario === 'string') {
    if (!SCENARIO_NAMES.includes(scenario)) {
      problems.push(`scenario must be one of ${SCENARIO_NAMES.join(', ')} (got ${scenario})`);
    }
  } else if (scenario !== undefined) {
    problems.push(...validateScenario(scenario));
  }
  return problems;
}

function validateScenario(scenario: Scenario): string[] {
  const problems: string[] = [];
  const { steps, attacks, periodMs } = scenario;
  if (steps.length === 0 || steps[0]!.atMs !== 0) problems.push('scenario.steps must start with a step at 0');
  for (let i = 0; i < steps.length; i++) {
    const at = steps[i]!.atMs;
    if (!Number.isFinite(at) || at < 0 || (i > 0 && at <= steps[i - 1]!.atMs)) {
      problems.push('scenario.steps must have finite, strictly ascending atMs');
      break;
    }
  }
  if (periodMs !== undefined && !(Number.isFinite(periodMs) && periodMs > (steps.at(-1)?.atMs ?? 0))) {
    problems.push('scenario.periodMs must be a number above the last step atMs');
  }
  for (const attack of attacks) {
    if (!(Number.isFinite(attack.fromMs) && attack.fromMs >= 0 && attack.toMs > attack.fromMs)) {
      problems.push('scenario.attacks must have 0 <= fromMs < toMs');
    }
    if (!(Number.isFinite(attack.factor) && attack.factor > 0)) {
      problems.push('scenario.attacks factor must be a number above 0');
    }
  }
  return problems;
}

/** One request's fault decisions; every request draws the same count of numbers, so a seed replays exactly. */
interface FaultDraw {
  readonly delayMs: number;
  readonly hang: boolean;
  readonly authFail: boolean;
  readonly rateLimit: boolean;
  readonly error: boolean;
  readonly errorStatus: number;
  readonly malformed: boolean;
  readonly truncate: boolean;
}

type Route =
  | { readonly kind: 'user' }
  | { readonly kind: 'filter' }
  | { readonly kind: 'network'; readonly networkId: string }
  | { readonly kind: 'bad-id' };

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Starts a simulator on 127.0.0.1; rejects on bad options (RangeError) or when the port is taken. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const problems = validateSimulatorOptions(options);
  if (problems.length > 0) throw new RangeError(`invalid simulator options: ${problems.join('; ')}`);

  const key = options.key ?? DEFAULT_SIMULATOR_KEY;
  const networks = [...(options.networks ?? DEFAULT_SIMULATOR_NETWORKS)];
  const anyNetwork = networks.includes('*');
  const shape = options.shape ?? 'flat';
  const scenario =
    typeof options.scenario === 'object'
      ? options.scenario
      : builtinScenario(options.scenario ?? 'demo', networks);
  const speed = options.speed ?? 1;
  const faults = options.faults ?? {};
  const seed = options.seed ?? DEFAULT_SIMULATOR_SEED;
  const now = options.now ?? Date.now;
  // Separate streams: turning faults on or off does not change the figures or ids, and vice versa.
  const faultRandom = mulberry32(seed);
  const dataRandom = mulberry32(seed ^ 0x9e3779b9);
  const numericCodes = numericCodesFor(scenario);
  const keyDigest = digest(key);

  const sockets = new Set<Socket>();
  const waits = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  const stats: SimulatorStats = {
    requests: 0,
    byPath: Object.create(null) as Record<string, number>,
    inFlight: 0,
    maxInFlight: 0,
    connections: 0,
    faults: { hang: 0, authFail: 0, rateLimit: 0, error: 0, malformed: 0 },
  };
  let closed = false;
  let closing: Promise<void> | undefined;
  let requestCount = 0;
  let startedAt: number | undefined;
  let held: { readonly status: string; readonly atMs: number } | undefined;
  const listeners = new Set<(event: SimulatorEvent) => void>();
  const emit = (event: SimulatorEvent): void => {
    for (const listener of listeners) listener(event);
  };

  const scenarioMs = (clockMs: number): number =>
    startedAt === undefined ? 0 : Math.max(0, (clockMs - startedAt) * speed);
  const statusAt = (elapsedMs: number): string => scenarioPosition(scenario, elapsedMs * speed).status;
  const currentStatus = (): string => held?.status ?? scenarioPosition(scenario, scenarioMs(now())).status;
  const startClock = (): void => {
    if (startedAt !== undefined) return;
    startedAt = now();
    emit({ kind: 'started', atMs: startedAt });
  };
  const setStatus = (status: string | undefined): void => {
    if (status === undefined) {
      if (held === undefined) return;
      held = undefined;
      emit({ kind: 'released', atMs: now() });
      return;
    }
    const problem = heldStatusProblem(status);
    if (problem !== undefined) throw new RangeError(problem);
    held = { status, atMs: now() };
    if (!numericCodes.has(status)) numericCodes.set(status, Math.max(9, ...numericCodes.values()) + 1);
    emit({ kind: 'held', status, atMs: held.atMs });
  };

  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          waits.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      waits.add(entry);
    });

  const drawFaults = (): FaultDraw => {
    const draws: number[] = [];
    for (let i = 0; i < 8; i++) draws.push(faultRandom());
    const hit = (rate: number | undefined, draw: number): boolean => rate !== undefined && draw < rate;
    return {
      delayMs: (faults.latencyMs ?? 0) + (faults.jitterMs ?? 0) * draws[0]!,
      hang: hit(faults.hangRate, draws[1]!),
      authFail: hit(faults.authFailRate, draws[2]!),
      rateLimit: hit(faults.rateLimitRate, draws[3]!),
      error: hit(faults.errorRate, draws[4]!),
      errorStatus: [500, 502, 503][Math.floor(draws[5]! * 3)]!,
      malformed: hit(faults.malformedRate, draws[6]!),
      truncate: draws[7]! < 0.5,
    };
  };

  const requestId = (): string => {
    requestCount++;
    const random = Math.floor(dataRandom() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
    return `req_${requestCount.toString(36)}_${random}`;
  };

  const authorized = (header: string | undefined): boolean => {
    const match = /^Bearer +(\S+)$/i.exec(header ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), keyDigest);
  };

  const filterBody = (clockMs: number, id: string): unknown => {
    const position = scenarioPosition(scenario, scenarioMs(clockMs));
    const at = new Date(clockMs).toISOString();
    const status = held?.status ?? position.status;
    const sinceMs = held?.atMs ?? (startedAt ?? clockMs) + position.sinceMs / speed;
    switch (shape) {
      case 'flat':
        return { status, updatedAt: at, requestId: id };
      case 'nested':
        return {
          data: {
            filter: { state: status, since: new Date(sinceMs).toISOString() },
          },
          meta: { requestId: id, generatedAt: at },
        };
      case 'envelope':
        return { data: { status }, requestId: id, servedAt: at };
      case 'numeric':
        return { state: numericCodes.get(status) ?? 99, requestId: id, updatedAt: at };
      case 'boolean':
        return { filter: { state: status === 'active' }, requestId: id, updatedAt: at };
    }
  };

  const realtimeBody = (clockMs: number, networkId: string): unknown => {
    const t = scenarioMs(clockMs);
    const factor = attackFactor(scenario, t, networkId);
    return {
      networkId,
      timestamp: new Date(clockMs).toISOString(),
      ...trafficFigures(networkId, t, factor, dataRandom),
    };
  };

  const answerFor = (route: Route, clockMs: number): Answer => {
    const id = requestId();
    switch (route.kind) {
      case 'user':
        return json(
          200,
          { id: 'usr_demo', email: 'demo@example.com', name: 'Demo Operator', plan: 'pro' },
          id,
        );
      case 'filter':
        return json(200, filterBody(clockMs, id), id);
      case 'bad-id':
        return json(
          400,
          { error: 'bad_request', message: 'malformed percent-encoding in the network id' },
          id,
        );
      case 'network':
        if (!anyNetwork && !networks.includes(route.networkId)) {
          return json(
            404,
            { error: 'not_found', message: 'unknown network', networkId: route.networkId },
            id,
          );
        }
        return json(200, realtimeBody(clockMs, route.networkId), id);
    }
  };

  const controlAnswer = (): Answer =>
    json(200, {
      status: currentStatus(),
      held: held !== undefined,
      scenario: scenario.name,
      started: startedAt !== undefined,
    });

  /** The control endpoint: no faults, no scenario clock, the same Bearer check as the API. */
  const handleControl = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (!authorized(req.headers.authorization)) return send(res, unauthorized());
    if (req.method === 'GET') return send(res, controlAnswer());
    if (req.method !== 'POST') {
      return send(
        res,
        json(405, { error: 'method_not_allowed', message: 'GET or POST' }, undefined, { allow: 'GET, POST' }),
      );
    }
    const text = await readSmallBody(req, MAX_CONTROL_BODY_BYTES);
    let body: unknown;
    try {
      body = text === undefined ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null || !Object.hasOwn(body, 'status')) {
      return send(
        res,
        json(400, {
          error: 'bad_request',
          message: `send JSON {"status": "TEXT"} (at most ${MAX_CONTROL_BODY_BYTES} bytes), or {"status": null}`,
        }),
      );
    }
    const status = (body as { status: unknown }).status;
    const problem = status === null ? undefined : heldStatusProblem(status);
    if (problem !== undefined) return send(res, json(400, { error: 'bad_request', message: problem }));
    setStatus(status === null ? undefined : (status as string));
    send(res, controlAnswer());
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const rawPath = (req.url ?? '').split('?', 1)[0]!;
    countPath(stats.byPath, rawPath);
    if (rawPath === CONTROL_PATH) return handleControl(req, res);
    const draw = drawFaults();
    if (draw.delayMs > 0) await wait(draw.delayMs);
    if (closed || res.destroyed) return;

    if (!authorized(req.headers.authorization)) return send(res, unauthorized());
    const route = routeOf(rawPath);
    if (route === undefined) return send(res, json(404, { error: 'not_found', message: 'no such endpoint' }));
    if (req.method !== 'GET') {
      return send(
        res,
        json(405, { error: 'method_not_allowed', message: 'only GET' }, undefined, { allow: 'GET' }),
      );
    }
    // The scenario starts when a monitor first asks, whatever fault that request then meets.
    startClock();
    if (draw.hang) {
      stats.faults.hang++;
      return; // the socket stays open until the client gives up or close() destroys it
    }
    if (draw.authFail) {
      stats.faults.authFail++;
      return send(res, unauthorized());
    }
    if (draw.rateLimit) {
      stats.faults.rateLimit++;
      const seconds = Math.round(faults.retryAfterSeconds ?? 1);
      return send(
        res,
        json(429, { error: 'rate_limited', message: 'too many requests', retryAfter: seconds }, undefined, {
          'retry-after': String(seconds),
        }),
      );
    }
    if (draw.error) {
      stats.faults.error++;
      return send(res, json(draw.errorStatus, { error: 'internal_error', message: 'upstream failure' }));
    }
    const answer = answerFor(route, now());
    if (draw.malformed && answer.status >= 200 && answer.status < 300) {
      stats.faults.malformed++;
      return send(res, malformed(answer, draw.truncate));
    }
    send(res, answer);
  };

  const server = http.createServer((req, res) => {
    stats.requests++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    res.once('close', () => {
      stats.inFlight--;
    });
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        send(res, json(500, { error: 'simulator_failure', message: String(error) }));
      }
    });
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', (socket: Socket) => {
    stats.connections++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const why = error.code === 'EADDRINUSE' ? 'the port is already in use' : error.message;
      reject(new Error(`cannot listen on 127.0.0.1:${options.port ?? 0}: ${why}`));
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const statusPath = statusPathFor(shape);
  const listed = networks.filter((id) => id !== '*');
  const env: Record<string, string> = {
    SHIELDWATCH_API_URL: url,
    SHIELDWATCH_API_KEY: key,
    SHIELDWATCH_NETWORKS: (listed.length > 0 ? listed : DEFAULT_SIMULATOR_NETWORKS).join(','),
    ...(statusPath === undefined ? {} : { SHIELDWATCH_STATUS_PATH: statusPath }),
  };

  return {
    url,
    key,
    port,
    networks,
    shape,
    scenario,
    speed,
    get startedAt() {
      return startedAt;
    },
    get heldStatus() {
      return held?.status;
    },
    scenarioNow: () => scenarioMs(now()),
    currentStatus,
    setStatus,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    observedStatusOf: (status) => observedText(shape, status, numericCodes),
    env,
    stats,
    statusAt,
    observedStatusAt: (elapsedMs) => observedText(shape, statusAt(elapsedMs), numericCodes),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        for (const entry of waits) {
          clearTimeout(entry.timer);
          entry.resolve();
        }
        waits.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/** Plausible real-time figures: a smooth daily-like wave with a little noise, multiplied during an attack. */
function trafficFigures(networkId: string, scenarioMs: number, factor: number, random: () => number) {
  const hash = fnv1a(networkId);
  const basePps = 20_000 + (hash % 60_000);
  const phase = (((hash >>> 8) % 1000) / 1000) * 2 * Math.PI;
  const wave =
    1 +
    0.2 * Math.sin((2 * Math.PI * scenarioMs) / 120_000 + phase) +
    0.05 * Math.sin((2 * Math.PI * scenarioMs) / 17_000 + 2 * phase);
  const normalPps = basePps * wave * (1 + (random() - 0.5) * 0.04);
  const attackPps = normalPps * (factor - 1);
  const droppedPps = normalPps * 0.001 + attackPps * 0.98;
  const passedAttackPps = attackPps - attackPps * 0.98;
  const inPps = normalPps + attackPps;
  const outPps = normalPps * 0.999 + passedAttackPps;
  return {
    traffic: {
      in: { pps: Math.round(inPps), bps: Math.round(normalPps * 900 * 8 + attackPps * 512 * 8) },
      out: {
        pps: Math.round(outPps),
        bps: Math.round(normalPps * 0.999 * 900 * 8 + passedAttackPps * 512 * 8),
      },
    },
    dropped: { pps: Math.round(droppedPps) },
    attack: factor > 1 ? { active: true, vector: 'udp_flood' } : { active: false, vector: null },
  };
}

function routeOf(rawPath: string): Route | undefined {
  if (rawPath === '/api/user') return { kind: 'user' };
  if (rawPath === '/api/filter/status') return { kind: 'filter' };
  const match = NETWORK_ROUTE.exec(rawPath);
  if (match === null) return undefined;
  try {
    return { kind: 'network', networkId: decodeURIComponent(match[1]!) };
  } catch {
    return { kind: 'bad-id' };
  }
}

function json(
  status: number,
  body: unknown,
  requestId?: string,
  headers: Record<string, string> = {},
): Answer {
  return {
    status,
    body: JSON.stringify(body),
    headers: { ...headers, ...(requestId === undefined ? {} : { 'x-request-id': requestId }) },
  };
}

function unauthorized(): Answer {
  return json(401, { error: 'unauthorized', message: 'missing or invalid bearer token' }, undefined, {
    'www-authenticate': 'Bearer realm="shieldwatch-simulator", error="invalid_token"',
  });
}

/** A 2xx whose body cannot be used: JSON cut in half, or the HTML page a misconfigured proxy sends. */
function malformed(answer: Answer, truncate: boolean): Answer {
  if (truncate) {
    // Any proper prefix of a JSON object's text is invalid JSON: the closing brace comes last.
    return { ...answer, body: answer.body.slice(0, Math.max(1, Math.floor(answer.body.length / 2))) };
  }
  return {
    ...answer,
    body: '<html><head><title>Service Unavailable</title></head><body>upstream is starting</body></html>',
    headers: { ...answer.headers, 'content-type': 'text/html; charset=utf-8' },
  };
}

/** A request body of at most `maxBytes`, as UTF-8 text; `undefined` when it is larger or the request fails. */
function readSmallBody(req: http.IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', () => resolve(undefined));
    req.once('close', () => resolve(undefined));
  });
}

function send(res: http.ServerResponse, answer: Answer): void {
  if (res.destroyed) return;
  const body = Buffer.from(answer.body, 'utf8');
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...answer.headers,
    'content-length': String(body.length),
  });
  res.end(body);
}

function countPath(byPath: Record<string, number>, rawPath: string): void {
  const known = byPath[rawPath] !== undefined || Object.keys(byPath).length < MAX_COUNTED_PATHS;
  const key = known ? rawPath : '(other)';
  byPath[key] = (byPath[key] ?? 0) + 1;
}

function numericCodesFor(scenario: Scenario): Map<string, number> {
  const codes = new Map(Object.entries(NUMERIC_STATUS_CODES));
  let next = 10;
  for (const step of scenario.steps) {
    if (!codes.has(step.status)) codes.set(step.status, next++);
  }
  return codes;
}

function observedText(shape: StatusShape, status: string, codes: ReadonlyMap<string, number>): string {
  if (shape === 'numeric') return String(codes.get(status) ?? 99);
  if (shape === 'boolean') return String(status === 'active');
  return status;
}

function loopTime(scenario: Scenario, scenarioMs: number): number {
  const t = Math.max(0, scenarioMs);
  return scenario.periodMs === undefined ? t : t % scenario.periodMs;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** FNV-1a, 32 bits: a stable per-network baseline without a table. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
