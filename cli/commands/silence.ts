import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import {
  DynamoSilenceStore,
  SILENCE_KEPT_MS,
  type StoredSilences,
} from '../../lambda/adapters/silence-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import { parseMaintenance } from '../../lambda/core/silences/maintenance-config.ts';
import {
  currentOccurrence,
  localTimeOf,
  type MaintenanceWindow,
  newWindow,
  nextOccurrence,
  type WindowRequest,
} from '../../lambda/core/silences/maintenance-window.ts';
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
import { SETTINGS } from '../../lambda/settings.ts';
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
    const silences = new DynamoSilenceStore(store.client, config.table, {
      now: io.now,
      windows: declaredRequests(io),
    });
    return await storeCall(store, () => work(silences, store.description));
  } finally {
    store.client.destroy();
  }
}

/**
 * The windows this CLI's configuration declares (`SHIELDWATCH_MAINTENANCE`, as context `maintenance` gives the
 * function); a bad list is a usage error naming it.
 */
function declaredRequests(io: CliIo): WindowRequest[] {
  const text = io.env[SETTINGS.maintenance.env];
  if (text === undefined || text.trim() === '') return [];
  const parsed = parseMaintenance(text, io.now(), false);
  if (!parsed.ok)
    throw new UsageError(parsed.problems.map((p) => `${SETTINGS.maintenance.env}: ${p}`).join('\n'));
  return parsed.requests;
}

/** One maintenance window as `silence list --format json` prints it (docs/silences.md). */
export interface WindowEntry {
  readonly id: string;
  readonly kind: 'window';
  /** active: an occurrence is under way; pending: the next is to come; ended: none is to come. */
  readonly status: SilenceStatus;
  /** The occurrence under way, else the next one; absent when none is to come. */
  readonly startsAt?: string;
  readonly endsAt?: string;
  readonly pattern: string;
  readonly reason?: string;
  readonly repeat?: string;
  readonly tz: string;
  readonly for: string;
  readonly notify: boolean;
  /** The first occurrence to start after now (the one after the active one, while one is active). */
  readonly nextStartsAt?: string;
  readonly remainingMs: number;
  readonly createdAt: string;
  readonly createdBy?: string;
  /** `context`: declared in the stack's context `maintenance` (or SHIELDWATCH_MAINTENANCE). */
  readonly source?: 'context';
}

/** A stored item under the silences that is neither a silence nor a valid window: read as absent. */
export interface InvalidEntry {
  readonly id: string;
  readonly status: 'invalid';
  readonly problem: string;
}

function windowEntry(window: MaintenanceWindow, nowMs: number): WindowEntry {
  const active = currentOccurrence(window, nowMs);
  const next = nextOccurrence(window, nowMs);
  const shown = active ?? next;
  return {
    id: window.id,
    kind: 'window',
    status: active !== undefined ? 'active' : next !== undefined ? 'pending' : 'ended',
    ...(shown === undefined
      ? {}
      : { startsAt: new Date(shown.startMs).toISOString(), endsAt: new Date(shown.endMs).toISOString() }),
    pattern: window.pattern,
    ...(window.reason === undefined ? {} : { reason: window.reason }),
    ...(window.repeat === undefined ? {} : { repeat: window.repeat }),
    tz: window.tz,
    for: window.for,
    notify: window.notify,
    ...(next === undefined ? {} : { nextStartsAt: new Date(next.startMs).toISOString() }),
    remainingMs: active === undefined ? 0 : active.endMs - nowMs,
    createdAt: window.createdAt,
    ...(window.createdBy === undefined ? {} : { createdBy: window.createdBy }),
    ...(window.source === undefined ? {} : { source: window.source }),
  };
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
    const all: StoredSilences = await withSilences(io, true, (store) => store.listAll());
    const now = io.now();
    const entries: SilenceEntry[] = listedSilences(all.silences, now, SILENCE_KEPT_MS).map((s) => ({
      ...s,
      status: silenceStatus(s, now),
      remainingMs: remainingMs(s, now),
    }));
    const windows = all.windows
      .map((w) => windowEntry(w, now))
      .filter((w) => w.status !== 'ended' || w.source === undefined)
      .sort((a, b) => (a.startsAt ?? '~').localeCompare(b.startsAt ?? '~') || a.id.localeCompare(b.id));
    const invalid: InvalidEntry[] = all.invalid.map((i) => ({
      id: i.id,
      status: 'invalid',
      problem: i.problem,
    }));
    for (const bad of invalid) {
      println(
        io.stderr,
        `shieldwatch silence list: ${bad.id} is ignored (silences nothing): ${printable(bad.problem)}`,
      );
    }
    if (format === 'json') {
      println(io.stdout, printableJson([...entries, ...windows, ...invalid], 2));
      return 0;
    }
    if (entries.length === 0 && windows.length === 0 && invalid.length === 0) {
      println(io.stdout, 'no active silence, no maintenance window, and none ended in the last 7 days');
      return 0;
    }
    const cell = (text: string | undefined, max: number) => clip(printable(text ?? ''), max);
    if (entries.length > 0 || windows.length === 0) {
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
    }
    if (windows.length > 0) {
      if (entries.length > 0) println(io.stdout, '');
      println(io.stdout, 'maintenance windows:');
      println(
        io.stdout,
        renderTable(
          ['id', 'status', 'events', 'repeat', 'for', 'next', 'next (local)', 'notify', 'reason'],
          windows.map((w) => [
            w.source === 'context' ? `${w.id} (context)` : w.id,
            w.status === 'active' ? `active, ${formatDuration(w.remainingMs)} left` : w.status,
            cell(w.pattern, 30),
            cell(w.repeat ?? 'once', 40),
            w.for,
            w.nextStartsAt ?? '',
            w.nextStartsAt === undefined ? '' : localTimeOf(Date.parse(w.nextStartsAt), w.tz),
            w.notify ? 'yes' : 'no',
            cell(w.reason, 60),
          ]),
        ),
      );
    }
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
    let declared: MaintenanceWindow[] = [];
    const result = await withSilences(io, true, (store, description) => {
      where = description;
      declared = store.declaredWindows();
      return store.end(id, now);
    });
    if (result.outcome === 'missing') {
      if (declared.some((w) => w.id === id)) {
        println(
          io.stderr,
          `shieldwatch silence end: ${id} is declared in the stack's context maintenance: change it there and deploy`,
        );
        return 1;
      }
      println(io.stderr, `shieldwatch silence end: no silence ${id} (shieldwatch silence list shows them)`);
      return 1;
    }
    if (result.outcome === 'already-ended') {
      println(io.stdout, `silence ${id} had already ended at ${result.silence.endsAt}; nothing changed`);
      return 0;
    }
    if (result.outcome === 'no-occurrence') {
      const next = nextOccurrence(result.window, now);
      println(
        io.stdout,
        `window ${id} has no occurrence under way; nothing changed` +
          (next === undefined
            ? ''
            : ` (next: ${new Date(next.startMs).toISOString()}; silence cancel ${id} removes the window)`),
      );
      return 0;
    }
    if (result.outcome === 'occurrence-ended') {
      const next = nextOccurrence(result.window, now);
      println(
        io.stdout,
        `window ${id}: its occurrence from ${new Date(result.occurrence.startMs).toISOString()} ended at ` +
          `${new Date(now).toISOString()}: changes seen from now on are sent` +
          (next === undefined
            ? ''
            : `; the next occurrence starts at ${new Date(next.startMs).toISOString()}`),
      );
      println(io.stdout, `store: ${where}`);
      return 0;
    }
    println(io.stdout, `silence ${id} ended at ${result.silence.endsAt}: changes seen from now on are sent`);
    println(io.stdout, `store: ${where}`);
    return 0;
  },
});

const cancelCommand = defineCommand({
  name: 'silence cancel',
  summary: 'remove a maintenance window (or a silence) and its future occurrences',
  description: [
    'Removes the window ID (as `silence list` shows it) with every occurrence to come; an occurrence under',
    "way ends now. Alerts observed while it was active stay suppressed. A window declared in the stack's",
    'context maintenance is removed by removing it there and deploying.',
  ].join('\n'),
  options: {},
  arguments: ['id'],
  examples: ['silence cancel s-k3j9x2ab'],
  notes: 'Exit codes: 0 removed, 1 no such window or the store failed, 2 bad usage.',
  async run(values, io) {
    const { id } = values;
    if (!isSilenceId(id)) {
      throw new UsageError(
        `${JSON.stringify(id)} is no silence id; ids look like s-k3j9x2ab (see shieldwatch silence list)`,
      );
    }
    let where = '';
    let declared: MaintenanceWindow[] = [];
    const removed = await withSilences(io, true, (store, description) => {
      where = description;
      declared = store.declaredWindows();
      return store.cancel(id);
    });
    if (!removed) {
      const inContext = declared.some((w) => w.id === id);
      println(
        io.stderr,
        inContext
          ? `shieldwatch silence cancel: ${id} is declared in the stack's context maintenance: remove it there and deploy`
          : `shieldwatch silence cancel: no window or silence ${id} (shieldwatch silence list shows them)`,
      );
      return 1;
    }
    println(io.stdout, `${id} removed with its future occurrences; nothing is silenced by it from now on`);
    println(io.stdout, `store: ${where}`);
    return 0;
  },
});

/** `silence --start ...`: checks the window, stores it, and says when it next occurs. */
async function createWindow(request: WindowRequest, io: CliIo): Promise<number> {
  const now = io.now();
  const by = creator(io);
  const checked = newWindow(
    request,
    now,
    silenceId(randomBytes(5)),
    by === undefined ? {} : { createdBy: by },
  );
  if (!checked.ok) throw new UsageError(checked.problems.join('\n'));
  let where = '';
  const window = await withSilences(io, false, async (store, description) => {
    where = description;
    let candidate = checked.window;
    for (let attempt = 1; attempt <= ID_ATTEMPTS; attempt++) {
      if (await store.putWindow(candidate)) return candidate;
      candidate = { ...candidate, id: silenceId(randomBytes(5)) };
    }
    throw new Error(`could not find a free silence id in ${ID_ATTEMPTS} attempts`);
  });
  const first = currentOccurrence(window, now) ?? nextOccurrence(window, now);
  const when =
    first === undefined
      ? 'no occurrence to come'
      : `${first.startMs <= now ? 'active from' : 'next'} ${new Date(first.startMs).toISOString()} (${localTimeOf(first.startMs, window.tz)}) until ${new Date(first.endMs).toISOString()}`;
  println(
    io.stdout,
    `window ${window.id} ${window.repeat === undefined ? 'once' : `repeats ${window.repeat}`}, ${window.for} each: ${when}: ` +
      `${window.pattern} (${eventsMatching(window.pattern).join(', ')})`,
  );
  if (window.reason !== undefined) println(io.stdout, `reason: ${printable(window.reason)}`);
  if (window.notify)
    println(io.stdout, 'notices: maintenance.started and maintenance.ended for each occurrence');
  println(io.stdout, `store: ${where}`);
  const stack = io.env['SHIELDWATCH_STACK'];
  const suffix = stack === undefined ? '' : ` --stack ${stack}`;
  println(
    io.stdout,
    `end an occurrence early with: shieldwatch silence end ${window.id}${suffix}; remove the window with: shieldwatch silence cancel ${window.id}${suffix}`,
  );
  return 0;
}

export const silenceCommand = defineCommand({
  name: 'silence',
  usage: [
    'silence --for DURATION [--reason TEXT] [--event PATTERN]',
    'silence --start WHEN --for DURATION [--repeat RULE] [--tz ZONE] [--event PATTERN] [--reason TEXT] [--notify]',
    'silence list [--format table|json]',
    'silence end ID',
    'silence cancel ID',
  ],
  description: [
    'Starts a silence now, for DURATION (30m, 2h, 3d; at most 7d). An alert whose change is observed',
    'while the silence is active and whose event matches PATTERN is recorded as suppressed (events',
    'shows it with the silence id) and never sent, not even after the silence ends. Reminders are',
    'suppressed too. An alert observed before the silence began and still waiting to be sent (SNS down)',
    'is sent. The Lambda and the CLI (poll, run) honour silences alike; test-alert is never silenced.',
    '',
    'With --start, --repeat, --tz or --notify it is a maintenance window planned ahead: each occurrence',
    'starts at WHEN (ISO-8601, or HH:MM: the next such time in ZONE) and lasts DURATION, once or repeating',
    '(daily, weekdays, weekly, or an RFC 5545 RRULE with UNTIL or COUNT if wanted), keeping its wall-clock',
    'time in ZONE across daylight-saving changes. Inside an occurrence it is a silence like the above;',
    'with --notify, maintenance.started and maintenance.ended are published once per occurrence.',
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
    start: {
      type: 'string',
      value: 'WHEN',
      description: 'when the (first) occurrence starts: ISO-8601 or HH:MM in --tz (default now)',
      examples: ['02:00', '2026-12-06T02:00', '2026-12-06T01:00Z'],
    },
    repeat: {
      type: 'string',
      value: 'RULE',
      description: 'daily, weekdays, weekly or an RRULE (default: once)',
      examples: ['weekly', 'FREQ=WEEKLY;BYDAY=SU', 'FREQ=MONTHLY;BYDAY=1SA', 'FREQ=DAILY;COUNT=5'],
    },
    tz: {
      type: 'string',
      value: 'ZONE',
      description: 'IANA time zone of --start and the rule (default UTC)',
      examples: ['Europe/Berlin', 'America/New_York'],
    },
    notify: {
      type: 'boolean',
      description: 'publish maintenance.started and maintenance.ended for each occurrence',
    },
    event: {
      type: 'string',
      value: 'PATTERN',
      description: 'which events: * (default, all), a name or a pattern with *',
      examples: ['network.*', 'api.*', 'filter.status_changed'],
    },
  },
  subcommands: [listCommand, endCommand, cancelCommand],
  examples: [
    "silence --for 2h --reason 'maintenance window'",
    "silence --for 30m --event 'network.*'",
    "silence --start 02:00 --for 2h --repeat 'FREQ=WEEKLY;BYDAY=SU' --tz Europe/Berlin --notify --reason 'filter update'",
    "silence --start 06:00 --for 4h --repeat 'FREQ=MONTHLY;BYDAY=1SA' --tz Europe/Berlin",
    'silence --start 2026-12-06T01:00Z --for 90m',
    'silence list',
    'silence end s-k3j9x2ab',
    'silence cancel s-k3j9x2ab',
  ],
  notes: [
    `Events: ${SILENCEABLE_EVENTS.join(', ')}.`,
    'A silence is written to the store named (--stack NAME, AWS settings) or to the local store of this',
    'directory; with neither it is refused (a new local store would silence nothing the monitor sends).',
    'Exit codes: 0 done, 1 the store failed or none is named, 2 bad usage (a duration over 7d, a pattern that',
    'matches no event, an unknown zone, a rule that never occurs or overlaps itself, a one-off more than 90',
    'days ahead).',
  ].join('\n'),
  async run(values, io) {
    const duration = values.for;
    if (duration === undefined) {
      throw new UsageError('give --for DURATION to start a silence, or a subcommand: list, end, cancel');
    }
    if (
      values.start !== undefined ||
      values.repeat !== undefined ||
      values.tz !== undefined ||
      values.notify === true
    ) {
      return createWindow(
        {
          for: duration,
          ...(values.start === undefined ? {} : { start: values.start }),
          ...(values.repeat === undefined ? {} : { repeat: values.repeat }),
          ...(values.tz === undefined ? {} : { tz: values.tz }),
          ...(values.event === undefined ? {} : { event: values.event }),
          ...(values.reason === undefined ? {} : { reason: values.reason }),
          ...(values.notify === true ? { notify: true } : {}),
        },
        io,
      );
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
