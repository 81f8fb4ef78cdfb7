/**
 * `--help`, generated from the declarations: the main help from the registry (cli/registry.ts), grouped, and
 * each command's help from its definition (cli/args.ts defineCommand). Pure: no I/O.
 */
import { COMMON_OPTIONS, STACK_OPTION } from './args.ts';
import type { Command, OptionSpec } from './io.ts';
import { COMMAND_GROUPS, type CommandEntry } from './registry.ts';

/** Help lines are wrapped to this width. */
const WIDTH = 104;

/** `text` wrapped to `width` columns, every line after the first indented by `indent` spaces. */
function wrap(text: string, width: number, indent: number, firstUsed = indent): string {
  const lines: string[] = [];
  let line = '';
  let room = width - firstUsed;
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
      room = width - indent;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/**
 * A synopsis line wrapped between its parts (`[--since WHEN]`, `(--filter | --network ID)`, never inside one),
 * its continuation lines aligned after `shieldwatch NAME `.
 */
function usageLine(line: string, name: string): string {
  const indent = 'Usage: '.length + `shieldwatch ${name} `.length;
  const lines: string[] = [];
  let current = '';
  for (const part of line.match(/\[[^\]]*\]|\([^)]*\)|\S+/g) ?? []) {
    if (current !== '' && 'Usage: '.length + current.length + 1 + part.length > WIDTH && lines.length === 0) {
      lines.push(current);
      current = part;
    } else if (current !== '' && indent + current.length + 1 + part.length > WIDTH && lines.length > 0) {
      lines.push(current);
      current = part;
    } else current = current === '' ? part : `${current} ${part}`;
  }
  lines.push(current);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** Text laid out by hand, with only its lines longer than the width wrapped (kept at their indentation). */
function softWrap(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.length <= WIDTH) return line;
      const indent = line.length - line.trimStart().length;
      return `${' '.repeat(indent)}${wrap(line, WIDTH, indent)}`;
    })
    .join('\n');
}

/** `--since WHEN`, `-h, --help`. */
function optionLabel(name: string, spec: OptionSpec): string {
  const long = spec.type === 'string' ? `--${name} ${spec.value ?? name.toUpperCase()}` : `--${name}`;
  return spec.short === undefined ? long : `-${spec.short}, ${long}`;
}

/** The description of an option with its default and examples. */
function optionText(spec: OptionSpec): string {
  const extras = [
    ...(spec.choices === undefined ? [] : [`one of ${spec.choices.join(', ')}`]),
    ...(spec.default === undefined ? [] : [`default ${spec.default}`]),
    ...(spec.examples === undefined || spec.examples.length === 0
      ? []
      : [`e.g. ${spec.examples.join(', ')}`]),
  ];
  return `${spec.description ?? ''}${extras.length === 0 ? '' : ` (${extras.join('; ')})`}`;
}

/** Every option a command takes, as `--help` lists them: its own, then `--stack`, `--env-file`, `--help`. */
export function allOptions(command: Command, stack: boolean): [string, OptionSpec][] {
  return Object.entries({
    ...command.options,
    ...(stack ? STACK_OPTION : {}),
    ...COMMON_OPTIONS,
  });
}

/** A list of `label  text` rows, the texts aligned and wrapped. */
function rows(entries: readonly (readonly [string, string])[]): string[] {
  const column = Math.max(...entries.map(([label]) => label.length)) + 2;
  return entries.map(([label, text]) => `  ${label.padEnd(column)}${wrap(text, WIDTH, column + 2)}`);
}

/** The generated synopsis: the name, each own option in brackets, the arguments. */
function synopsis(command: Command): string {
  const parts = [
    ...Object.entries(command.options).map(([name, spec]) => `[${optionLabel(name, spec)}]`),
    ...(command.arguments ?? []).map((a) => a.toUpperCase()),
  ];
  return `shieldwatch ${command.name}${parts.length === 0 ? '' : ` ${parts.join(' ')}`}`;
}

/**
 * A command's `--help`: usage, description, options (its own and the common ones, `--stack` when `stack`),
 * subcommands, examples, notes.
 */
export function commandHelp(command: Command, stack: boolean): string {
  const usage = (command.usage ?? [synopsis(command).slice('shieldwatch '.length)]).map(
    (line, i) => `${i === 0 ? 'Usage: ' : '       '}${usageLine(`shieldwatch ${line}`, command.name)}`,
  );
  const options = rows(
    allOptions(command, stack).map(([name, spec]) => [optionLabel(name, spec), optionText(spec)]),
  );
  const subcommands = (command.subcommands ?? []).map(
    (sub) => [sub.name.slice(command.name.length).trim(), sub.summary ?? ''] as const,
  );
  const sections = [
    usage.join('\n'),
    ...(command.description === undefined ? [] : [softWrap(command.description)]),
    ['Options:', ...options].join('\n'),
    ...(subcommands.length === 0
      ? []
      : [
          [
            'Subcommands:',
            ...rows(subcommands),
            `Run \`shieldwatch ${command.name} <subcommand> --help\`.`,
          ].join('\n'),
        ]),
    ...(command.examples === undefined || command.examples.length === 0
      ? []
      : [['Examples:', ...command.examples.map((e) => `  shieldwatch ${e}`)].join('\n')]),
    ...(command.notes === undefined ? [] : [softWrap(command.notes)]),
  ];
  return sections.join('\n\n');
}

/** The main `--help`: the commands by group (first steps first, `check` first of all), the common options. */
export function mainHelp(commands: readonly CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const groups = COMMAND_GROUPS.map(({ id, title }) =>
    [
      `${title}:`,
      ...commands
        .filter((c) => c.group === id)
        // One line per command, as long as its summary: the list is read down its first column.
        .map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    ].join('\n'),
  );
  const stackCommands = commands.filter((c) => c.stack === true).map((c) => c.name);
  return [
    'shieldwatch - watch a network protection service: filter status changes and real-time network stats',
    '',
    'Usage: shieldwatch <command> [options]',
    '',
    groups.join('\n\n'),
    '',
    "Run `shieldwatch <command> --help` for a command's options and examples.",
    '',
    'Options of every command:',
    ...rows([
      ...Object.entries(COMMON_OPTIONS).map(
        ([name, spec]) => [optionLabel(name, spec), optionText(spec)] as const,
      ),
      ['--version', 'print the version'],
    ]),
    '',
    wrap(`Options of the commands that read or write the history (${stackCommands.join(', ')}):`, WIDTH, 0),
    ...rows([
      [
        optionLabel('stack', STACK_OPTION.stack),
        'the stack deployed by `cdk deploy`: its table, topic and region come from its outputs (CloudFormation DescribeStacks, usual AWS credentials); or SHIELDWATCH_STACK=NAME',
      ],
    ]),
    '',
    'Configuration comes from SHIELDWATCH_* environment variables and the settings file (NAME=value lines;',
    'the environment wins over the file); see README.md.',
    'Exit codes: 0 done, 1 the cycle or query could not run (store, key), 2 bad configuration or usage.',
  ].join('\n');
}
