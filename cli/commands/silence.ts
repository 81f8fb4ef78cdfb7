import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { DynamoSilenceStore, SILENCE_KEPT_MS } from '../../lambda/adapters/silence-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import {
  eventsMatching,
  isSilenceId,
  listedSilences,
  MAX_REASON_CHARS,
  newSilence,
  remainingMs,
  SILENCEABLE_EVENTS,
  type Silence,
  type SilenceStatus,
  silenceId,
  silenceStatus,
} from '../../lambda/core/silences/silence.ts';
import { defineCommand, formatOption } from '../args.ts';
import { clip, printable, printableJson, renderTable, UsageError } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

/** Ids tried before giving up (a clash of 40-bit ids is next to impossible; the put refuses a taken one). */
const ID_ATTEMPTS = 3;

/** One silence as `silence list --format json` prints it (docs/silences.md). */
export interface SilenceEntry extends Silence {
  readonly status: SilenceStatus;
  /** Milliseconds left of an active silence; 0 once ended. */
  readonly remainingMs: number;
}

/** Who creates a silence, for `silence list`: user and host, when they can be told. */
function creator(io: CliIo): string | undefined {
  let user = io.env['USER'];
  try {
    user ??= userInfo().username;
  } catch {
    // No user name in this environment (a container without a passwd entry): the host alone.
  }
  return user === undefined ? hostname() : `${user}@${hostname()}`;
}

/** Opens the store, runs `work` with the silence store on it, and closes it. */
async function withSilences<T>(
  io: CliIo,
  readOnly: boolean,
  work: (silences: DynamoSilenceStore, description: string) => Promise<T>,
): Promise<T> {
  const config = loadStoreConfig(io.env);
  // A new silence is never the first thing in a store: with no store named and none here it is refused.
  const store = await openStore(io.env, config.table, readOnly ? { readOnly } : { existingOnly: true });
  try {
    const silences = new DynamoSilenceStore(store.client, config.table);
    return await storeCall(store, () => work(silences, store.description));
  } finally {
    store.client.destroy();
  }
}

const listCommand = defineCommand({
  name: 'silence list',
  summary: 'the active silences and those ended in the last 7 days, with the time left',
  description: [
    'Prints the active silences (the soonest to end first), then those that ended in the last 7 days',
    '(the most recent first), with the time left of each active one.',
  ].join('\n'),
  options: {
    format: formatOption(
      'json is an array of {id, status, startsAt, endsAt, pattern, reason?, createdAt, createdBy?, remainingMs}; status active or ended',
    ),
  },
  examples: ['silence list', 'silence list --format json'],
  async run(values, io) {
    const format = values.format;
    const all = await withSilences(io, true, (store) => store.list());
    const now = io.now();
    const entries: SilenceEntry[] = listedSilences(all, now, SILENCE_KEPT_MS).map((s) => ({
      ...s,
      status: silenceStatus(s, now),
      remainingMs: remainingMs(s, now),
    }));
    if (format === 'json') {
      println(io.stdout, printableJson(entries, 2));
      return 0;
    }
    if (entries.length === 0) {
      println(io.stdout, 'no active silence, and none ended in the last 7 days');
      return 0;
    }
    const cell = (text: string | undefined, max: number) => clip(printable(text ?? ''), max);
    println(
      io.stdout,
      renderTable(
        ['id', 'status', 'events', 'from', 'until', 'left', 'by', 'reason'],
        entries.map((e) => [
          e.id,
          e.status,
          cell(e.pattern, 30),
          e.startsAt,
          e.endsAt,
          e.status === 'ended' ? '' : formatDuration(e.remainingMs),
          cell(e.createdBy, 30),
          cell(e.reason, 60),
        ]),
      ),
    );
    return 0;
  },
});

const endCommand = defineCommand({
  name: 'silence end',
  summary: 'end a silence now',
  description: [
    'Ends the silence ID (as `silence list` shows it, e.g. s-k3j9x2ab) now: changes observed from now on',
    'are sent. Alerts observed while it was active stay suppressed.',
  ].join('\n'),
  options: {},
  arguments: ['id'],
  examples: ['silence end s-k3j9x2ab'],
  notes: 'Exit codes: 0 ended (or it had ended already), 1 no such silence or the store failed, 2 bad usage.',
  async run(values, io) {
    const { id } = values;
    if (!isSilenceId(id)) {
      throw new UsageError(
        `${JSON.stringify(id)} is no silence id; ids look like s-k3j9x2ab (see shieldwatch silence list)`,
      );
    }
    const now = io.now();
    let where = '';
    const result = await withSilences(io, true, (store, description) => {
      where = description;
      return store.end(id, now);
    });
    if (result.outcome === 'missing') {
      println(io.stderr, `shieldwatch silence end: no silence ${id} (shieldwatch silence list shows them)`);
      return 1;
    }
    if (result.outcome === 'already-ended') {
      println(io.stdout, `silence ${id} had already ended at ${result.silence.endsAt}; nothing changed`);
      return 0;
    }
    println(io.stdout, `silence ${id} ended at ${result.silence.endsAt}: changes seen from now on are sent`);
    println(io.stdout, `store: ${where}`);
    return 0;
  },
});

export const silenceCommand = defineCommand({
  name: 'silence',
  usage: [
    'silence --for DURATION [--reason TEXT] [--event PATTERN]',
    'silence list [--format table|json]',
    'silence end ID',
  ],
  description: [
    'Starts a silence now, for DURATION (30m, 2h, 3d; at most 7d). An alert whose change is observed',
    'while the silence is active and whose event matches PATTERN is recorded as suppressed (events',
    'shows it with the silence id) and never sent, not even after the silence ends. Reminders are',
    'suppressed too. An alert observed before the silence began and still waiting to be sent (SNS down)',
    'is sent. The Lambda and the CLI (poll, run) honour silences alike; test-alert is never silenced.',
  ].join('\n'),
  options: {
    for: {
      type: 'string',
      value: 'DURATION',
      description: 'how long, from now: 1m to 7d',
      examples: ['30m', '2h', '3d'],
    },
    reason: {
      type: 'string',
      value: 'TEXT',
      description: `why (shown by silence list; at most ${MAX_REASON_CHARS} characters)`,
    },
    event: {
      type: 'string',
      value: 'PATTERN',
      description: 'which events: * (default, all), a name or a pattern with *',
      examples: ['network.*', 'api.*', 'filter.status_changed'],
    },
  },
  subcommands: [listCommand, endCommand],
  examples: [
    "silence --for 2h --reason 'maintenance window'",
    "silence --for 30m --event 'network.*'",
    'silence list',
    'silence end s-k3j9x2ab',
  ],
  notes: [
    `Events: ${SILENCEABLE_EVENTS.join(', ')}.`,
    'A silence is written to the store named (--stack NAME, AWS settings) or to the local store of this',
    'directory; with neither it is refused (a new local store would silence nothing the monitor sends).',
    'Exit codes: 0 done, 1 the store failed or none is named, 2 bad usage (a duration over 7d, a pattern that',
    'matches no event).',
  ].join('\n'),
  async run(values, io) {
    const duration = values.for;
    if (duration === undefined) {
      throw new UsageError('give --for DURATION to start a silence, or a subcommand: list, end');
    }
    const request = {
      duration,
      ...(values.event === undefined ? {} : { pattern: values.event }),
      ...(values.reason === undefined ? {} : { reason: values.reason }),
    };
    const now = io.now();
    const by = creator(io);
    const checked = newSilence(
      { ...request, ...(by === undefined ? {} : { createdBy: by }) },
      now,
      silenceId(randomBytes(5)),
    );
    if (!checked.ok) throw new UsageError(checked.problems.join('\n'));
    let where = '';
    const silence = await withSilences(io, false, async (store, description) => {
      where = description;
      let candidate = checked.silence;
      for (let attempt = 1; attempt <= ID_ATTEMPTS; attempt++) {
        if (await store.put(candidate)) return candidate;
        candidate = { ...candidate, id: silenceId(randomBytes(5)) };
      }
      throw new Error(`could not find a free silence id in ${ID_ATTEMPTS} attempts`);
    });
    println(
      io.stdout,
      `silence ${silence.id} active until ${silence.endsAt} (${formatDuration(Date.parse(silence.endsAt) - now)}): ` +
        `${silence.pattern} (${eventsMatching(silence.pattern).join(', ')})`,
    );
    if (silence.reason !== undefined) println(io.stdout, `reason: ${printable(silence.reason)}`);
    println(io.stdout, `store: ${where}`);
    const stack = io.env['SHIELDWATCH_STACK'];
    println(
      io.stdout,
      `end it early with: shieldwatch silence end ${silence.id}${stack === undefined ? '' : ` --stack ${stack}`}`,
    );
    return 0;
  },
});
