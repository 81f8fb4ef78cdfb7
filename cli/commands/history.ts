import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { extractFigures } from '../../lambda/core/detect/figures.ts';
import { displayStatus } from '../../lambda/core/detect/status.ts';
import type { Target } from '../../lambda/core/types.ts';
import { defineCommand, timeWindow, WINDOW_OPTIONS } from '../args.ts';
import { numericSeries, renderLineChart } from '../chart.ts';
import { type HistoryEntry, toHistoryEntry } from '../entries.ts';
import {
  clip,
  type Format,
  palette,
  printable,
  printableJson,
  renderCsv,
  renderTable,
  UsageError,
  useColour,
} from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

function summaryOfData(entry: HistoryEntry): string {
  if (entry.data === undefined) return '';
  const figures = extractFigures(entry.data, 4);
  if (figures.length > 0) return figures.map(([path, value]) => `${path}=${value}`).join(' ');
  return JSON.stringify(entry.data) ?? '';
}

function render(entries: readonly HistoryEntry[], format: Format, io: CliIo, isFilter: boolean): string {
  if (format === 'json') return printableJson(entries, 2);
  if (format === 'csv') {
    return renderCsv(
      ['at', 'ok', 'status', 'httpStatus', 'latencyMs', 'error', 'data'],
      entries.map((e) => [
        e.at,
        e.ok,
        e.status,
        e.httpStatus,
        e.latencyMs,
        e.error,
        e.data === undefined ? undefined : JSON.stringify(e.data),
      ]),
    );
  }
  const colour = palette(useColour(io.stdout, io.env));
  const rows = entries.map((e) => [
    e.at,
    e.ok ? colour.green('ok') : colour.red('FAIL'),
    ...(isFilter
      ? [e.status === undefined ? '-' : clip(printable(JSON.stringify(displayStatus(e.status))), 40)]
      : []),
    e.httpStatus === undefined ? '-' : String(e.httpStatus),
    e.latencyMs === undefined ? '-' : String(e.latencyMs),
    clip(printable(e.ok ? summaryOfData(e) : (e.error ?? '')), 90),
  ]);
  const headers = [
    'at',
    'ok',
    ...(isFilter ? ['status'] : []),
    'http',
    'ms',
    isFilter ? 'detail' : 'figures / error',
  ];
  return entries.length === 0 ? 'no snapshots in that window' : renderTable(headers, rows);
}

function drawChart(entries: readonly HistoryEntry[], field: string, target: Target, io: CliIo): string {
  const meta = field === 'latencyMs' || field === 'httpStatus';
  const points = meta
    ? entries.flatMap((e) => {
        const v = e[field as 'latencyMs' | 'httpStatus'];
        return v === undefined ? [] : [{ t: Date.parse(e.at), v }];
      })
    : numericSeries(entries, field);
  if (points.length === 0) {
    const latest = [...entries].reverse().find((e) => e.data !== undefined);
    const fields = latest === undefined ? [] : extractFigures(latest.data, 12).map(([path]) => path);
    return `no numeric values at "${printable(field)}" in ${entries.length} snapshot(s)${
      fields.length === 0 ? '' : `; numeric fields of the latest body: ${fields.join(', ')}`
    }`;
  }
  const name = target.kind === 'filter' ? 'filter' : `network ${target.networkId}`;
  return renderLineChart(points, {
    width: Math.max(40, Math.min(160, io.stdout.columns ?? 100)),
    height: 12,
    title: `${name} ${field} (${points.length} points)`,
    colour: useColour(io.stdout, io.env),
  });
}

export const historyCommand = defineCommand({
  name: 'history',
  usage: [
    'history (--filter | --network ID) [--since 24h|7d|ISO] [--until ...] [--limit N] [--format table|json|csv]',
    'history (--filter | --network ID) --chart FIELD [--since ...] [--until ...] [--limit N]',
  ],
  description: 'Prints the stored snapshots of the filter status or of one network, oldest first.',
  options: {
    filter: { type: 'boolean', description: 'the filter-status snapshots' },
    network: { type: 'string', value: 'ID', description: 'the snapshots of network ID' },
    ...WINDOW_OPTIONS,
    limit: { ...WINDOW_OPTIONS.limit, description: 'only the most recent N (still printed oldest first)' },
    format: {
      type: 'string',
      value: 'FORMAT',
      choices: ['table', 'json', 'csv'],
      default: 'table',
      description: 'json is an array of {at, ok, status?, data?, error?, httpStatus?, latencyMs?}',
    },
    chart: {
      type: 'string',
      value: 'FIELD',
      description:
        'draw a terminal line chart of a numeric field over time instead: a dot path in the body, or latencyMs / httpStatus',
      examples: ['traffic.in.pps', 'latencyMs'],
    },
  },
  examples: [
    'history --filter --since 24h',
    'history --network edge-1 --limit 20 --format json',
    'history --network edge-1 --chart traffic.in.pps --since 2h',
  ],
  notes: 'Needs only the store settings (SHIELDWATCH_TABLE, AWS settings or the embedded store).',
  async run(values, io) {
    const isFilter = values.filter;
    const network = values.network;
    if (isFilter === (network !== undefined))
      throw new UsageError('give exactly one of --filter or --network ID');
    if (network !== undefined && network.trim() === '') throw new UsageError('--network needs a network id');
    const target: Target = isFilter ? { kind: 'filter' } : { kind: 'network', networkId: network!.trim() };
    const format = values.format;
    const query = timeWindow(values, io.now());
    const config = loadStoreConfig(io.env);
    const store = await openStore(io.env, config.table, { readOnly: true });
    try {
      const showProgress = io.stderr.isTTY === true;
      const snapshots = await storeCall(store, () =>
        new DynamoStore(store.client, config.table).querySnapshots(target, {
          ...query,
          ...(showProgress ? { onPage: (n: number) => io.stderr.write(`\rread ${n} snapshots...`) } : {}),
        }),
      );
      if (showProgress) io.stderr.write('\r\u001b[K');
      const entries = snapshots.map(toHistoryEntry);
      const chart = values.chart;
      println(
        io.stdout,
        chart === undefined ? render(entries, format, io, isFilter) : drawChart(entries, chart, target, io),
      );
      return 0;
    } finally {
      store.client.destroy();
    }
  },
});
