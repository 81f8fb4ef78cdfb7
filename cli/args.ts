/**
 * Commands declared, not hand-parsed: {@link defineCommand} takes a command's options (types, defaults,
 * descriptions, examples) and types the values its `run` receives from them; parsing (`node:util` parseArgs)
 * and `--help` (cli/help.ts) are made from the same declaration. Mistakes are told in the CLI's own words:
 * `unknown option --limt (did you mean --limit?)` rather than parseArgs' messages.
 */
import { parseArgs } from 'node:util';
import { ALERT_EVENTS } from '../lambda/core/alerts/alert-events.ts';
import { didYouMean } from '../lambda/core/nearest.ts';
import type { AlertEvent } from '../lambda/core/types.ts';
import type { HistoryQuery } from '../lambda/ports.ts';
import { parseCount, parseTimeArg, UsageError } from './format.ts';
import type { CliIo, Command, OptionSpec, RawValues } from './io.ts';

/** Options every command takes besides its own. */
export const COMMON_OPTIONS = {
  'env-file': {
    type: 'string',
    value: 'FILE',
    description: 'read settings from FILE (NAME=value lines; default ./shieldwatch.env when it exists)',
  },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
} as const satisfies Command['options'];

/** The option of the commands that read or write the history (cli/registry.ts marks them). */
export const STACK_OPTION = {
  stack: {
    type: 'string',
    value: 'NAME',
    description: 'the deployed stack whose table, topic and region to use (or SHIELDWATCH_STACK)',
  },
} as const satisfies Command['options'];

/** The values of the options main() handles for every command: {@link COMMON_OPTIONS} and {@link STACK_OPTION}. */
export interface CommonValues {
  readonly help: boolean;
  readonly envFile: string | undefined;
  readonly stack: string | undefined;
}

/** The common options' values from a parsed command line (parseArgs typed each by its declaration). */
export function commonValues(values: RawValues): CommonValues {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { help: values['help'] === true, envFile: text(values['env-file']), stack: text(values['stack']) };
}

/** Parsed option values, as commands receive them. */
export type OptionValues = RawValues;

/** A declared option that takes a value. */
export interface StringOption {
  readonly type: 'string';
  /** Its line in `--help`. */
  readonly description: string;
  /** The value's name in `--help`. @default the option's name in capitals */
  readonly value?: string;
  /** The value when the option is not given; `--help` shows it. @default - none: undefined */
  readonly default?: string;
  /** Typical values, shown in `--help`. */
  readonly examples?: readonly string[];
  /**
   * The only values it takes: anything else is refused naming the nearest (`--format: unknown value "jsno"
   * (did you mean json?); one of: table, json`), and `run` gets the value typed as one of them.
   */
  readonly choices?: readonly string[];
  readonly short?: string;
}

/** A declared switch: true when given, false otherwise. */
export interface BooleanOption {
  readonly type: 'boolean';
  /** Its line in `--help`. */
  readonly description: string;
  readonly short?: string;
}

/** A command's declared options, by name (without `--`). */
export type DeclaredOptions = Readonly<Record<string, StringOption | BooleanOption>>;

/**
 * The values `run` receives for options `O` and positional arguments `A`: a switch is a boolean, an option
 * with a default a string, any other option a string or undefined, each argument a string.
 */
export type DeclaredValues<O extends DeclaredOptions, A extends readonly string[]> = {
  readonly [K in keyof O]: O[K] extends BooleanOption
    ? boolean
    : O[K] extends { readonly default: string }
      ? ValueOf<O[K]>
      : ValueOf<O[K]> | undefined;
} & { readonly [K in A[number]]: string };

/** The value of a string option: one of its choices when it has them. */
type ValueOf<S> = S extends { readonly choices: readonly (infer C extends string)[] } ? C : string;

/** A command as declared: everything `--help` shows, and its action over typed values. */
export interface CommandDeclaration<O extends DeclaredOptions, A extends readonly string[]> {
  /** The words that name it: `events`, or `silence list` for a subcommand. */
  readonly name: string;
  /** A subcommand's line in its parent's help (a command's own summary is in cli/registry.ts). */
  readonly summary?: string;
  /** Synopsis lines after `shieldwatch `, when the generated one would say less. @default - generated */
  readonly usage?: readonly string[];
  /** What it does, as `--help` shows it under the usage line. */
  readonly description: string;
  readonly options: O;
  /** Positional arguments, all required (`['id']` for `silence end ID`). @default - none */
  readonly arguments?: A;
  /** See {@link Command.hideArguments}. */
  readonly hideArguments?: boolean;
  readonly subcommands?: readonly Command[];
  /** Command lines after `shieldwatch `, at least one. */
  readonly examples: readonly [string, ...string[]];
  /** Text after the options and examples: the settings it reads, its exit codes. */
  readonly notes?: string;
  run(values: DeclaredValues<O, A>, io: CliIo): Promise<number>;
}

/**
 * A command from its declaration: `run` gets the parsed values with the declared defaults filled in and
 * every switch a boolean, typed from `options`, so no command checks a value's type by hand.
 */
export function defineCommand<
  const O extends DeclaredOptions,
  const A extends readonly string[] = readonly [],
>(declaration: CommandDeclaration<O, A>): Command {
  const { run, ...rest } = declaration;
  return {
    ...rest,
    run: (values, io) => run(withDefaults(declaration.options, values) as DeclaredValues<O, A>, io),
  };
}

/**
 * `values` with each missing option's default and false for each switch not given; a {@link UsageError} for a
 * value outside an option's choices.
 */
function withDefaults(options: DeclaredOptions, values: RawValues): RawValues {
  const filled: Record<string, unknown> = { ...values };
  for (const [name, spec] of Object.entries(options)) {
    const value = filled[name];
    if (value === undefined) {
      if (spec.type === 'boolean') filled[name] = false;
      else if (spec.default !== undefined) filled[name] = spec.default;
    } else if (spec.type === 'string' && spec.choices !== undefined && typeof value === 'string') {
      parseChoice(`--${name}`, value, spec.choices);
    }
  }
  return filled as RawValues;
}

/**
 * Parses `args` against the command's options and {@link COMMON_OPTIONS}. Throws a {@link UsageError} that
 * names the first mistake: an unknown option (with the nearest known one), a missing or unexpected value,
 * or an argument where none is taken.
 */
export function parseCommandArgs(
  command: Pick<Command, 'options' | 'arguments' | 'hideArguments'>,
  args: readonly string[],
): OptionValues {
  const options = parseArgsOptions({ ...command.options, ...COMMON_OPTIONS });
  const wanted = command.arguments ?? [];
  let positionals = 0;
  const known = Object.keys(options).map((name) => `--${name}`);
  const { tokens } = parseArgs({
    args: [...args],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind === 'positional' && positionals < wanted.length) positionals++;
    else if (token.kind === 'positional') {
      if (wanted.length > 0) {
        throw new UsageError(
          `unexpected argument ${JSON.stringify(token.value)} (this command takes ${wanted.map((a) => a.toUpperCase()).join(' ')} and options)`,
        );
      }
      // A command that reads a secret from stdin never echoes an argument: it may be that secret.
      if (command.hideArguments === true) {
        throw new UsageError('unexpected argument, not shown (this command takes only options)');
      }
      throw new UsageError(
        `unexpected argument ${JSON.stringify(token.value)} (this command takes only options)`,
      );
    }
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    if (spec === undefined) {
      throw new UsageError(`unknown option ${token.rawName}${didYouMean(`--${token.name}`, known, '--')}`);
    }
    const shown = token.rawName.startsWith('--') ? token.rawName : `${token.rawName} (--${token.name})`;
    if (spec.type === 'boolean' && token.value !== undefined) {
      throw new UsageError(`${shown} takes no value (got "${token.value}")`);
    }
    if (spec.type === 'string') {
      if (token.value === undefined) throw new UsageError(`${shown} needs a value`);
      if (!token.inlineValue && token.value.startsWith('-')) {
        throw new UsageError(
          `${shown} needs a value, but the next word is ${JSON.stringify(token.value)} ` +
            `(for a value that starts with "-", write ${token.rawName}=${token.value})`,
        );
      }
    }
  }
  try {
    const parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: wanted.length > 0 });
    const values = parsed.values as OptionValues;
    const missing = wanted[parsed.positionals.length];
    if (missing !== undefined && values['help'] !== true)
      throw new UsageError(`${missing.toUpperCase()} is missing`);
    return { ...values, ...Object.fromEntries(wanted.map((name, i) => [name, parsed.positionals[i]])) };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // Every mistake parseArgs knows is caught above; this keeps an unforeseen one readable too.
    throw new UsageError((error as Error).message.split('\n')[0]!.replace(/'/g, '').toLowerCase());
  }
}

/** Only what parseArgs reads of each option (it refuses a `default` that is not of the option's type). */
function parseArgsOptions(
  options: Readonly<Record<string, OptionSpec>>,
): Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> {
  return Object.fromEntries(
    Object.entries(options).map(([name, { type, short, multiple }]) => [
      name,
      {
        type,
        ...(short === undefined ? {} : { short }),
        ...(multiple === undefined ? {} : { multiple }),
      },
    ]),
  );
}

/**
 * The subcommand a command line names (`silence list ...`), with the words after it; the command itself when
 * the first word is an option or there is none. A word that names no subcommand is a {@link UsageError} that
 * lists them and names the nearest.
 */
export function pickSubcommand(
  command: Command,
  args: readonly string[],
): { command: Command; args: string[] } {
  const first = args[0];
  const subcommands = command.subcommands ?? [];
  if (subcommands.length === 0 || first === undefined || first.startsWith('-')) {
    return { command, args: [...args] };
  }
  const words = subcommands.map((sub) => sub.name.slice(command.name.length).trim());
  const index = words.indexOf(first);
  if (index >= 0) return { command: subcommands[index]!, args: args.slice(1) };
  throw new UsageError(
    `unknown subcommand ${JSON.stringify(first)}${didYouMean(first, words)}; one of: ${words.join(', ')}`,
  );
}

/** Every alert event name, for options that take one; a new {@link AlertEvent} does not compile without it. */
export const EVENT_NAMES: readonly AlertEvent[] = ALERT_EVENTS;

/**
 * One of `choices`, or a {@link UsageError} that lists them all and names the nearest:
 * `--event: unknown event "api.unreachble" (did you mean api.unreachable?); one of: ...`.
 */
export function parseChoice<T extends string>(option: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `${option}: unknown value ${JSON.stringify(value)}${didYouMean(value, choices)}; one of: ${choices.join(', ')}`,
  );
}

/** The declared options `--since WHEN`, `--until WHEN` and `--limit N` of the commands that read history. */
export const WINDOW_OPTIONS = {
  since: {
    type: 'string',
    value: 'WHEN',
    description: 'from WHEN: a duration back from now (90s, 30m, 24h, 7d, 2w) or an ISO date',
  },
  until: { type: 'string', value: 'WHEN', description: 'up to WHEN (same forms)' },
  limit: {
    type: 'string',
    value: 'N',
    description: 'only the most recent N of those selected (still printed oldest first)',
  },
} as const satisfies DeclaredOptions;

/**
 * The declared `--format FORMAT` (table or json, default table) of the commands that print a table or JSON;
 * `description` says what the output is (the JSON's shape).
 */
export function formatOption(description: string) {
  return {
    type: 'string',
    value: 'FORMAT',
    choices: ['table', 'json'],
    default: 'table',
    description,
  } as const satisfies StringOption;
}

/** The values of {@link WINDOW_OPTIONS} (each may be left out). */
export interface WindowValues {
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly limit?: string | undefined;
}

/** Reads `--since`, `--until` and `--limit` into a query. */
export function timeWindow(values: WindowValues, nowMs: number): HistoryQuery {
  const since = values.since === undefined ? undefined : parseTimeArg('--since', values.since, nowMs);
  const until = values.until === undefined ? undefined : parseTimeArg('--until', values.until, nowMs);
  const limit = values.limit === undefined ? undefined : parseCount('--limit', values.limit);
  if (since !== undefined && until !== undefined && since > until) {
    throw new UsageError(`--since (${since}) is after --until (${until})`);
  }
  return {
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/**
 * `--since` (default `defaultSince`, e.g. `7d`) and `--until` (default now) as ISO times, for commands that
 * need both ends of their window (`report`, `uptime`); a UsageError when --since is after --until.
 */
export function boundedWindow(
  values: Omit<WindowValues, 'limit'>,
  defaultSince: string,
  nowMs: number,
): { since: string; until: string } {
  const since = parseTimeArg('--since', values.since ?? defaultSince, nowMs);
  const until =
    values.until === undefined ? new Date(nowMs).toISOString() : parseTimeArg('--until', values.until, nowMs);
  if (since > until) throw new UsageError(`--since (${since}) is after --until (${until})`);
  return { since, until };
}
