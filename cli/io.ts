/** What a command talks to; tests hand in buffers. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => number;
}

/** Writes a line to a stream. */
export function println(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}

/** A CLI command: its help text and its action. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  /** Full `--help` text. */
  readonly help: string;
  /** Option definitions for `node:util` parseArgs. */
  readonly options: Readonly<
    Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>
  >;
  /**
   * Names of the positional arguments the command takes, all required, e.g. `['id']` for `silence end ID`;
   * parsed into the values under these names. @default - none: options only
   */
  readonly arguments?: readonly string[];
  /** Commands chosen by the first word after this one (`silence list`); their names include this one's. */
  readonly subcommands?: readonly Command[];
  /** Runs the command; resolves with the exit code. */
  run(
    values: Readonly<Record<string, string | boolean | string[] | boolean[] | undefined>>,
    io: CliIo,
  ): Promise<number>;
}
