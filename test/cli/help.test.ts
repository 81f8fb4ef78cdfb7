/**
 * `--help` generated from the declarations (issue 21.4): the main help grouped with `check` first, and every
 * command's help listing every option it declares, with examples. In process: main() with buffers.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { allOptions } from '../../cli/help.ts';
import type { CliIo, Command } from '../../cli/io.ts';
import { main } from '../../cli/main.ts';
import { COMMAND_GROUPS, COMMANDS } from '../../cli/registry.ts';

/** Runs main() in process; stdout and stderr as text. */
async function run(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[]) =>
    new Writable({
      write(chunk, _encoding, done) {
        into.push(String(chunk));
        done();
      },
    });
  const io: CliIo = {
    stdout: sink(out),
    stderr: sink(err),
    env: { SHIELDWATCH_ENV_FILE: '/dev/null' },
    now: Date.now,
  };
  const code = await main(argv, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** Every command and subcommand, with whether it takes --stack. */
async function everyCommand(): Promise<{ command: Command; stack: boolean }[]> {
  const loaded = await Promise.all(COMMANDS.map(async (entry) => ({ entry, command: await entry.load() })));
  return loaded.flatMap(({ entry, command }) =>
    [command, ...(command.subcommands ?? [])].map((c) => ({ command: c, stack: entry.stack === true })),
  );
}

describe('shieldwatch --help', () => {
  it('lists the commands by group, in the order first steps, watching, history, alerting, local, check first', async () => {
    // Act
    const help = await run(['--help']);

    // Assess
    expect(help.code).toBe(0);
    const titles = COMMAND_GROUPS.map((g) => `${g.title}:`);
    expect(titles).toEqual(['First steps:', 'Watching:', 'History:', 'Alerting:', 'Local:']);
    const at = titles.map((t) => help.stdout.indexOf(`\n${t}\n`));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    const firstCommand = help.stdout.slice(at[0]!).split('\n')[2];
    expect(firstCommand).toMatch(/^ {2}check {2,}check the configuration/);
    for (const entry of COMMANDS) {
      const group = COMMAND_GROUPS.findIndex((g) => g.id === entry.group);
      const line = help.stdout.indexOf(`\n  ${entry.name} `);
      expect(line, entry.name).toBeGreaterThan(at[group]!);
      if (group + 1 < at.length) expect(line, entry.name).toBeLessThan(at[group + 1]!);
    }
  });

  it('each registry entry loads the command of its name', async () => {
    for (const entry of COMMANDS) expect((await entry.load()).name).toBe(entry.name);
  });
});

describe('shieldwatch COMMAND --help, generated from the declaration', () => {
  it('lists every option the command takes (its own and the common ones) with its description, and examples', async () => {
    for (const { command, stack } of await everyCommand()) {
      // Act
      const help = await run([...command.name.split(' '), '--help']);

      // Assess
      expect(help.code, command.name).toBe(0);
      expect(help.stdout, command.name).toMatch(new RegExp(`^Usage: shieldwatch ${command.name}\\b`));
      for (const [name, spec] of allOptions(command, stack)) {
        expect(spec.description, `${command.name} --${name}`).toBeTruthy();
        const line = help.stdout.split('\n').find((l) => new RegExp(`^ {2}(-\\w, )?--${name}\\b`).test(l));
        expect(line, `${command.name} --${name}`).toBeDefined();
        expect(line, `${command.name} --${name}`).toContain(
          spec.description!.split(' ').slice(0, 3).join(' '),
        );
      }
      // --stack: the common one of the history commands, or a command's own (set-key, page-link).
      expect(stack || 'stack' in command.options, command.name).toBe(
        help.stdout.includes('\n  --stack NAME '),
      );
      expect(command.examples?.length ?? 0, `${command.name} has examples`).toBeGreaterThan(0);
      expect(help.stdout, command.name).toMatch(/\nExamples:\n {2}shieldwatch /);
      for (const example of command.examples ?? []) {
        expect(example.startsWith(`${command.name.split(' ')[0]}`), example).toBe(true);
        expect(help.stdout).toContain(`  shieldwatch ${example}`);
      }
    }
  });

  it('shows a declared default and the choices of an option', async () => {
    const help = await run(['uptime', '--help']);
    expect(help.stdout).toMatch(/^ {2}--format FORMAT +the output \(one of table, json; default table\)$/m);
    expect(help.stdout).toMatch(/^ {2}--since WHEN +from WHEN: .*\(default\s+30d\)$/m);
  });
});

describe('typed options', () => {
  it.each([
    [['uptime', '--format', 'xml'], 'shieldwatch uptime: --format: unknown value "xml"; one of: table, json'],
    [
      ['events', '--format', 'jsno'],
      'shieldwatch events: --format: unknown value "jsno" (did you mean json?); one of: table, json, csv',
    ],
    [
      ['silence', 'list', '--format', 'csv'],
      'shieldwatch silence list: --format: unknown value "csv"; one of: table, json',
    ],
    [['status', '--formt', 'json'], 'shieldwatch status: unknown option --formt (did you mean --format?)'],
    [['store', '--aws=yes'], 'shieldwatch store: --aws takes no value (got "yes")'],
    [['history', '--chart'], 'shieldwatch history: --chart needs a value'],
    [['status', '--stak', 'x'], 'shieldwatch status: unknown option --stak (did you mean --stack?)'],
    [['check', '--stack', 'x'], 'shieldwatch check: unknown option --stack'],
  ])('%j: exit 2, %s', async (argv, message) => {
    // Act
    const result = await run(argv);

    // Assess
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${message}\nRun \`shieldwatch ${argv[0] === 'silence' ? 'silence list' : argv[0]} --help\`.`,
    );
    expect(result.stdout).toBe('');
  });
});
