import { parseArgs } from 'node:util';
import { ConfigError } from '../lambda/config.ts';
import { checkCommand } from './commands/check.ts';
import { demoCommand } from './commands/demo.ts';
import { eventsCommand } from './commands/events.ts';
import { historyCommand } from './commands/history.ts';
import { pollCommand } from './commands/poll.ts';
import { runCommand } from './commands/run.ts';
import { simulateCommand } from './commands/simulate.ts';
import { testAlertCommand } from './commands/test-alert.ts';
import { uptimeCommand } from './commands/uptime.ts';
import { UsageError } from './format.ts';
import { type CliIo, type Command, println } from './io.ts';

const COMMANDS: readonly Command[] = [
  pollCommand,
  runCommand,
  historyCommand,
  eventsCommand,
  checkCommand,
  testAlertCommand,
  uptimeCommand,
  simulateCommand,
  demoCommand,
];

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
    'Configuration comes from SHIELDWATCH_* environment variables (see README.md).',
    'Exit codes: 0 done, 1 the cycle or query could not run (store, key), 2 bad configuration or usage.',
  ].join('\n');
}

/** Runs the CLI with `argv` (without node and script) and resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    println(io.stdout, mainHelp());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    println(io.stderr, `shieldwatch: unknown command "${name}"\n\n${mainHelp()}`);
    return 2;
  }
  let values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    println(
      io.stderr,
      `shieldwatch ${command.name}: ${(error as Error).message}\nRun \`shieldwatch ${command.name} --help\`.`,
    );
    return 2;
  }
  if (values['help'] === true) {
    println(io.stdout, command.help);
    return 0;
  }
  try {
    return await command.run(values, io);
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
