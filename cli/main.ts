import { readFileSync } from 'node:fs';
import { ConfigError, configWarnings } from '../lambda/config.ts';
import { didYouMean } from '../lambda/core/nearest.ts';
import { SETTINGS } from '../lambda/settings.ts';
import {
  type CommonValues,
  commonValues,
  type OptionValues,
  parseCommandArgs,
  pickSubcommand,
  STACK_OPTION,
} from './args.ts';
import { watchClosedOutput } from './closed-output.ts';
import { readEnvFile, withEnvFile } from './env-file.ts';
import { UsageError } from './format.ts';
import { commandHelp, mainHelp } from './help.ts';
import { type CliIo, type Command, println } from './io.ts';
import { COMMANDS } from './registry.ts';

/** The version in package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** `--env-file FILE` or `--env-file=FILE` before the command; the rest of argv. */
function leadingEnvFile(argv: readonly string[]): { envFile?: string; rest: string[] } {
  const [first, second, ...rest] = argv;
  if (first === '--env-file') {
    if (second === undefined || second.startsWith('-')) throw new UsageError('--env-file needs a value');
    return { envFile: second, rest };
  }
  if (first?.startsWith('--env-file=') === true) {
    return { envFile: first.slice('--env-file='.length), rest: argv.slice(1) };
  }
  return { rest: [...argv] };
}

/** Runs the CLI with `argv` (without node and script) and resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  let leading: ReturnType<typeof leadingEnvFile>;
  try {
    leading = leadingEnvFile(argv);
  } catch (error) {
    println(io.stderr, `shieldwatch: ${(error as Error).message}\nRun \`shieldwatch --help\`.`);
    return 2;
  }
  const [name, ...rest] = leading.rest;
  if (name === '--version') {
    println(io.stdout, packageVersion());
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    println(io.stdout, mainHelp(COMMANDS));
    return name === undefined ? 2 : 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    const what = name.startsWith('-') ? 'option' : 'command';
    const names = name.startsWith('-') ? ['--help', '--version', '--env-file'] : COMMANDS.map((c) => c.name);
    println(
      io.stderr,
      `shieldwatch: unknown ${what} ${JSON.stringify(name)}${didYouMean(name, names, name.startsWith('--') ? '--' : '')}\n` +
        'Run `shieldwatch --help` for the commands.',
    );
    return 2;
  }
  // Only now is the command's code loaded (cli/registry.ts): the main help and --version need none of it.
  let command: Command = await entry.load();
  const takesStack = entry.stack === true;
  let values: OptionValues;
  let common: CommonValues;
  let env: Record<string, string | undefined>;
  try {
    const picked = pickSubcommand(command, rest);
    command = picked.command;
    values = parseCommandArgs(
      takesStack ? { ...command, options: { ...command.options, ...STACK_OPTION } } : command,
      picked.args,
    );
    common = commonValues(values);
    if (common.help) {
      println(io.stdout, commandHelp(command, takesStack));
      return 0;
    }
    const explicit = common.envFile ?? leading.envFile;
    const file = readEnvFile(explicit, io.env, process.cwd());
    env = withEnvFile(io.env, file);
    for (const warning of [...file.warnings, ...configWarnings(env)]) {
      println(io.stderr, `shieldwatch: warning: ${warning}`);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    println(
      io.stderr,
      `shieldwatch ${command.name}: ${error.message}\nRun \`shieldwatch ${command.name} --help\`.`,
    );
    return 2;
  }
  // cli/stack.ts (and the CloudFormation client) only when a stack is named.
  const stackNamed =
    takesStack && (common.stack !== undefined || (env[SETTINGS.stack.env] ?? '').trim() !== '');
  const stackModule = stackNamed ? await import('./stack.ts') : undefined;
  try {
    // Resolved once, before the command: it then runs with the stack's table, topic and region.
    const stack = stackModule?.stackName(common.stack, env);
    if (stackModule !== undefined && stack !== undefined) {
      const resolved = stackModule.stackEnvironment(env, await stackModule.describeStack(stack, env));
      env = resolved.env;
      for (const warning of resolved.warnings) println(io.stderr, `shieldwatch: warning: ${warning}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      println(
        io.stderr,
        `shieldwatch ${command.name}: ${error.message}\nRun \`shieldwatch ${command.name} --help\`.`,
      );
      return 2;
    }
    if (stackModule === undefined || !(error instanceof stackModule.StackError)) throw error;
    println(io.stderr, `shieldwatch ${command.name}: ${error.message}`);
    return error.exitCode;
  }
  try {
    return await command.run(values, { ...io, env });
  } catch (error) {
    if (error instanceof ConfigError) {
      println(io.stderr, `shieldwatch ${command.name}: ${error.message}`);
      return 2;
    }
    if (error instanceof UsageError) {
      println(
        io.stderr,
        `shieldwatch ${command.name}: ${error.message}\nRun \`shieldwatch ${command.name} --help\`.`,
      );
      return 2;
    }
    println(io.stderr, `shieldwatch ${command.name}: ${(error as Error).message ?? String(error)}`);
    return 1;
  }
}

function defaultIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    now: Date.now,
    closed: watchClosedOutput([process.stdout, process.stderr]),
  };
}
