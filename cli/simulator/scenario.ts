/**
 * The simulator's scenario timeline, pure: which filter status and which figures a scenario shows at which
 * scenario time, how the status body looks in each shape, and the seeded PRNG behind noise and faults.
 * No I/O and no clock reads: every time is passed in.
 */
import { DEFAULT_SIMULATOR_NETWORKS } from './defaults.ts';

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
 * The `SHIELDWATCH_STATUS_PATH` a monitor needs for a shape, or `undefined` when the default paths
 * (`status`, `state`, `data.status`, ...) already find the status.
 */
export function statusPathFor(shape: StatusShape): string | undefined {
  return shape === 'nested' ? 'data.filter.state' : undefined;
}

/**
 * A built-in scenario; `networks` names the first networks: `demo` attacks the first, and from a little later
 * the second too (the attack spreads, so its incident gets a network that joins; docs/alerts.md, Incidents).
 */
export function builtinScenario(
  name: ScenarioName,
  networks: readonly string[] = DEFAULT_SIMULATOR_NETWORKS,
): Scenario {
  const [first, second] = networks.filter((id) => id !== '*');
  const target = first === undefined ? {} : { networks: [first] };
  const spread =
    second === undefined ? [] : [{ fromMs: 11_000, toMs: 17_000, factor: 30, networks: [second] }];
  switch (name) {
    case 'demo':
      return {
        name,
        steps: [
          { atMs: 0, status: 'active' },
          { atMs: 8_000, status: 'mitigating' },
          { atMs: 20_000, status: 'active' },
        ],
        attacks: [{ fromMs: 8_000, toMs: 20_000, factor: 40, ...target }, ...spread],
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

/** Problems with a scenario name or a scenario, each naming the option; empty when it is usable. */
export function scenarioProblems(scenario: Scenario | ScenarioName | undefined): string[] {
  if (typeof scenario === 'string') {
    return SCENARIO_NAMES.includes(scenario)
      ? []
      : [`scenario must be one of ${SCENARIO_NAMES.join(', ')} (got ${scenario})`];
  }
  return scenario === undefined ? [] : validateScenario(scenario);
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

/** What the filter status body holds at one moment. */
export interface StatusMoment {
  readonly status: string;
  /** Clock time (epoch ms) the status began. */
  readonly sinceMs: number;
  /** Clock time (epoch ms) of the answer. */
  readonly clockMs: number;
  readonly requestId: string;
}

/** The filter status body in `shape`; `codes` are the `numeric` shape's ({@link numericCodesFor}). */
export function statusBody(
  shape: StatusShape,
  moment: StatusMoment,
  codes: ReadonlyMap<string, number>,
): unknown {
  const { status, requestId: id } = moment;
  const at = new Date(moment.clockMs).toISOString();
  switch (shape) {
    case 'flat':
      return { status, updatedAt: at, requestId: id };
    case 'nested':
      return {
        data: {
          filter: { state: status, since: new Date(moment.sinceMs).toISOString() },
        },
        meta: { requestId: id, generatedAt: at },
      };
    case 'envelope':
      return { data: { status }, requestId: id, servedAt: at };
    case 'numeric':
      return { state: codes.get(status) ?? 99, requestId: id, updatedAt: at };
    case 'boolean':
      return { filter: { state: status === 'active' }, requestId: id, updatedAt: at };
  }
}

/** A network's real-time body at `scenarioMs` (answered at clock time `clockMs`); `random` adds the noise. */
export function realtimeBody(
  scenario: Scenario,
  scenarioMs: number,
  clockMs: number,
  networkId: string,
  random: () => number,
): unknown {
  const factor = attackFactor(scenario, scenarioMs, networkId);
  return {
    networkId,
    timestamp: new Date(clockMs).toISOString(),
    ...trafficFigures(networkId, scenarioMs, factor, random),
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

/** Codes of the `numeric` shape for the statuses of `scenario`. */
export function numericCodesFor(scenario: Scenario): Map<string, number> {
  const codes = new Map(Object.entries(NUMERIC_STATUS_CODES));
  let next = 10;
  for (const step of scenario.steps) {
    if (!codes.has(step.status)) codes.set(step.status, next++);
  }
  return codes;
}

/** The status text a monitor reads for `status` in `shape` (`numeric` and `boolean` encode it). */
export function observedText(shape: StatusShape, status: string, codes: ReadonlyMap<string, number>): string {
  if (shape === 'numeric') return String(codes.get(status) ?? 99);
  if (shape === 'boolean') return String(status === 'active');
  return status;
}

function loopTime(scenario: Scenario, scenarioMs: number): number {
  const t = Math.max(0, scenarioMs);
  return scenario.periodMs === undefined ? t : t % scenario.periodMs;
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
