import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { formatDuration } from '../../lambda/core/alerts/alert-text.ts';
import { displayStatus } from '../../lambda/core/detect/status.ts';
import { computeUptime, UNREADABLE_STATUS, type UptimeReport } from '../../lambda/core/uptime.ts';
import { boundedWindow, defineCommand, formatOption, WINDOW_OPTIONS } from '../args.ts';
import { clip, printable, printableJson, renderTable } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

const percent = (share: number) => `${(share * 100).toFixed(share >= 0.9995 || share === 0 ? 1 : 2)}%`;

function renderReport(report: UptimeReport): string {
  const lines = [
    `window     ${report.from} .. ${report.to}`,
    `monitored  ${formatDuration(report.monitoredMs)}`,
  ];
  if (report.gaps.length > 0) {
    const total = report.gaps.reduce((ms, gap) => ms + gap.ms, 0);
    lines.push(
      `not monitored ${formatDuration(total)} in ${report.gaps.length} gap(s), longest from ${[...report.gaps].sort((a, b) => b.ms - a.ms)[0]?.from}`,
    );
  }
  lines.push('', 'filter status (share of monitored time)');
  lines.push(
    renderTable(
      ['status', 'share', 'time'],
      report.statuses.map((s) => [
        s.status === UNREADABLE_STATUS
          ? s.status
          : clip(printable(JSON.stringify(displayStatus(s.status))), 40),
        percent(s.share),
        formatDuration(s.ms),
      ]),
    ),
  );
  const a = report.availability;
  lines.push(
    '',
    `API availability  ${percent(a.share)} of monitored time (${a.cycles} cycles, ${a.failedCycles} failed${
      Object.keys(a.byKind).length === 0
        ? ''
        : `: ${Object.entries(a.byKind)
            .map(([kind, n]) => `${kind} ${n}`)
            .join(', ')}`
    }${a.cutShort === 0 ? '' : `; ${a.cutShort} cut short by the operator, not counted`})`,
  );
  return lines.join('\n');
}

export const uptimeCommand = defineCommand({
  name: 'uptime',
  usage: ['uptime [--since 30d|ISO] [--until ...] [--format table|json]'],
  description: [
    'Reads the stored filter snapshots and reports, for the window:',
    '  - the share of time in each filter status, each snapshot counting until the next one;',
    '    time whose status could not be read counts as (unreadable);',
    '  - the API availability: the share of time the API answered (anything but time-outs,',
    '    connection errors, 5xx and 429), with failed cycles by kind;',
    '  - gaps: stretches with no snapshot for more than 3 typical intervals (the monitor was not running),',
    '    and cycles cut short by the operator (a second Ctrl-C of run), which count in neither share.',
  ].join('\n'),
  options: {
    since: { ...WINDOW_OPTIONS.since, default: '30d' },
    until: { ...WINDOW_OPTIONS.until, description: 'up to WHEN (same forms; default now)' },
    format: formatOption('the output'),
  },
  examples: ['uptime', 'uptime --since 7d --format json', 'uptime --since 2025-06-01 --until 2025-07-01'],
  async run(values, io: CliIo) {
    const format = values.format;
    const nowMs = io.now();
    const { since, until } = boundedWindow(values, '30d', nowMs);
    const config = loadStoreConfig(io.env);
    const store = await openStore(io.env, config.table, { readOnly: true });
    try {
      const snapshots = await storeCall(store, () =>
        new DynamoStore(store.client, config.table).querySnapshots({ kind: 'filter' }, { since, until }),
      );
      if (snapshots.length === 0) {
        println(io.stdout, format === 'json' ? JSON.stringify(null) : 'no filter snapshots in that window');
        return 0;
      }
      const report = computeUptime(snapshots, { sinceMs: Date.parse(since), untilMs: Date.parse(until) });
      println(io.stdout, format === 'json' ? printableJson(report, 2) : renderReport(report));
      return 0;
    } finally {
      store.client.destroy();
    }
  },
});
