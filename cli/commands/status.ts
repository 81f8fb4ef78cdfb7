import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { formatDuration } from '../../lambda/core/alert-text.ts';
import type { IncidentKind, MonitorState } from '../../lambda/core/decide.ts';
import { extractFigures } from '../../lambda/core/figures.ts';
import { displayStatus } from '../../lambda/core/status.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import type { OutboxEntry } from '../../lambda/ports.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { toHistoryEntry } from '../entries.ts';
import {
  clip,
  palette,
  parseFormat,
  printable,
  printableJson,
  renderTable,
  UsageError,
  useColour,
} from '../format.ts';
import { type CliIo, type Command, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

/** Numeric fields shown per network. */
const FIGURES_SHOWN = 6;

/** How the confirmed filter status stands against the expected one. */
export type Standing = 'expected' | 'away' | 'no expected status';

/** The newest snapshot of a target, as `status` shows it. */
export interface LastObservation {
  readonly at: string;
  /** Milliseconds between `at` and the moment `status` ran. */
  readonly ageMs: number;
  readonly ok: boolean;
  readonly status?: string;
  readonly error?: string;
  readonly httpStatus?: number;
  readonly latencyMs?: number;
  /** A network's first numeric fields (dot path → value). */
  readonly figures?: Readonly<Record<string, number>>;
}

/** What `shieldwatch status --format json` prints. */
export interface StatusReport {
  /** When the report was made, ISO-8601. */
  readonly at: string;
  readonly filter: {
    /** The last confirmed status, exact; `null` before the first readable one. */
    readonly status: string | null;
    readonly since: string | null;
    readonly forMs: number | null;
    /** `SHIELDWATCH_EXPECTED_STATUS`, when set. */
    readonly expected: string | null;
    readonly standing: Standing;
    /** A new status seen fewer times in a row than the confirmations asked for. */
    readonly candidate: { readonly status: string; readonly count: number; readonly since: string } | null;
    readonly last: LastObservation | null;
  };
  readonly networks: ReadonlyArray<{ readonly id: string; readonly last: LastObservation | null }>;
  /** Incidents about the monitor's view of the API: open ones, and those counting towards an alert. */
  readonly incidents: ReadonlyArray<{
    readonly kind: IncidentKind;
    readonly open: boolean;
    readonly since: string | null;
    readonly cycles: number;
    readonly lastError: string | null;
  }>;
  /** Alerts in the outbox: decided, not yet published (or their removal not yet written). */
  readonly pending: ReadonlyArray<{
    readonly seq: number;
    readonly event: string;
    readonly at: string;
    readonly from: string | null;
    readonly to: string | null;
    readonly failures: number;
    readonly lastError: string | null;
    readonly claimed: boolean;
  }>;
}

function lastObservation(snapshot: Snapshot | undefined, nowMs: number): LastObservation | null {
  if (snapshot === undefined) return null;
  const entry = toHistoryEntry(snapshot);
  const figures =
    snapshot.target.kind === 'network' && entry.data !== undefined
      ? Object.fromEntries(extractFigures(entry.data, FIGURES_SHOWN))
      : undefined;
  return {
    at: snapshot.at,
    ageMs: Math.max(0, nowMs - Date.parse(snapshot.at)),
    ok: snapshot.ok,
    ...(snapshot.status === undefined ? {} : { status: snapshot.status }),
    ...(snapshot.error === undefined ? {} : { error: snapshot.error }),
    ...(snapshot.httpStatus === undefined ? {} : { httpStatus: snapshot.httpStatus }),
    ...(snapshot.latencyMs === undefined ? {} : { latencyMs: snapshot.latencyMs }),
    ...(figures === undefined ? {} : { figures }),
  };
}

/** Builds the report from what the store holds. Pure: the time comes in as `nowMs`. */
export function statusReport(input: {
  readonly state: MonitorState;
  readonly outbox: readonly OutboxEntry[];
  readonly filter: Snapshot | undefined;
  readonly networks: ReadonlyArray<{ readonly id: string; readonly last: Snapshot | undefined }>;
  readonly expected: string | undefined;
  readonly nowMs: number;
}): StatusReport {
  const { state, expected, nowMs } = input;
  const status = state.status ?? null;
  const standing: Standing =
    expected === undefined || status === null
      ? 'no expected status'
      : status === expected
        ? 'expected'
        : 'away';
  const incidents = (
    Object.entries(state.incidents) as Array<[IncidentKind, MonitorState['incidents']['auth']]>
  )
    .filter(([, incident]) => incident.open || incident.count > 0)
    .map(([kind, incident]) => ({
      kind,
      open: incident.open,
      since: incident.since ?? null,
      cycles: incident.count,
      lastError: incident.lastError ?? null,
    }));
  return {
    at: new Date(nowMs).toISOString(),
    filter: {
      status,
      since: state.statusSince ?? null,
      forMs: state.statusSince === undefined ? null : Math.max(0, nowMs - Date.parse(state.statusSince)),
      expected: expected ?? null,
      standing,
      candidate:
        state.candidate === undefined
          ? null
          : { status: state.candidate.status, count: state.candidate.count, since: state.candidate.firstAt },
      last: lastObservation(input.filter, nowMs),
    },
    networks: input.networks.map(({ id, last }) => ({ id, last: lastObservation(last, nowMs) })),
    incidents,
    pending: input.outbox.map((entry) => ({
      seq: entry.seq,
      event: entry.event,
      at: entry.at,
      from: entry.from ?? null,
      to: entry.to ?? null,
      failures: entry.failures ?? 0,
      lastError: entry.lastError ?? null,
      claimed: entry.claimedBy !== undefined && (entry.claimUntil ?? 0) > nowMs,
    })),
  };
}

/** ` (HTTP 200, 34 ms)`; a failure's error already names its HTTP status, so then only the time. */
function answerOf(last: LastObservation): string {
  const parts = [
    ...(last.ok && last.httpStatus !== undefined ? [`HTTP ${last.httpStatus}`] : []),
    ...(last.latencyMs === undefined ? [] : [`${last.latencyMs} ms`]),
  ];
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

const quoted = (status: string): string => clip(printable(JSON.stringify(displayStatus(status))), 60);

function renderText(report: StatusReport, io: CliIo): string {
  const colour = palette(useColour(io.stdout, io.env));
  const { filter } = report;
  const lines: string[] = [];
  if (filter.status === null) {
    lines.push('filter status  (none confirmed yet: no readable status has been observed)');
  } else {
    const shown = quoted(filter.status);
    const value =
      filter.standing === 'expected'
        ? `${colour.green(shown)} (expected)`
        : filter.standing === 'away'
          ? `${colour.red(shown)} (AWAY from expected ${quoted(filter.expected ?? '')})`
          : `${shown} (no expected status: set ${SETTINGS.expectedStatus.env} to mark it)`;
    const since =
      filter.since === null ? '' : `  since ${filter.since} (${formatDuration(filter.forMs ?? 0)})`;
    lines.push(`filter status  ${value}${since}`);
  }
  if (filter.candidate !== null) {
    lines.push(
      `  candidate    ${quoted(filter.candidate.status)} seen ${filter.candidate.count} cycle(s) in a row since ${filter.candidate.since}, not confirmed yet`,
    );
  }
  const last = filter.last;
  lines.push(
    last === null
      ? '  last seen    never (no filter snapshot stored)'
      : `  last seen    ${formatDuration(last.ageMs)} ago, ${last.at}: ${
          last.ok
            ? `${colour.green('ok')} ${quoted(last.status ?? '')}`
            : `${colour.red('FAIL')} ${clip(printable(last.error ?? ''), 100)}`
        }${answerOf(last)}`,
  );

  lines.push('', 'networks');
  if (report.networks.length === 0) {
    lines.push(
      `  none configured (set ${SETTINGS.networks.env} or give --networks to see their last figures)`,
    );
  } else {
    const rows = report.networks.map(({ id, last: seen }) => [
      clip(printable(id), 40),
      seen === null ? '-' : `${formatDuration(seen.ageMs)} ago`,
      seen === null ? 'never' : seen.ok ? colour.green('ok') : colour.red('FAIL'),
      seen === null
        ? 'no snapshot stored'
        : clip(
            printable(
              seen.ok
                ? Object.entries(seen.figures ?? {})
                    .map(([path, value]) => `${path}=${value}`)
                    .join(' ') || '(no numeric fields)'
                : (seen.error ?? ''),
            ),
            100,
          ),
    ]);
    lines.push(renderTable(['id', 'age', 'result', 'figures / error'], rows).replace(/^/gm, '  '));
  }

  lines.push('');
  if (report.incidents.length === 0) {
    lines.push(`incidents      ${colour.green('none open')}`);
  } else {
    lines.push('incidents');
    const rows = report.incidents.map((incident) => [
      incident.kind,
      incident.open ? colour.red('OPEN') : colour.yellow('counting'),
      incident.since ?? '-',
      String(incident.cycles),
      clip(printable(incident.lastError ?? ''), 80),
    ]);
    lines.push(renderTable(['kind', 'state', 'since', 'cycles', 'last error'], rows).replace(/^/gm, '  '));
  }

  lines.push('');
  if (report.pending.length === 0) {
    lines.push(`pending alerts ${colour.green('none')} (the outbox is empty)`);
  } else {
    lines.push(
      `pending alerts ${colour.yellow(String(report.pending.length))} (in the outbox, sent by the next cycle)`,
    );
    const rows = report.pending.map((alert) => [
      String(alert.seq),
      alert.event,
      alert.at,
      alert.from === null && alert.to === null
        ? '-'
        : `${alert.from === null ? '-' : quoted(alert.from)} -> ${alert.to === null ? '-' : quoted(alert.to)}`,
      `${alert.failures}${alert.claimed ? ' (being sent)' : ''}`,
      clip(printable(alert.lastError ?? ''), 80),
    ]);
    lines.push(
      renderTable(['seq', 'event', 'at', 'change', 'failures', 'last error'], rows).replace(/^/gm, '  '),
    );
  }
  return lines.join('\n');
}

/** The networks to show: `--networks`, else `SHIELDWATCH_NETWORKS`, read leniently (nothing is requested). */
function networksToShow(values: Readonly<Record<string, unknown>>, io: CliIo): string[] {
  const raw =
    typeof values['networks'] === 'string' ? values['networks'] : (io.env[SETTINGS.networks.env] ?? '');
  return [
    ...new Set(
      raw
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
}

export const statusCommand: Command = {
  name: 'status',
  summary:
    'the monitor at a glance, from the store: filter status and since when, networks, incidents, outbox',
  help: [
    'Usage: shieldwatch status [--networks A,B] [--format table|json]',
    '',
    'Reads the store only (no API request) and shows:',
    '  - the confirmed filter status and since when; against SHIELDWATCH_EXPECTED_STATUS, when set, it is',
    '    labelled (expected) in green or (AWAY from expected ...) in red; a status seen but not yet',
    '    confirmed; the last filter snapshot and its age;',
    "  - each network's last figures (or error) and their age;",
    '  - incidents about the API (key rejected, unreachable, status unreadable): open, or counting;',
    '  - pending alerts: the outbox, decided but not yet published.',
    'Colour only on a terminal, never with NO_COLOR set; every colour has a label too.',
    '',
    'Options:',
    '  --networks A,B   the networks to show (default SHIELDWATCH_NETWORKS)',
    '  --format FORMAT  table (default) or json',
    '  -h, --help       show this help',
    '',
    'Needs only the store settings (SHIELDWATCH_TABLE, AWS settings or the embedded store).',
    'Exit codes: 0 shown; 1 the store could not be read (or this directory has none); 2 bad usage.',
  ].join('\n'),
  options: { networks: { type: 'string' }, format: { type: 'string' } },
  async run(values, io: CliIo) {
    const format = parseFormat(typeof values['format'] === 'string' ? values['format'] : undefined);
    if (format === 'csv') throw new UsageError('--format must be table or json');
    const networks = networksToShow(values, io);
    const rawExpected = io.env[SETTINGS.expectedStatus.env];
    // Compared exactly, as the monitor does: not trimmed; only blank means unset.
    const expected = rawExpected !== undefined && rawExpected.trim() !== '' ? rawExpected : undefined;
    const config = loadStoreConfig(io.env);
    const store = await openStore(io.env, config.table, { readOnly: true });
    try {
      const view = new DynamoStore(store.client, config.table);
      const [{ state, outbox }, filter, lasts] = await storeCall(store, () =>
        Promise.all([
          view.load(),
          view.querySnapshots({ kind: 'filter' }, { limit: 1 }),
          Promise.all(
            networks.map((networkId) => view.querySnapshots({ kind: 'network', networkId }, { limit: 1 })),
          ),
        ]),
      );
      const report = statusReport({
        state,
        outbox,
        filter: filter[0],
        networks: networks.map((id, i) => ({ id, last: lasts[i]?.[0] })),
        expected,
        nowMs: io.now(),
      });
      // Which store this is (a deployed stack's table, the embedded one): the answer depends on it.
      println(
        io.stdout,
        format === 'json'
          ? printableJson({ ...report, store: store.description }, 2)
          : `${renderText(report, io)}\nstore          ${printable(store.description)}`,
      );
      return 0;
    } finally {
      store.client.destroy();
    }
  },
};
