/** What a command talks to; tests hand in buffers. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => number;
  /**
   * Aborted when the output was closed by its reader (`| head` that has its lines; cli/closed-output.ts):
   * a command that would go on (`run`, `simulate`, `demo`) stops as on Ctrl-C. @default - never aborted
   */
  readonly closed?: AbortSignal;
}

/** Writes a line to a stream. */
export function println(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}

/** One option of a command: how it is parsed (`node:util` parseArgs) and how `--help` shows it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** One letter, e.g. `h` for `-h`. */
  readonly short?: string;
  readonly multiple?: boolean;
  /** Its line in `--help`. */
  readonly description?: string;
  /** The value's name in `--help`, e.g. `WHEN` in `--since WHEN`. @default the option's name in capitals */
  readonly value?: string;
  /** The value when the option is not given; `--help` shows it. @default - none: the value is undefined */
  readonly default?: string;
  /** Typical values, shown in `--help` after the description. */
  readonly examples?: readonly string[];
  /** The only values it takes (checked before the command runs); `--help` lists them. */
  readonly choices?: readonly string[];
}

/** Parsed option and argument values, as {@link Command.run} receives them. */
export type RawValues = Readonly<Record<string, string | boolean | string[] | boolean[] | undefined>>;

/**
 * A CLI command as the CLI runs it. Commands are declared with `defineCommand` (cli/args.ts), which types
 * `run`'s values from the options; `--help` is generated from the declaration (cli/help.ts).
 */
export interface Command {
  /** The words that name it: `events`, or `silence list` for a subcommand. */
  readonly name: string;
  /** A subcommand's line in its parent's help (a command's own summary is in cli/registry.ts). */
  readonly summary?: string;
  /**
   * The synopsis lines after `shieldwatch `, when the generated one (the name, each option in brackets,
   * the arguments) would say less. @default - generated
   */
  readonly usage?: readonly string[];
  /** What it does, as `--help` shows it under the usage line (kept as written: lines, lists). */
  readonly description?: string;
  /** Its own options; `--env-file`, `--help` and `--stack` are added for it (cli/args.ts). */
  readonly options: Readonly<Record<string, OptionSpec>>;
  /**
   * Names of the positional arguments the command takes, all required, e.g. `['id']` for `silence end ID`;
   * parsed into the values under these names. @default - none: options only
   */
  readonly arguments?: readonly string[];
  /** It reads a secret from standard input: a stray argument may be that secret and is never echoed. */
  readonly hideArguments?: boolean;
  /** Commands chosen by the first word after this one (`silence list`); their names include this one's. */
  readonly subcommands?: readonly Command[];
  /** Command lines after `shieldwatch `, shown under "Examples:". */
  readonly examples?: readonly string[];
  /** Text after the options and examples: the settings it reads, its exit codes. */
  readonly notes?: string;
  /** Runs the command; resolves with the exit code. */
  run(values: RawValues, io: CliIo): Promise<number>;
}
