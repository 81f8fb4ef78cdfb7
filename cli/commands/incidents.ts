import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { formatDuration } from '../../lambda/core/alert-time.ts';
import { compactValue } from '../../lambda/core/incident-alert-text.ts';
import { type IncidentView, listIncidents } from '../../lambda/core/incident-list.ts';
import { worse } from '../../lambda/core/incidents.ts';
import { defineCommand, formatOption } from '../args.ts';
import { clip, parseTimeArg, printable, printableJson, renderTable } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

/** Every incident in the store (docs/alerts.md, Incidents): the incident items, then the events since `since`. */
async function readIncidents(io: CliIo, since?: string): Promise<IncidentView[]> {
  const config = loadStoreConfig(io.env);
  const store = await openStore(io.env, config.table, { readOnly: true });
  try {
    const dynamo = new DynamoStore(store.client, config.table);
    const [scopes, events] = await storeCall(store, () =>
      Promise.all([dynamo.findIncidentScopes(), dynamo.queryEvents(since === undefined ? {} : { since })]),
    );
    return listIncidents(
      scopes.map((s) => s.loaded.state),
      events,
    );
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

/** The worst peak of an incident and its network, as `1.2M on edge-1`. */
function worstPeak(view: IncidentView): string {
  let best: { network: string; peak: number | boolean } | undefined;
  for (const n of view.networks) {
    if (n.peak === undefined) continue;
    if (best === undefined || worse('>', n.peak, best.peak)) best = { network: n.network, peak: n.peak };
  }
  return best === undefined ? '-' : `${compactValue(best.peak)} on ${printable(best.network)}`;
}

function lasted(view: IncidentView, nowMs: number): string {
  const end = view.resolvedAt === undefined ? nowMs : Date.parse(view.resolvedAt);
  return formatDuration(end - Date.parse(view.openedAt));
}

const showCommand = defineCommand({
  name: 'incidents show',
  summary: "one incident's members, peaks, timeline and alerts",
  description: [
    'Shows the incident ID (as `shieldwatch incidents` lists it): its rule, state, start, end and duration;',
    'every network that joined with when, its latest value and its peak; its timeline; and its alerts, sent',
    'or suppressed by a silence.',
  ].join('\n'),
  options: {
    format: formatOption('json is the row of `incidents --format json` with members, timeline and alerts'),
  },
  arguments: ['id'],
  examples: ['incidents show flood@2026-03-01T10:00:00.000Z'],
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
            ruleText: view.ruleText,
            members: view.members,
            timeline: view.timeline,
            alerts: view.alerts,
          },
          2,
        ),
      );
      return 0;
    }
    const lines = [
      `incident ${printable(view.id)}`,
      `  rule:      ${printable(view.ruleText ?? view.rule ?? '-')}`,
      `  state:     ${view.state}${view.acknowledged === undefined ? '' : ` by ${printable(view.acknowledged.by)} at ${view.acknowledged.at}`}`,
      `  opened:    ${view.openedAt}`,
      `  resolved:  ${view.resolvedAt ?? '-'}`,
      `  lasted:    ${lasted(view, io.now())}${view.resolvedAt === undefined ? ' so far' : ''}`,
      `  networks:  ${view.members.length}, worst peak ${worstPeak(view)}`,
      '',
      renderTable(
        ['NETWORK', 'VALUE', 'PEAK', 'PEAK AT', 'JOINED', 'RESOLVED'],
        view.members.map((m) => [
          clip(printable(m.network), 40),
          m.value === undefined ? '-' : String(m.value),
          m.peak === undefined ? '-' : String(m.peak),
          m.peakAt ?? '-',
          m.joinedAt,
          m.leftAt ?? '-',
        ]),
      ),
      '',
      'timeline:',
      ...view.timeline.map(
        (t) =>
          `  ${t.at}  ${t.what}${t.count > 0 ? ` (${t.count})` : ''}${t.networks === undefined ? '' : `: ${t.networks.map(printable).join(', ')}${t.count > t.networks.length ? ', ...' : ''}`}${t.by === undefined ? '' : ` by ${printable(t.by)}`}`,
      ),
      '',
      `alerts: ${view.alerts.filter((a) => a.suppressedBy === undefined).length} sent, ${view.alerts.filter((a) => a.suppressedBy !== undefined).length} suppressed`,
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
    'incidents show ID [--format table|json]',
  ],
  description: [
    'Lists the incidents, oldest first: with SHIELDWATCH_GROUP_BY=rule (the default) one per rule and attack',
    'across every network it hit, with when it opened and resolved, how many networks and the worst peak.',
    'Open incidents are always listed; --since keeps the resolved ones that ended since then.',
  ].join('\n'),
  options: {
    open: { type: 'boolean', description: 'only the open incidents' },
    since: {
      type: 'string',
      value: 'WHEN',
      description:
        'resolved incidents that ended since WHEN: a duration back from now (24h, 7d) or an ISO date',
    },
    format: formatOption(
      'json is an array of {id, kind, rule, state, openedAt, resolvedAt?, networks: [{network, peak, peakAt}], acknowledged?}',
    ),
  },
  subcommands: [showCommand],
  examples: [
    'incidents',
    'incidents --open',
    'incidents --since 7d --format json',
    'incidents show flood@2026-03-01T10:00:00.000Z',
  ],
  notes: 'Exit codes: 0 listed (also none), 1 the store failed, 2 bad usage.',
  async run(values, io) {
    const since = values.since === undefined ? undefined : parseTimeArg('--since', values.since, io.now());
    const all = await readIncidents(io, since);
    const picked = all.filter(
      (v) =>
        (!values.open || v.state !== 'resolved') &&
        (since === undefined || v.resolvedAt === undefined || v.resolvedAt >= since),
    );
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
        ['ID', 'RULE', 'STATE', 'OPENED', 'RESOLVED', 'LASTED', 'NETWORKS', 'WORST PEAK'],
        picked.map((v) => [
          clip(printable(v.id), 60),
          clip(printable(v.rule ?? '-'), 30),
          v.state,
          v.openedAt,
          v.resolvedAt ?? '-',
          lasted(v, io.now()),
          String(v.networks.length),
          worstPeak(v),
        ]),
      ),
    );
    return 0;
  },
});
