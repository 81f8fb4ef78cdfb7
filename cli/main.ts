import { readFileSync } from 'node:fs';
import { ConfigError, configWarnings } from '../lambda/config.ts';
import { didYouMean } from '../lambda/core/nearest.ts';
import { type OptionValues, parseCommandArgs, pickSubcommand } from './args.ts';
import { backtestCommand } from './commands/backtest.ts';
import { checkCommand } from './commands/check.ts';
import { demoCommand } from './commands/demo.ts';
import { eventsCommand } from './commands/events.ts';
import { historyCommand } from './commands/history.ts';
import { pageLinkCommand } from './commands/page-link.ts';
import { pollCommand } from './commands/poll.ts';
import { reportCommand } from './commands/report.ts';
import { runCommand } from './commands/run.ts';
import { setKeyCommand } from './commands/set-key.ts';
import { silenceCommand } from './commands/silence.ts';
import { simulateCommand } from './commands/simulate.ts';
import { statusCommand } from './commands/status.ts';
import { storeCommand } from './commands/store.ts';
import { testAlertCommand } from './commands/test-alert.ts';
import { uptimeCommand } from './commands/uptime.ts';
import { DEFAULT_ENV_FILE, readEnvFile, withEnvFile } from './env-file.ts';
import { UsageError } from './format.ts';
import { type CliIo, type Command, println } from './io.ts';
import { describeStack, helpWithStackOption, StackError, stackEnvironment, stackName } from './stack.ts';

const COMMANDS: readonly Command[] = [
  pollCommand,
  runCommand,
  historyCommand,
  eventsCommand,
  backtestCommand,
  checkCommand,
  setKeyCommand(checkCommand),
  testAlertCommand,
  silenceCommand,
  uptimeCommand,
  reportCommand,
  pageLinkCommand,
  statusCommand,
  storeCommand,
  simulateCommand,
  demoCommand,
];

/**
 * The commands that read or write the history (and test-alert, which writes to the topic): they take
 * `--stack NAME` (README, A deployed stack), with their subcommands.
 */
const STACK_COMMANDS: ReadonlySet<string> = new Set(
  [
    pollCommand,
    runCommand,
    historyCommand,
    eventsCommand,
    backtestCommand,
    testAlertCommand,
    silenceCommand,
    uptimeCommand,
    reportCommand,
    statusCommand,
  ].map((c) => c.name),
);

/** True when `command` (or the command it is a subcommand of) takes `--stack`. */
function takesStack(command: Command): boolean {
  return STACK_COMMANDS.has(command.name.split(' ')[0]!);
}

/** `command` with the `--stack` option and its help line. */
function withStackOption(command: Command): Command {
  return {
    ...command,
    help: helpWithStackOption(command.help),
    options: { ...command.options, stack: { type: 'string' } },
  };
}

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'shieldwatch - watch a network protection service: filter status changes and real-time network stats',
    '',
    'Usage: shieldwatch <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run `shieldwatch <command> --help` for a command's options.",
    '',
    'Options of every command:',
    `  --env-file FILE  read settings from FILE (default: ./${DEFAULT_ENV_FILE} when it exists)`,
    '  -h, --help       show help',
    '  --version        print the version',
    '',
    'Options of the commands that read or write the history (poll, run, history, events, status, silence,',
    'uptime, report, backtest, test-alert):',
    '  --stack NAME     the stack deployed by `cdk deploy`: its table, topic and region come from its outputs',
    '                   (CloudFormation DescribeStacks, usual AWS credentials); or SHIELDWATCH_STACK=NAME',
    '',
    'Configuration comes from SHIELDWATCH_* environment variables and the settings file (NAME=value lines;',
    'the environment wins over the file); see README.md.',
    'Exit codes: 0 done, 1 the cycle or query could not run (store, key), 2 bad configuration or usage.',
  ].join('\n');
}

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
    println(io.stdout, mainHelp());
    return name === undefined ? 2 : 0;
  }
  const found = COMMANDS.find((c) => c.name === name);
  if (found === undefined) {
    const what = name.startsWith('-') ? 'option' : 'command';
    const names = name.startsWith('-') ? ['--help', '--version', '--env-file'] : COMMANDS.map((c) => c.name);
    println(
      io.stderr,
      `shieldwatch: unknown ${what} ${JSON.stringify(name)}${didYouMean(name, names, name.startsWith('--') ? '--' : '')}\n` +
        'Run `shieldwatch --help` for the commands.',
    );
    return 2;
  }
  let command = found;
  let values: OptionValues;
  let env: Record<string, string | undefined>;
  try {
    const picked = pickSubcommand(found, rest);
    command = takesStack(picked.command) ? withStackOption(picked.command) : picked.command;
    values = parseCommandArgs(command, picked.args);
    if (values['help'] === true) {
      println(io.stdout, command.help);
      return 0;
    }
    const explicit = typeof values['env-file'] === 'string' ? values['env-file'] : leading.envFile;
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
  try {
    // Resolved once, before the command: it then runs with the stack's table, topic and region.
    const stack = takesStack(command) ? stackName(values['stack'], env) : undefined;
    if (stack !== undefined) {
      const resolved = stackEnvironment(env, await describeStack(stack, env));
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
    if (!(error instanceof StackError)) throw error;
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
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, now: Date.now };
}
