import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import {
  type IncidentSources,
  type IncidentView,
  listIncidents,
  ruleTriggersBefore,
} from '../../lambda/core/incidents/incident-list.ts';
import { worse } from '../../lambda/core/incidents/incidents.ts';
import { acknowledgementOf, responseStats } from '../../lambda/core/incidents/response-times.ts';
import type { StoredEvent } from '../../lambda/ports.ts';
import { siNumber } from '../../lambda/report/units.ts';
import { defineCommand, formatOption } from '../args.ts';
import { clip, parseTimeArg, printable, printableJson, renderTable, UsageError } from '../format.ts';
import { renderStats } from '../incidents/render-stats.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

/** `--stats` without `--since`: the last 30 days. */
const STATS_SINCE = '30d';

/** How many stored events are read at once for the triggers before `--since`. */
const TRIGGER_READS = 25;

/**
 * Every incident in the store (docs/alerts.md, Incidents; CONTRACT §13): the incident items, the monitor state
 * item (a status away, the API), every shard's health item (the blind spots), every rule item (a rule's incidents
 * of one network), and the events since `since`; with `since`, the triggers of rule incidents of one network
 * that triggered before it (their peaks), read at their times.
 */
async function readIncidents(io: CliIo, since?: string): Promise<IncidentView[]> {
  const config = loadStoreConfig(io.env);
  const store = await openStore(io.env, config.table, { readOnly: true });
  try {
    const dynamo = new DynamoStore(store.client, config.table);
    const [scopes, monitor, health, ruleItems, events] = await storeCall(store, () =>
      Promise.all([
        dynamo.findIncidents(),
        dynamo.load(),
        dynamo.allHealthItems(),
        dynamo.allRuleItems(),
        dynamo.queryEvents(since === undefined ? {} : { since }),
      ]),
    );
    const sources: IncidentSources = {
      scopes: scopes.map((s) => s.loaded.state),
      monitor: monitor.state,
      health: health.map((h) => ({ shard: h.shard, state: h.loaded.state })),
      ruleItems: ruleItems.map((r) => r.loaded.state.rules),
      events,
    };
    const times = since === undefined ? [] : ruleTriggersBefore(sources, since);
    if (times.length === 0) return listIncidents(sources);
    const older: StoredEvent[] = [];
    for (let i = 0; i < times.length; i += TRIGGER_READS) {
      const batch = times.slice(i, i + TRIGGER_READS);
      const read = await storeCall(store, () =>
        Promise.all(batch.map((at) => dynamo.queryEvents({ since: at, until: at }))),
      );
      older.push(...read.flat());
    }
    return listIncidents({ ...sources, ruleEvents: [...older, ...events] });
  } finally {
    store.client.destroy();
  }
}

/** The JSON row of CONTRACT §13. */
function row(view: IncidentView) {
  return {
    id: view.id,
    kind: view.kind,
    rule: view.rule,
    state: view.state,
    openedAt: view.openedAt,
    resolvedAt: view.resolvedAt,
    networks: view.networks,
    acknowledged: view.acknowledged,
  };
}

/** A reading as a table shows it: `1.2M`, `true`. */
function shortValue(value: number | boolean): string {
  return typeof value === 'number' ? siNumber(value) : String(value);
}

/** The worst peak of an incident and its network, as `1.2M on edge-1`. */
function worstPeak(view: IncidentView): string {
  let best: { network: string; peak: number | boolean } | undefined;
  for (const n of view.networks) {
    if (n.peak === undefined) continue;
    if (best === undefined || worse('>', n.peak, best.peak)) best = { network: n.network, peak: n.peak };
  }
  return best === undefined ? '-' : `${shortValue(best.peak)} on ${printable(best.network)}`;
}

/** How long it lasted (so far); `-` for one resolved without a recorded end. */
function lasted(view: IncidentView, nowMs: number): string {
  if (view.state === 'resolved' && view.resolvedAt === undefined) return '-';
  const end = view.resolvedAt === undefined ? nowMs : Date.parse(view.resolvedAt);
  return formatDuration(end - Date.parse(view.openedAt));
}

/** When it resolved: its end's time, `-` while open, `not recorded` for one the state dropped without an end. */
function resolvedText(view: IncidentView): string {
  return view.resolvedAt ?? (view.state === 'resolved' ? 'not recorded' : '-');
}

/** The members' table: a rule's with values and peaks, a blind spot's with when each joined and left. */
function membersTable(view: IncidentView): string[] {
  if (view.members.length === 0) return [];
  const table =
    view.kind === 'rule'
      ? renderTable(
          ['NETWORK', 'VALUE', 'PEAK', 'PEAK AT', 'JOINED', 'RESOLVED'],
          view.members.map((m) => [
            clip(printable(m.network), 40),
            m.value === undefined ? '-' : String(m.value),
            m.peak === undefined ? '-' : String(m.peak),
            m.peakAt ?? '-',
            m.joinedAt,
            m.leftAt ?? '-',
          ]),
        )
      : renderTable(
          ['NETWORK', 'JOINED', 'RESOLVED'],
          view.members.map((m) => [clip(printable(m.network), 40), m.joinedAt, m.leftAt ?? '-']),
        );
  return ['', table];
}

/**
 * Who acknowledged it, when (and how long after it opened), and the note: the acknowledgement standing, or the
 * latest one the incident's timeline records (a resolved incident's, one withdrawn). None when never acknowledged.
 */
function acknowledgementLines(view: IncidentView): string[] {
  const ack = acknowledgementOf(view);
  if (ack === undefined) return [];
  const after = formatDuration(Math.max(0, Date.parse(ack.firstAt) - Date.parse(view.openedAt)));
  const first =
    ack.firstAt === ack.at ? `${after} after it opened` : `first at ${ack.firstAt}, ${after} after it opened`;
  return [
    `  acked by:  ${ack.by === undefined ? '(not recorded)' : printable(ack.by)} at ${ack.at} (${first})${ack.withdrawnAt === undefined ? '' : `, withdrawn at ${ack.withdrawnAt}`}`,
    ...(ack.note === undefined ? [] : [`  ack note:  ${clip(printable(ack.note), 200)}`]),
  ];
}

function timelineLine(t: IncidentView['timeline'][number]): string {
  const networks =
    t.networks === undefined
      ? ''
      : `: ${t.networks.map(printable).join(', ')}${t.count > t.networks.length ? ', ...' : ''}`;
  return [
    `  ${t.at}  ${t.what}${t.count > 0 ? ` (${t.count})` : ''}${networks}`,
    t.by === undefined ? '' : ` by ${printable(t.by)}`,
    // An acknowledgement's note: the incident item's line keeps it as `note`, an event's as `detail`.
    t.detail === undefined ? '' : ` - ${clip(printable(t.detail), 200)}`,
    t.note === undefined || t.detail !== undefined ? '' : ` - ${clip(printable(t.note), 200)}`,
  ].join('');
}

const showCommand = defineCommand({
  name: 'incidents show',
  summary: "one incident's members, peaks, timeline and alerts",
  description: [
    'Shows the incident ID (as `shieldwatch incidents` lists it), of any kind: what it is about, its state,',
    "start, end and duration; a rule's networks with when each joined, its latest value and its peak; a blind",
    "spot's networks with when each joined and recovered; its timeline; and its alerts, sent or suppressed",
    'by a silence.',
  ].join('\n'),
  options: {
    format: formatOption('json is the row of `incidents --format json` with members, timeline and alerts'),
  },
  arguments: ['id'],
  examples: [
    'incidents show flood@2026-03-01T10:00:00.000Z',
    'incidents show flood/edge-1/2026-03-01T10:00:00.000Z',
    'incidents show network.unreachable/0/2026-03-01T10:02:00.000Z',
    'incidents show api.unreachable/2026-03-01T10:00:00.000Z --format json',
  ],
  notes: 'Exit codes: 0 shown, 1 no such incident or the store failed, 2 bad usage.',
  async run(values, io) {
    const view = (await readIncidents(io)).find((v) => v.id === values.id);
    if (view === undefined) {
      println(
        io.stderr,
        `shieldwatch incidents show: no incident ${printable(values.id)} (shieldwatch incidents lists them)`,
      );
      return 1;
    }
    if (values.format === 'json') {
      println(
        io.stdout,
        printableJson(
          {
            ...row(view),
            about: view.about,
            ruleText: view.ruleText,
            detail: view.detail,
            members: view.members,
            timeline: view.timeline,
            alerts: view.alerts,
          },
          2,
        ),
      );
      return 0;
    }
    const sent = view.alerts.filter((a) => a.suppressedBy === undefined).length;
    const lines = [
      `incident ${printable(view.id)}`,
      `  kind:      ${view.kind}: ${printable(view.about)}`,
      ...(view.rule === undefined ? [] : [`  rule:      ${printable(view.ruleText ?? view.rule)}`]),
      ...(view.detail === undefined ? [] : [`  detail:    ${clip(printable(view.detail), 200)}`]),
      // "resolved by" would name who acknowledged it as who resolved it: the ack line below says who.
      `  state:     ${view.state}${view.acknowledged === undefined || view.state !== 'acknowledged' ? '' : ` by ${printable(view.acknowledged.by)} at ${view.acknowledged.at}`}`,
      ...acknowledgementLines(view),
      `  opened:    ${view.openedAt}`,
      `  resolved:  ${resolvedText(view)}${view.state === 'resolved' && view.resolvedAt === undefined ? ' (its networks or rule left the configuration, or its end is still in an outbox)' : ''}`,
      `  lasted:    ${lasted(view, io.now())}${view.state !== 'resolved' ? ' so far' : ''}`,
      // A status or API incident has no networks; a blind spot's are known from its health item and events.
      ...(view.kind !== 'rule' && view.members.length === 0
        ? []
        : [
            `  networks:  ${view.members.length}${view.kind === 'rule' ? `, worst peak ${worstPeak(view)}` : ''}`,
          ]),
      ...membersTable(view),
      '',
      'timeline:',
      ...view.timeline.map(timelineLine),
      '',
      `alerts: ${sent} sent, ${view.alerts.length - sent} suppressed`,
      ...view.alerts.map(
        (a) =>
          `  ${a.at}  ${a.event}${a.suppressedBy === undefined ? '' : ` (suppressed by ${a.suppressedBy})`}`,
      ),
    ];
    println(io.stdout, lines.join('\n'));
    return 0;
  },
});

export const incidentsCommand = defineCommand({
  name: 'incidents',
  usage: [
    'incidents [--open] [--since 24h|7d|ISO] [--format table|json]',
    'incidents --stats [--since 30d] [--open] [--format table|json]',
    'incidents show ID [--format table|json]',
  ],
  description: [
    'Lists the incidents of every kind, oldest first, with when each opened and resolved:',
    '  - rule: with SHIELDWATCH_GROUP_BY=rule (the default) one per rule and attack across every network it',
    '    hit, with how many networks and the worst peak; with SHIELDWATCH_GROUP_BY=none one per rule and',
    '    network, from its trigger to its resolve, with its peak;',
    '  - status: the filter status away from SHIELDWATCH_EXPECTED_STATUS;',
    '  - api: the API unreachable, the key rejected, the filter status unreadable;',
    '  - network, rule_unreadable: the blind spots (networks whose requests keep failing, a rule that reads',
    '    nothing), with their networks.',
    'Open incidents are always listed; --since keeps the resolved ones that ended since then. One resolved',
    'without a recorded end (its networks or rule left the configuration) shows RESOLVED "not recorded".',
    '',
    '--stats: how fast the team answered the same incidents (those listed with the same --since and',
    '--open; --since 30d when not given): how many per kind and per rule; the time to acknowledge (opening',
    'to the first acknowledgement, over the incidents acknowledged) and the time to resolve, which is the',
    'duration (opening to the recorded end, over the resolved incidents), each with its median, 90th',
    'percentile and worst. Percentiles by nearest rank: the p-th of n sorted times is the one of rank',
    'ceil(p/100 * n); the median is the 50th (of an even count the lower middle one). Open incidents are in',
    'no figure of those: they are counted apart, with how long they have been open so far.',
  ].join('\n'),
  options: {
    open: { type: 'boolean', description: 'only the open incidents' },
    since: {
      type: 'string',
      value: 'WHEN',
      description:
        'resolved incidents that ended since WHEN: a duration back from now (24h, 7d) or an ISO date (with --stats: default 30d)',
    },
    stats: {
      type: 'boolean',
      description:
        'how fast the team answered instead of the list: per kind and rule, time to acknowledge and to resolve',
    },
    format: formatOption(
      'json is an array of {id, kind, rule?, state, openedAt, resolvedAt?, networks: [{network, peak?, peakAt?}], acknowledged?}; with --stats one object (docs/cli.md)',
    ),
  },
  subcommands: [showCommand],
  examples: [
    'incidents',
    'incidents --open',
    'incidents --since 7d --format json',
    'incidents --stats',
    'incidents --stats --since 7d --format json',
    'incidents show flood@2026-03-01T10:00:00.000Z',
    'incidents show flood/edge-1/2026-03-01T10:00:00.000Z',
    'incidents show network.unreachable/0/2026-03-01T10:02:00.000Z',
  ],
  notes: 'Exit codes: 0 listed (also none), 1 the store failed, 2 bad usage.',
  async run(values, io) {
    // One now for the window, the times so far and what the table says.
    const nowMs = io.now();
    const sinceText = values.since ?? (values.stats ? STATS_SINCE : undefined);
    const since = sinceText === undefined ? undefined : parseTimeArg('--since', sinceText, nowMs);
    if (values.stats && since !== undefined && Date.parse(since) > nowMs) {
      throw new UsageError(
        `--since ${sinceText} is in the future (${since}): nothing could have ended since`,
      );
    }
    const all = await readIncidents(io, since);
    const picked = all.filter(
      (v) =>
        (!values.open || v.state !== 'resolved') &&
        (since === undefined || v.resolvedAt === undefined || v.resolvedAt >= since),
    );
    if (values.stats) {
      const stats = responseStats(picked, nowMs);
      const window = { since: since!, until: new Date(nowMs).toISOString() };
      println(
        io.stdout,
        values.format === 'json'
          ? printableJson({ ...window, ...stats }, 2)
          : renderStats(stats, window, values.open),
      );
      return 0;
    }
    if (values.format === 'json') {
      println(io.stdout, printableJson(picked.map(row), 2));
      return 0;
    }
    if (picked.length === 0) {
      println(io.stdout, values.open ? 'no open incident' : 'no incident');
      return 0;
    }
    println(
      io.stdout,
      renderTable(
        ['ID', 'ABOUT', 'STATE', 'OPENED', 'RESOLVED', 'LASTED', 'NETWORKS', 'WORST PEAK'],
        picked.map((v) => [
          // Whole: it is what `incidents show` and `ack` take (a blind spot's runs to about 90 characters).
          clip(printable(v.id), 100),
          clip(printable(v.about), 40),
          v.state,
          v.openedAt,
          resolvedText(v),
          lasted(v, nowMs),
          v.kind !== 'rule' && v.networks.length === 0 ? '-' : String(v.networks.length),
          worstPeak(v),
        ]),
      ),
    );
    return 0;
  },
});
