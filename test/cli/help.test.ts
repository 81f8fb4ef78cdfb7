/**
 * `--help` generated from the declarations (issue 21.4): the main help grouped with `check` first, and every
 * command's help listing every option it declares, with examples. In process: main() with buffers.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../cli/io.ts';
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
