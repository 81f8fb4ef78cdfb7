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
  command: Pick<Command, 'options'> & { readonly hideArguments?: boolean },
  args: readonly string[],
): OptionValues {
  const options = { ...command.options, ...COMMON_OPTIONS };
  const known = Object.keys(options).map((name) => `--${name}`);
  const { tokens } = parseArgs({
    args: [...args],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind === 'positional') {
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
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false })
      .values as OptionValues;
  } catch (error) {
    // Every mistake parseArgs knows is caught above; this keeps an unforeseen one readable too.
    throw new UsageError((error as Error).message.split('\n')[0]!.replace(/'/g, '').toLowerCase());
  }
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
