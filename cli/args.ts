/**
 * A command's options, parsed with `node:util` parseArgs, with mistakes told in the CLI's own words:
 * `unknown option --limt (did you mean --limit?)` rather than parseArgs' messages.
 */
import { parseArgs } from 'node:util';
import { ALERT_EVENTS } from '../lambda/core/alert-events.ts';
import { didYouMean } from '../lambda/core/nearest.ts';
import type { AlertEvent } from '../lambda/core/types.ts';
import type { HistoryQuery } from '../lambda/ports.ts';
import { parseCount, parseTimeArg, UsageError } from './format.ts';
import type { Command } from './io.ts';

/** Options every command takes besides its own. */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'env-file': { type: 'string' },
} as const satisfies Command['options'];

/** Parsed option values, as commands receive them. */
export type OptionValues = Record<string, string | boolean | string[] | boolean[] | undefined>;

/**
 * Parses `args` against the command's options and {@link COMMON_OPTIONS}. Throws a {@link UsageError} that
 * names the first mistake: an unknown option (with the nearest known one), a missing or unexpected value,
 * or an argument where none is taken.
 */
export function parseCommandArgs(
  command: Pick<Command, 'options' | 'arguments'> & { readonly hideArguments?: boolean },
  args: readonly string[],
): OptionValues {
  const options = { ...command.options, ...COMMON_OPTIONS };
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
    const spec = (options as Command['options'])[token.name];
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

/** Reads `--since`, `--until` and `--limit` into a query. */
export function timeWindow(values: Readonly<Record<string, unknown>>, nowMs: number): HistoryQuery {
  const since =
    typeof values['since'] === 'string' ? parseTimeArg('--since', values['since'], nowMs) : undefined;
  const until =
    typeof values['until'] === 'string' ? parseTimeArg('--until', values['until'], nowMs) : undefined;
  const limit = typeof values['limit'] === 'string' ? parseCount('--limit', values['limit']) : undefined;
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
  values: Readonly<Record<string, unknown>>,
  defaultSince: string,
  nowMs: number,
): { since: string; until: string } {
  const since = parseTimeArg(
    '--since',
    typeof values['since'] === 'string' ? values['since'] : defaultSince,
    nowMs,
  );
  const until =
    typeof values['until'] === 'string'
      ? parseTimeArg('--until', values['until'], nowMs)
      : new Date(nowMs).toISOString();
  if (since > until) throw new UsageError(`--since (${since}) is after --until (${until})`);
  return { since, until };
}
