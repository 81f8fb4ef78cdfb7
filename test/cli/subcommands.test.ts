/** Subcommands (`silence list`) and positional arguments (`silence end ID`), in process: no CLI is spawned. */
import { describe, expect, it } from 'vitest';
import { parseCommandArgs, pickSubcommand } from '../../cli/args.ts';
import { UsageError } from '../../cli/format.ts';
import type { Command } from '../../cli/io.ts';

const sub = (name: string, extra: Partial<Command> = {}): Command => ({
  name,
  options: {},
  run: async () => 0,
  ...extra,
});
const list = sub('silence list', { options: { format: { type: 'string' } } });
const end = sub('silence end', { arguments: ['id'] });
const parent = sub('silence', { options: { for: { type: 'string' } }, subcommands: [list, end] });

describe('pickSubcommand', () => {
  it.each([
    [['list', '--format', 'json'], list, ['--format', 'json']],
    [['end', 's-aaaaaaaa'], end, ['s-aaaaaaaa']],
    [['--for', '2h'], parent, ['--for', '2h']],
    [[], parent, []],
  ])('%j picks %s', (args, command, rest) => {
    expect(pickSubcommand(parent, args)).toEqual({ command, args: rest });
  });

  it.each([
    ['lst', 'unknown subcommand "lst" (did you mean list?); one of: list, end'],
    ['stop', 'unknown subcommand "stop"; one of: list, end'],
  ])('%j is refused: %s', (word, message) => {
    expect(() => pickSubcommand(parent, [word])).toThrow(new UsageError(message));
  });

  it('a command without subcommands keeps its words', () => {
    expect(pickSubcommand(list, ['x'])).toEqual({ command: list, args: ['x'] });
  });
});

describe('positional arguments', () => {
  it('are parsed into the values under their names', () => {
    expect(parseCommandArgs(end, ['s-aaaaaaaa'])).toEqual({ id: 's-aaaaaaaa' });
  });

  it.each([
    [[], 'ID is missing'],
    [['a', 'b'], 'unexpected argument "b" (this command takes ID and options)'],
  ])('%j is refused: %s', (args, message) => {
    expect(() => parseCommandArgs(end, args)).toThrow(new UsageError(message));
  });

  it('--help needs no argument', () => {
    expect(parseCommandArgs(end, ['--help'])).toEqual({ help: true, id: undefined });
  });
});
