/**
 * A simulator of the protection API on 127.0.0.1, for the demo, tests and benchmarks: the HTTP server.
 *
 * It serves the three known endpoints behind a Bearer check, plays a scenario (the filter status over time
 * and when networks are under attack), shapes the filter status body in one of several ways a real API
 * might, and injects faults (latency, 5xx, 429, malformed bodies, hangs, rejected keys) from a seeded PRNG,
 * so that a run is repeatable. Scenario time comes from an injectable clock and can run faster than real
 * time; latency is always real time. The scenario clock starts at the first authorized API request, not when
 * the server starts, so a monitor started later still sees the whole scenario. A status can be held by hand
 * (`setStatus`, or the Bearer-protected control endpoint {@link CONTROL_PATH}) until it is released.
 *
 * The scenario timeline is in `./scenario.ts` (pure), the faults in `./faults.ts`, the control endpoint in
 * `./control.ts`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CONTROL_PATH, handleControl, heldStatusProblem } from './control.ts';
import { DEFAULT_SIMULATOR_KEY, DEFAULT_SIMULATOR_NETWORKS, DEFAULT_SIMULATOR_SEED } from './defaults.ts';
import {
  drawFaults,
  type FaultKind,
  type Faults,
  faultBeforeAnswer,
  faultProblems,
  malformed,
} from './faults.ts';
import { type Answer, json, send, unauthorized } from './http.ts';
import {
  builtinScenario,
  mulberry32,
  numericCodesFor,
  observedText,
  realtimeBody,
  type Scenario,
  type ScenarioName,
  STATUS_SHAPES,
  type StatusShape,
  scenarioPosition,
  scenarioProblems,
  statusBody,
  statusPathFor,
} from './scenario.ts';

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
   * Holds the filter status at `status` (any text, up to `MAX_HELD_STATUS_LENGTH` characters, no control
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

/** Most distinct paths counted in `stats.byPath`; the rest are counted under `(other)`. */
const MAX_COUNTED_PATHS = 1000;
const NETWORK_ROUTE = /^\/api\/networks\/([^/]+)\/realtime$/;

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
  problems.push(...faultProblems(faults), ...scenarioProblems(options.scenario));
  return problems;
}

type Route =
  | { readonly kind: 'user' }
  | { readonly kind: 'filter' }
  | { readonly kind: 'network'; readonly networkId: string }
  | { readonly kind: 'bad-id' };

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

  const filterBody = (clockMs: number, requestId: string): unknown => {
    const position = scenarioPosition(scenario, scenarioMs(clockMs));
    const status = held?.status ?? position.status;
    const sinceMs = held?.atMs ?? (startedAt ?? clockMs) + position.sinceMs / speed;
    return statusBody(shape, { status, sinceMs, clockMs, requestId }, numericCodes);
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
        return json(
          200,
          realtimeBody(scenario, scenarioMs(clockMs), clockMs, route.networkId, dataRandom),
          id,
        );
    }
  };

  const controlAnswer = (): Answer =>
    json(200, {
      status: currentStatus(),
      held: held !== undefined,
      scenario: scenario.name,
      started: startedAt !== undefined,
    });

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const rawPath = (req.url ?? '').split('?', 1)[0]!;
    countPath(stats.byPath, rawPath);
    if (rawPath === CONTROL_PATH) {
      return handleControl(req, res, { authorized, setStatus, answer: controlAnswer });
    }
    const draw = drawFaults(faults, faultRandom);
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
    const fault = faultBeforeAnswer(draw, faults);
    if (fault !== undefined) {
      stats.faults[fault.kind]++;
      // A hang is never answered: the socket stays open until the client gives up or close() destroys it.
      if (fault.answer !== undefined) send(res, fault.answer);
      return;
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

function countPath(byPath: Record<string, number>, rawPath: string): void {
  const known = byPath[rawPath] !== undefined || Object.keys(byPath).length < MAX_COUNTED_PATHS;
  const key = known ? rawPath : '(other)';
  byPath[key] = (byPath[key] ?? 0) + 1;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
