/**
 * The simulator on a terminal (`shieldwatch simulate`): a line whenever the served status or the attacks change,
 * and keys that hold a status by hand.
 */
import type { CliIo } from '../io.ts';
import { println } from '../io.ts';
import type { Faults } from './faults.ts';
import { attacksAt, nextChangeAt, type ScenarioAttack, scenarioPosition } from './scenario.ts';
import type { Simulator } from './server.ts';

/** Milliseconds as seconds with one decimal, e.g. `8.0s`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** The faults switched on, in words; `none` without any. */
export function describeFaults(faults: Faults): string {
  const share = (rate: number | undefined) => `${Math.round((rate ?? 0) * 1000) / 10}%`;
  const parts = [
    ...(faults.latencyMs || faults.jitterMs
      ? [`latency ${faults.latencyMs ?? 0} ms${faults.jitterMs ? ` + up to ${faults.jitterMs} ms` : ''}`]
      : []),
    ...(faults.errorRate ? [`5xx ${share(faults.errorRate)}`] : []),
    ...(faults.rateLimitRate
      ? [`429 ${share(faults.rateLimitRate)} (Retry-After ${faults.retryAfterSeconds ?? 1} s)`]
      : []),
    ...(faults.malformedRate ? [`malformed ${share(faults.malformedRate)}`] : []),
    ...(faults.hangRate ? [`hang ${share(faults.hangRate)}`] : []),
    ...(faults.authFailRate ? [`401 ${share(faults.authFailRate)}`] : []),
  ];
  return parts.length === 0 ? 'none' : parts.join(', ');
}

function describeAttacks(attacks: readonly ScenarioAttack[]): string {
  return attacks
    .map((attack) => `udp_flood x${attack.factor} on ${attack.networks?.join(', ') ?? 'every network'}`)
    .join('; ');
}

/**
 * Prints a line whenever the served status (scenario or held by hand) or the attacks change, from the first
 * request on; returns a stop function.
 */
export function followScenario(sim: Simulator, io: CliIo): () => void {
  let timer: NodeJS.Timeout | undefined;
  let last: string | undefined;
  const report = (scenarioMs: number): void => {
    clearTimeout(timer);
    const held = sim.heldStatus;
    const status = held ?? scenarioPosition(sim.scenario, scenarioMs).status;
    const attacks = describeAttacks(attacksAt(sim.scenario, scenarioMs));
    const observed = sim.observedStatusOf(status);
    const line = [
      `filter status ${JSON.stringify(status)}`,
      ...(observed === status ? [] : [`(served as ${observed})`]),
      ...(held === undefined ? [] : ['(held by hand; --resume or key r gives it back to the scenario)']),
      ...(attacks === '' ? [] : [`attack: ${attacks}`]),
    ].join('  ');
    if (line !== last) {
      last = line;
      const elapsed = seconds(scenarioMs / sim.speed).padStart(7);
      const scenarioTime = sim.speed === 1 ? '' : ` (scenario ${seconds(scenarioMs)})`;
      println(io.stdout, `[${elapsed}${scenarioTime}] ${line}`);
    }
    const next = nextChangeAt(sim.scenario, scenarioMs);
    const startedAt = sim.startedAt;
    if (next === undefined || startedAt === undefined) return;
    const delay = Math.max(0, next / sim.speed - (io.now() - startedAt));
    timer = setTimeout(() => report(next), delay);
  };
  const unsubscribe = sim.subscribe((event) => {
    report(event.kind === 'started' ? 0 : sim.scenarioNow());
  });
  if (sim.startedAt !== undefined) report(sim.scenarioNow());
  return () => {
    unsubscribe();
    clearTimeout(timer);
  };
}

/** What a key pressed in the simulator's terminal does. */
export type KeyAction =
  | { readonly kind: 'hold'; readonly status: string }
  | { readonly kind: 'release' }
  | { readonly kind: 'quit' }
  | { readonly kind: 'none' };

/** The status the space bar flips to from `current`. */
const FLIP_TO = (current: string): string => (current === 'active' ? 'mitigating' : 'active');

/**
 * The action of one key (as raw-mode stdin delivers it): `a` holds "active", `m` "mitigating", space or
 * Enter flips between them, `r` gives the status back to the scenario, `q` and Ctrl-C quit.
 */
export function keyAction(key: string, current: string): KeyAction {
  switch (key) {
    case 'a':
      return { kind: 'hold', status: 'active' };
    case 'm':
      return { kind: 'hold', status: 'mitigating' };
    case ' ':
    case '\r':
    case '\n':
      return { kind: 'hold', status: FLIP_TO(current) };
    case 'r':
      return { kind: 'release' };
    case 'q':
    case '\u0003':
      return { kind: 'quit' };
    default:
      return { kind: 'none' };
  }
}

/** Reads keys from a terminal's stdin; returns a stop function that gives the terminal back as it was. */
export function followKeys(sim: Simulator, onQuit: () => void): () => void {
  const stdin = process.stdin;
  if (stdin.isTTY !== true) return () => {};
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  const onData = (chunk: string): void => {
    for (const key of chunk) {
      const action = keyAction(key, sim.currentStatus());
      if (action.kind === 'hold') sim.setStatus(action.status);
      else if (action.kind === 'release') sim.setStatus(undefined);
      else if (action.kind === 'quit') onQuit();
    }
  };
  stdin.on('data', onData);
  stdin.resume();
  return () => {
    stdin.off('data', onData);
    stdin.setRawMode(false);
    stdin.pause();
  };
}
