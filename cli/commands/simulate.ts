import { parseDurationMs } from '../format.ts';
import { type CliIo, type Command, println } from '../io.ts';
import {
  attacksAt,
  DEFAULT_SIMULATOR_KEY,
  DEFAULT_SIMULATOR_NETWORKS,
  DEFAULT_SIMULATOR_SEED,
  type Faults,
  nextChangeAt,
  SCENARIO_NAMES,
  type ScenarioAttack,
  type ScenarioName,
  type Simulator,
  type SimulatorOptions,
  STATUS_SHAPES,
  type StatusShape,
  scenarioPosition,
  startSimulator,
} from '../simulator.ts';

/** The CLI's port: a fixed one, so the printed settings stay valid from one run to the next. */
const DEFAULT_PORT = 8787;
/** Faster than this, the status lines would scroll by faster than anyone can read them. */
const MAX_SPEED = 1000;
/** `setTimeout` cannot wait longer (about 24.8 days). */
const MAX_DURATION_MS = 2 ** 31 - 1;

type Values = Parameters<Command['run']>[0];

/** What the command line asks for, or every problem with it. */
type Parsed =
  | { ok: true; options: SimulatorOptions; durationMs: number | undefined }
  | { ok: false; problems: string[] };

/** Reads and checks every option at once, so a user sees all mistakes in one go. */
export function parseSimulateOptions(values: Values): Parsed {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const number = (
    name: string,
    {
      min,
      max,
      integer = false,
      above = false,
    }: { min: number; max: number; integer?: boolean; above?: boolean },
    what: string,
  ): number | undefined => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    const value = /^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(raw) ? Number(raw) : Number.NaN;
    const inRange = (above ? value > min : value >= min) && value <= max;
    if (!Number.isFinite(value) || !inRange || (integer && !Number.isInteger(value))) {
      problems.push(`--${name} must be ${what} (got "${raw}")`);
      return undefined;
    }
    return value;
  };
  const rate = (name: string): number | undefined =>
    number(name, { min: 0, max: 1 }, 'a share from 0 to 1, e.g. 0.1');

  const port = number('port', { min: 0, max: 65535, integer: true }, 'a whole number from 0 to 65535');
  const key = text('key');
  if (key !== undefined && !/^[\x21-\x7E]{1,512}$/.test(key)) {
    problems.push('--key must be 1 to 512 printable ASCII characters without spaces');
  }
  let networks: string[] | undefined;
  const networksRaw = text('networks');
  if (networksRaw !== undefined) {
    networks = [
      ...new Set(
        networksRaw
          .split(',')
          .map((id) => id.trim())
          .filter((id) => id !== ''),
      ),
    ];
    if (networks.length === 0)
      problems.push('--networks must list at least one id, e.g. edge-1,edge-2 (or *)');
    if (networks.some((id) => /[\x00-\x1F\x7F]/.test(id) || id.length > 512)) {
      problems.push('--networks ids must be at most 512 characters, without control characters');
    }
  }
  const shape = text('shape');
  if (shape !== undefined && !STATUS_SHAPES.includes(shape as StatusShape)) {
    problems.push(`--shape must be one of ${STATUS_SHAPES.join(', ')} (got "${shape}")`);
  }
  const scenario = text('scenario');
  if (scenario !== undefined && !SCENARIO_NAMES.includes(scenario as ScenarioName)) {
    problems.push(`--scenario must be one of ${SCENARIO_NAMES.join(', ')} (got "${scenario}")`);
  }
  const speed = number(
    'speed',
    { min: 0, max: MAX_SPEED, above: true },
    `a number above 0, at most ${MAX_SPEED}`,
  );
  const faults: Faults = {
    latencyMs: number('latency', { min: 0, max: 600_000 }, 'milliseconds from 0 to 600000'),
    jitterMs: number('jitter', { min: 0, max: 600_000 }, 'milliseconds from 0 to 600000'),
    errorRate: rate('error-rate'),
    rateLimitRate: rate('rate-limit-rate'),
    retryAfterSeconds: number(
      'retry-after',
      { min: 0, max: 86_400, integer: true },
      'whole seconds from 0 to 86400',
    ),
    malformedRate: rate('malformed-rate'),
    hangRate: rate('hang-rate'),
    authFailRate: rate('auth-fail-rate'),
  };
  const seed = number(
    'seed',
    { min: 0, max: 0xffffffff, integer: true },
    'a whole number from 0 to 4294967295',
  );
  const durationRaw = text('duration');
  let durationMs: number | undefined;
  if (durationRaw !== undefined) {
    // Every problem is listed at once, so the shared parser's message is collected rather than thrown.
    try {
      durationMs = parseDurationMs('--duration', durationRaw, 1, MAX_DURATION_MS);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) return { ok: false, problems };

  const definedFaults = Object.fromEntries(
    Object.entries(faults).filter(([, value]) => value !== undefined),
  ) as Faults;
  return {
    ok: true,
    durationMs,
    options: {
      port: port ?? DEFAULT_PORT,
      key: key ?? DEFAULT_SIMULATOR_KEY,
      ...(networks === undefined ? {} : { networks }),
      ...(shape === undefined ? {} : { shape: shape as StatusShape }),
      scenario: (scenario ?? 'demo') as ScenarioName,
      ...(speed === undefined ? {} : { speed }),
      faults: definedFaults,
      seed: seed ?? DEFAULT_SIMULATOR_SEED,
    },
  };
}

/** Quotes a value for a POSIX shell, only when it needs it. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function describeFaults(faults: Faults): string {
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

/** Prints a line whenever the scenario's status (or its attacks) change; returns a stop function. */
function followScenario(sim: Simulator, io: CliIo): () => void {
  let timer: NodeJS.Timeout | undefined;
  let last: string | undefined;
  const report = (scenarioMs: number): void => {
    const { status } = scenarioPosition(sim.scenario, scenarioMs);
    const attacks = describeAttacks(attacksAt(sim.scenario, scenarioMs));
    const observed = sim.observedStatusAt(scenarioMs / sim.speed);
    const line = [
      `filter status ${JSON.stringify(status)}`,
      ...(observed === status ? [] : [`(served as ${observed})`]),
      ...(attacks === '' ? [] : [`attack: ${attacks}`]),
    ].join('  ');
    if (line !== last) {
      last = line;
      const elapsed = seconds(scenarioMs / sim.speed).padStart(7);
      const scenarioTime = sim.speed === 1 ? '' : ` (scenario ${seconds(scenarioMs)})`;
      println(io.stdout, `[${elapsed}${scenarioTime}] ${line}`);
    }
    const next = nextChangeAt(sim.scenario, scenarioMs);
    if (next === undefined) return;
    const delay = Math.max(0, next / sim.speed - (io.now() - sim.startedAt));
    timer = setTimeout(() => report(next), delay);
  };
  report(Math.max(0, (io.now() - sim.startedAt) * sim.speed));
  return () => clearTimeout(timer);
}

/** Resolves on SIGINT, SIGTERM or when the duration has passed, with what stopped it. */
function untilStopped(durationMs: number | undefined): { stopped: Promise<string>; dispose: () => void } {
  let resolveStop: (why: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    resolveStop = resolve;
  });
  const onSigint = (): void => resolveStop('interrupted (SIGINT)');
  const onSigterm = (): void => resolveStop('terminated (SIGTERM)');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  const timer =
    durationMs === undefined ? undefined : setTimeout(() => resolveStop('duration elapsed'), durationMs);
  return {
    stopped,
    dispose: () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      clearTimeout(timer);
    },
  };
}

export const simulateCommand: Command = {
  name: 'simulate',
  summary: 'run a simulator of the protection API on 127.0.0.1 (scenarios, body shapes, faults)',
  help: [
    'Usage: shieldwatch simulate [options]',
    '',
    'Serves a simulated protection API on 127.0.0.1 (never another interface): GET /api/user,',
    '/api/filter/status and /api/networks/{id}/realtime behind a Bearer key. A scenario changes the',
    "filter status over time and floods a network's traffic during an attack. It prints the export lines",
    'to paste in another terminal (then run `npx shieldwatch poll` there), a line each time the scenario',
    'status changes, and runs until Ctrl-C or --duration.',
    '',
    'Options:',
    `  --port N              TCP port on 127.0.0.1; 0 picks a free one (default ${DEFAULT_PORT})`,
    `  --key K               the Bearer key it accepts (default ${DEFAULT_SIMULATOR_KEY})`,
    `  --networks A,B        network ids it knows; * accepts any id (default ${DEFAULT_SIMULATOR_NETWORKS.join(',')})`,
    '  --shape S             filter status body (default flat):',
    '                          flat      {"status":"active","updatedAt":...}',
    '                          nested    {"data":{"filter":{"state":"active"}},"meta":{...}}',
    '                                    (needs SHIELDWATCH_STATUS_PATH=data.filter.state, printed for you)',
    '                          envelope  {"data":{"status":"active"},"requestId":...}',
    '                          numeric   {"state":1}  (0 inactive, 1 active, 2 mitigating)',
    '                          boolean   {"filter":{"state":true}}  (true while active)',
    '  --scenario NAME       the filter status over time (default demo):',
    '                          demo      active; mitigating from 8 s to 20 s with a x40 traffic spike',
    '                                    on the first network; active again from 20 s, then holds',
    '                          steady    active forever, no attack',
    '                          flapping  active and mitigating in turn every 5 s, looping',
    `  --speed N             scenario time runs N times faster, above 0 up to ${MAX_SPEED} (default 1)`,
    '  --latency MS          delay every answer by MS milliseconds (default 0)',
    '  --jitter MS           add a random delay of up to MS milliseconds (default 0)',
    '  --error-rate R        share of requests answered with a 5xx, 0 to 1 (default 0)',
    '  --rate-limit-rate R   share answered with 429 and Retry-After, 0 to 1 (default 0)',
    '  --retry-after S       the Retry-After of a 429, whole seconds (default 1)',
    '  --malformed-rate R    share of 2xx answers that are not JSON or cut short, 0 to 1 (default 0)',
    '  --hang-rate R         share of requests accepted and never answered, 0 to 1 (default 0)',
    '  --auth-fail-rate R    share refused with 401 although the key is right, 0 to 1 (default 0)',
    `  --seed N              seed of the faults and noise: same seed, same run (default ${DEFAULT_SIMULATOR_SEED})`,
    '  --duration D          stop after D, e.g. 500ms, 90s, 10m, 2h (default: until Ctrl-C)',
    '  -h, --help            show this help',
    '',
    'Examples:',
    '  shieldwatch simulate',
    '  shieldwatch simulate --shape nested --scenario flapping --speed 10',
    '  shieldwatch simulate --port 0 --latency 200 --jitter 300 --error-rate 0.1 --hang-rate 0.02',
    '',
    'Exit codes: 0 stopped by Ctrl-C, SIGTERM or --duration; 1 the port could not be used;',
    '2 bad options (every problem is listed).',
  ].join('\n'),
  options: {
    port: { type: 'string' },
    key: { type: 'string' },
    networks: { type: 'string' },
    shape: { type: 'string' },
    scenario: { type: 'string' },
    speed: { type: 'string' },
    latency: { type: 'string' },
    jitter: { type: 'string' },
    'error-rate': { type: 'string' },
    'rate-limit-rate': { type: 'string' },
    'retry-after': { type: 'string' },
    'malformed-rate': { type: 'string' },
    'hang-rate': { type: 'string' },
    'auth-fail-rate': { type: 'string' },
    seed: { type: 'string' },
    duration: { type: 'string' },
  },
  async run(values, io) {
    const parsed = parseSimulateOptions(values);
    if (!parsed.ok) {
      for (const problem of parsed.problems) println(io.stderr, `shieldwatch simulate: ${problem}`);
      println(io.stderr, 'Run `shieldwatch simulate --help`.');
      return 2;
    }
    const { options, durationMs } = parsed;
    let sim: Simulator;
    try {
      sim = await startSimulator({ ...options, now: io.now });
    } catch (error) {
      const hint = options.port === 0 ? '' : ' (choose another with --port, or --port 0 for a free one)';
      println(io.stderr, `shieldwatch simulate: ${(error as Error).message}${hint}`);
      return 1;
    }
    // Listen for signals before telling the user how to reach us, so Ctrl-C always closes cleanly.
    const stop = untilStopped(durationMs);
    let unfollow: () => void = () => {};
    try {
      println(
        io.stdout,
        `# shieldwatch simulator on ${sim.url}: scenario ${sim.scenario.name}, shape ${sim.shape}, speed ${sim.speed}x, seed ${options.seed}`,
      );
      println(io.stdout, `# faults: ${describeFaults(options.faults ?? {})}`);
      println(io.stdout, '# paste these lines in another terminal, then run: npx shieldwatch poll');
      for (const [name, value] of Object.entries(sim.env)) {
        println(io.stdout, `export ${name}=${shellQuote(value)}`);
      }
      println(
        io.stdout,
        `# ${durationMs === undefined ? 'Ctrl-C stops it' : `stops after ${seconds(durationMs)} or on Ctrl-C`}; status changes follow`,
      );
      unfollow = followScenario(sim, io);
      const why = await stop.stopped;
      unfollow();
      await sim.close();
      const { requests, connections } = sim.stats;
      println(
        io.stdout,
        `# stopped: ${why} after ${seconds(io.now() - sim.startedAt)}; ${requests} request(s) on ${connections} connection(s)`,
      );
      return 0;
    } finally {
      unfollow();
      stop.dispose();
      await sim.close();
    }
  },
};
