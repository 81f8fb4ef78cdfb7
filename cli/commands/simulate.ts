import { type DeclaredOptions, type DeclaredValues, defineCommand } from '../args.ts';
import { parseDurationMs } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { CONTROL_PATH, heldStatusProblem } from '../simulator/control.ts';
import {
  DEFAULT_SIMULATOR_KEY,
  DEFAULT_SIMULATOR_NETWORKS,
  DEFAULT_SIMULATOR_SEED,
} from '../simulator/defaults.ts';
import type { Faults } from '../simulator/faults.ts';
import { SCENARIO_NAMES, type ScenarioName, STATUS_SHAPES, type StatusShape } from '../simulator/scenario.ts';
import { type Simulator, type SimulatorOptions, startSimulator } from '../simulator/server.ts';
import { describeFaults, followKeys, followScenario, seconds } from '../simulator/terminal.ts';

/** The CLI's port: a fixed one, so the printed settings stay valid from one run to the next. */
const DEFAULT_PORT = 8787;
/** Faster than this, the status lines would scroll by faster than anyone can read them. */
const MAX_SPEED = 1000;
/** `setTimeout` cannot wait longer (about 24.8 days). */
const MAX_DURATION_MS = 2 ** 31 - 1;

type Values = DeclaredValues<typeof SIMULATE_OPTIONS, readonly []>;
/** The options that take a value. */
type TextOption = Exclude<keyof typeof SIMULATE_OPTIONS, 'resume'>;

/** What the command line asks for, or every problem with it. */
type Parsed =
  | { ok: true; options: SimulatorOptions; durationMs: number | undefined }
  | { ok: false; problems: string[] };

/** Reads and checks every option at once, so a user sees all mistakes in one go. */
export function parseSimulateOptions(values: Values): Parsed {
  const problems: string[] = [];
  const text = (name: TextOption): string | undefined => values[name];
  const number = (
    name: TextOption,
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
  const rate = (name: TextOption): number | undefined =>
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

/** Options that only a simulator being started takes, not `--set-status` / `--resume`. */
const SERVER_ONLY_OPTIONS = [
  'networks',
  'shape',
  'scenario',
  'speed',
  'latency',
  'jitter',
  'error-rate',
  'rate-limit-rate',
  'retry-after',
  'malformed-rate',
  'hang-rate',
  'auth-fail-rate',
  'seed',
  'duration',
] as const;

/**
 * `--set-status X` / `--resume`: holds the filter status of the simulator running on 127.0.0.1:--port, or
 * gives it back to its scenario, through its control endpoint (with the simulator's --key).
 */
async function controlRunning(values: Values, io: CliIo): Promise<number> {
  const problems: string[] = [];
  const status = values['set-status'];
  const resume = values.resume;
  if (status !== undefined && resume) problems.push('give either --set-status or --resume, not both');
  const statusProblem = status === undefined ? undefined : heldStatusProblem(status);
  if (statusProblem !== undefined) problems.push(`--set-status: ${statusProblem}`);
  const extra = SERVER_ONLY_OPTIONS.filter((name) => values[name] !== undefined);
  if (extra.length > 0) {
    problems.push(
      `--${resume ? 'resume' : 'set-status'} talks to a running simulator: only --port and --key go with it (not ${extra.map((n) => `--${n}`).join(', ')})`,
    );
  }
  const portText = values.port ?? String(DEFAULT_PORT);
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
    problems.push(`--port must be the running simulator's port, 1 to 65535 (got "${portText}")`);
  }
  if (problems.length > 0) {
    for (const problem of problems) println(io.stderr, `shieldwatch simulate: ${problem}`);
    println(io.stderr, 'Run `shieldwatch simulate --help`.');
    return 2;
  }
  const key = values.key ?? DEFAULT_SIMULATOR_KEY;
  const where = `127.0.0.1:${portText}`;
  let response: Response;
  try {
    response = await fetch(`http://${where}${CONTROL_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: status ?? null }),
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    println(
      io.stderr,
      `shieldwatch simulate: no simulator answers on ${where}: start one with \`shieldwatch simulate\` (or give its --port)`,
    );
    return 1;
  }
  const answer = (await response.json().catch(() => undefined)) as
    | { status?: unknown; held?: unknown; message?: unknown }
    | undefined;
  if (response.status === 401) {
    println(
      io.stderr,
      `shieldwatch simulate: the simulator on ${where} refused the key: give the --key it was started with`,
    );
    return 1;
  }
  if (!response.ok || typeof answer?.status !== 'string') {
    println(
      io.stderr,
      `shieldwatch simulate: ${where} answered HTTP ${response.status}${typeof answer?.message === 'string' ? `: ${answer.message}` : ''} (is it a shieldwatch simulator?)`,
    );
    return 1;
  }
  println(
    io.stdout,
    answer.held === true
      ? `simulator on ${where} now serves filter status ${JSON.stringify(answer.status)}, held until --resume or another --set-status`
      : `simulator on ${where} follows its scenario again: filter status ${JSON.stringify(answer.status)}`,
  );
  return 0;
}

/**
 * Resolves on SIGINT, SIGTERM, `quit()`, the output closed or when the duration has passed, with what
 * stopped it.
 */
function untilStopped(
  durationMs: number | undefined,
  closed: AbortSignal | undefined,
): {
  stopped: Promise<string>;
  quit: () => void;
  dispose: () => void;
} {
  let resolveStop: (why: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    resolveStop = resolve;
  });
  const onSigint = (): void => resolveStop('interrupted (SIGINT)');
  const onSigterm = (): void => resolveStop('terminated (SIGTERM)');
  const onClosed = (): void => resolveStop('output closed');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  closed?.addEventListener('abort', onClosed, { once: true });
  const timer =
    durationMs === undefined ? undefined : setTimeout(() => resolveStop('duration elapsed'), durationMs);
  return {
    stopped,
    quit: () => resolveStop('quit (key)'),
    dispose: () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      closed?.removeEventListener('abort', onClosed);
      clearTimeout(timer);
    },
  };
}

/** The options of `simulate`, read and checked all at once by {@link parseSimulateOptions}. */
const SIMULATE_OPTIONS = {
  port: {
    type: 'string',
    value: 'N',
    description: `TCP port on 127.0.0.1; 0 picks a free one (default ${DEFAULT_PORT})`,
  },
  key: {
    type: 'string',
    value: 'K',
    description: `the Bearer key it accepts (default ${DEFAULT_SIMULATOR_KEY})`,
  },
  networks: {
    type: 'string',
    value: 'A,B',
    description: `network ids it knows; * accepts any id (default ${DEFAULT_SIMULATOR_NETWORKS.join(',')})`,
  },
  shape: {
    type: 'string',
    value: 'S',
    description: `the filter status body: ${STATUS_SHAPES.join(', ')} (default flat; see Shapes below)`,
  },
  scenario: {
    type: 'string',
    value: 'NAME',
    description: `the filter status over time: ${SCENARIO_NAMES.join(', ')} (default demo; see Scenarios below)`,
  },
  speed: {
    type: 'string',
    value: 'N',
    description: `scenario time runs N times faster, above 0 up to ${MAX_SPEED} (default 1)`,
  },
  latency: { type: 'string', value: 'MS', description: 'delay every answer by MS milliseconds (default 0)' },
  jitter: {
    type: 'string',
    value: 'MS',
    description: 'add a random delay of up to MS milliseconds (default 0)',
  },
  'error-rate': {
    type: 'string',
    value: 'R',
    description: 'share of requests answered with a 5xx, 0 to 1 (default 0)',
  },
  'rate-limit-rate': {
    type: 'string',
    value: 'R',
    description: 'share answered with 429 and Retry-After, 0 to 1 (default 0)',
  },
  'retry-after': {
    type: 'string',
    value: 'S',
    description: 'the Retry-After of a 429, whole seconds (default 1)',
  },
  'malformed-rate': {
    type: 'string',
    value: 'R',
    description: 'share of 2xx answers that are not JSON or cut short, 0 to 1 (default 0)',
  },
  'hang-rate': {
    type: 'string',
    value: 'R',
    description: 'share of requests accepted and never answered, 0 to 1 (default 0)',
  },
  'auth-fail-rate': {
    type: 'string',
    value: 'R',
    description: 'share refused with 401 although the key is right, 0 to 1 (default 0)',
  },
  seed: {
    type: 'string',
    value: 'N',
    description: `seed of the faults and noise: same seed, same run (default ${DEFAULT_SIMULATOR_SEED})`,
  },
  duration: {
    type: 'string',
    value: 'D',
    description: 'stop after D (default: until Ctrl-C)',
    examples: ['500ms', '90s', '10m', '2h'],
  },
  'set-status': {
    type: 'string',
    value: 'STATUS',
    description: 'do not start a simulator: hold STATUS on the one running on --port',
  },
  resume: {
    type: 'boolean',
    description: 'do not start a simulator: give the running one back to its scenario',
  },
} as const satisfies DeclaredOptions;

export const simulateCommand = defineCommand({
  name: 'simulate',
  description: [
    'Serves a simulated protection API on 127.0.0.1 (never another interface): GET /api/user,',
    '/api/filter/status and /api/networks/{id}/realtime behind a Bearer key. A scenario changes the',
    "filter status over time and floods a network's traffic during an attack; its clock starts at the",
    'first request, so a monitor started later still sees every change. It prints the export lines to',
    'paste in another terminal (then run `npx shieldwatch run --every 5s` there), a line each time the',
    'served status changes, and runs until Ctrl-C or --duration.',
    '',
    'Flip the status on demand: in its terminal press a (active), m (mitigating), space (flip between',
    'them) or r (back to the scenario), q quits; or from another terminal:',
    '  shieldwatch simulate --set-status mitigating   hold that status on the running simulator',
    '  shieldwatch simulate --resume                  give the status back to the scenario',
    `These talk to 127.0.0.1:--port (default ${DEFAULT_PORT}) through its control endpoint ${CONTROL_PATH},`,
    'which asks for the same Bearer key as the API (--key, default demo-key).',
  ].join('\n'),
  usage: [
    'simulate [options]',
    'simulate --set-status STATUS [--port N] [--key K]',
    'simulate --resume [--port N] [--key K]',
  ],
  options: SIMULATE_OPTIONS,
  examples: [
    'simulate',
    'simulate --shape nested --scenario flapping --speed 10',
    'simulate --port 0 --latency 200 --jitter 300 --error-rate 0.1 --hang-rate 0.02',
    'simulate --set-status maintenance',
  ],
  notes: [
    'Shapes (--shape) of the filter status body:',
    '  flat      {"status":"active","updatedAt":...}',
    '  nested    {"data":{"filter":{"state":"active"}},"meta":{...}}',
    '            (needs SHIELDWATCH_STATUS_PATH=data.filter.state, printed for you)',
    '  envelope  {"data":{"status":"active"},"requestId":...}',
    '  numeric   {"state":1}  (0 inactive, 1 active, 2 mitigating)',
    '  boolean   {"filter":{"state":true}}  (true while active)',
    '',
    'Scenarios (--scenario), their times counted from the first request:',
    '  demo      active; mitigating from 8 s to 20 s with a x40 traffic spike on the first network;',
    '            active again from 20 s, then holds',
    '  steady    active forever, no attack',
    '  flapping  active for 7 s, mitigating for 6 s, looping (a 13 s period that no round polling',
    '            interval keeps in step with)',
    '',
    'Exit codes: 0 stopped by Ctrl-C, SIGTERM, q or --duration (or, with --set-status / --resume, done);',
    '1 the port could not be used (or no simulator answered there, or it refused the key);',
    '2 bad options (every problem is listed).',
  ].join('\n'),
  async run(values, io) {
    if (values['set-status'] !== undefined || values.resume) {
      return controlRunning(values, io);
    }
    const parsed = parseSimulateOptions(values);
    if (!parsed.ok) {
      for (const problem of parsed.problems) println(io.stderr, `shieldwatch simulate: ${problem}`);
      println(io.stderr, 'Run `shieldwatch simulate --help`.');
      return 2;
    }
    const { options, durationMs } = parsed;
    let sim: Simulator;
    const listening = io.now();
    try {
      sim = await startSimulator({ ...options, now: io.now });
    } catch (error) {
      const hint = options.port === 0 ? '' : ' (choose another with --port, or --port 0 for a free one)';
      println(io.stderr, `shieldwatch simulate: ${(error as Error).message}${hint}`);
      return 1;
    }
    // Listen for signals before telling the user how to reach us, so Ctrl-C always closes cleanly.
    const stop = untilStopped(durationMs, io.closed);
    let unfollow: () => void = () => {};
    let unkeys: () => void = () => {};
    try {
      println(
        io.stdout,
        `# shieldwatch simulator on ${sim.url}: scenario ${sim.scenario.name}, shape ${sim.shape}, speed ${sim.speed}x, seed ${options.seed}`,
      );
      println(io.stdout, `# faults: ${describeFaults(options.faults ?? {})}`);
      println(io.stdout, '# paste these lines in another terminal, then run: npx shieldwatch run --every 5s');
      for (const [name, value] of Object.entries(sim.env)) {
        println(io.stdout, `export ${name}=${shellQuote(value)}`);
      }
      const portOption = options.port === DEFAULT_PORT ? '' : ` --port ${sim.port}`;
      const keyOption = sim.key === DEFAULT_SIMULATOR_KEY ? '' : ` --key ${shellQuote(sim.key)}`;
      println(
        io.stdout,
        `# the scenario starts at the first request; flip the status any time: npx shieldwatch simulate${portOption}${keyOption} --set-status mitigating${process.stdin.isTTY === true ? ' (or press a, m, space, r here)' : ''}`,
      );
      println(
        io.stdout,
        `# ${durationMs === undefined ? 'Ctrl-C stops it' : `stops after ${seconds(durationMs)} or on Ctrl-C`}; status changes follow`,
      );
      unfollow = followScenario(sim, io);
      unkeys = followKeys(sim, stop.quit);
      const why = await stop.stopped;
      unkeys();
      unfollow();
      await sim.close();
      const { requests, connections } = sim.stats;
      println(
        io.stdout,
        `# stopped: ${why} after ${seconds(io.now() - listening)}; ${requests} request(s) on ${connections} connection(s)`,
      );
      return 0;
    } finally {
      unkeys();
      unfollow();
      stop.dispose();
      await sim.close();
    }
  },
});
