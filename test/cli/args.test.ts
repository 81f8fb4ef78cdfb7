/** Option parsing in the CLI's own words (issue 13.7), in process: no CLI is spawned. */
import { describe, expect, it } from 'vitest';
import { parseChoice, parseCommandArgs } from '../../cli/args.ts';
import { UsageError } from '../../cli/format.ts';
import type { Command } from '../../cli/io.ts';

const command: Pick<Command, 'options'> = {
  options: {
    since: { type: 'string' },
    limit: { type: 'string' },
    all: { type: 'boolean' },
    verbose: { type: 'boolean', short: 'v' },
  },
};

describe('parseCommandArgs', () => {
  it.each([
    [[], {}],
    [['--since', '24h', '--all'], { since: '24h', all: true }],
    [['--since=-1h'], { since: '-1h' }],
    [['-v', '-h'], { verbose: true, help: true }],
    [['--env-file', 'x.env'], { 'env-file': 'x.env' }],
  ])('%j gives %j', (args, values) => {
    expect(parseCommandArgs(command, args)).toEqual(values);
  });

  it.each([
    [['--limt', '3'], 'unknown option --limt (did you mean --limit?)'],
    [['--verbos'], 'unknown option --verbos (did you mean --verbose?)'],
    [['--colour'], 'unknown option --colour'],
    [['-q'], 'unknown option -q'],
    [['--since'], '--since needs a value'],
    [
      ['--since', '--all'],
      '--since needs a value, but the next word is "--all" (for a value that starts with "-", write --since=--all)',
    ],
    [['--all=no'], '--all takes no value (got "no")'],
    [['24h'], 'unexpected argument "24h" (this command takes only options)'],
    [['--', '--all'], 'unexpected argument "--all" (this command takes only options)'],
  ])('%j is refused: %s', (args, message) => {
    expect(() => parseCommandArgs(command, args)).toThrow(new UsageError(message));
  });
});

describe('parseChoice', () => {
  it('returns a valid choice', () => {
    expect(parseChoice('--format', 'json', ['table', 'json'])).toBe('json');
  });

  it.each([
    ['jsno', '--format: unknown value "jsno" (did you mean json?); one of: table, json'],
    ['xml', '--format: unknown value "xml"; one of: table, json'],
  ])('refuses %j, listing the valid values', (value, message) => {
    expect(() => parseChoice('--format', value, ['table', 'json'])).toThrow(new UsageError(message));
  });
});
