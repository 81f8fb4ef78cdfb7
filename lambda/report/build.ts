/**
 * Writes the report (docs/report.md): reads the store, prepares the data, renders the page, writes the
 * file. Shared by `shieldwatch report` and the demo's last step.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoStore } from '../adapters/dynamo-store.ts';
import { readIncidentListing } from '../adapters/incident-listing.ts';
import { DynamoSilenceStore } from '../adapters/silence-store.ts';
import { snapshotPages } from '../adapters/snapshot-pages.ts';
import type { IncidentView } from '../core/incidents/incident-list.ts';
import type { Rule } from '../core/rules/rule-types.ts';
import type { WindowRequest } from '../core/silences/maintenance-window.ts';
import type { Silence } from '../core/silences/silence-window.ts';
import type { Snapshot, Target } from '../core/types.ts';
import { NetworkChartReducer, planReport, prepareReport, type ReportData } from './data.ts';
import { type ReportAssets, renderReportHtml } from './html.ts';
import type { FigureUnit } from './units.ts';

const require = createRequire(import.meta.url);

/** Where the report goes without --out (in the working directory); the demo writes it there too. */
export const DEFAULT_REPORT_FILE = 'shieldwatch-report.html';

/** The chart library and the page's own CSS and script, read from the project (uPlot from node_modules). */
export function readReportAssets(): ReportAssets {
  const uplotDir = require.resolve('uplot/dist/uPlot.iife.min.js').replace(/uPlot\.iife\.min\.js$/, '');
  const versionOf = (file: string | URL) =>
    (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  const version = versionOf(new URL('../../package.json', import.meta.url));
  const uplotVersion = versionOf(require.resolve('uplot/package.json'));
  return {
    uplotJs: readFileSync(`${uplotDir}uPlot.iife.min.js`, 'utf8'),
    uplotCss: readFileSync(`${uplotDir}uPlot.min.css`, 'utf8'),
    pageJs: readFileSync(new URL('./page.js', import.meta.url), 'utf8'),
    pageCss: readFileSync(new URL('./page.css', import.meta.url), 'utf8'),
    versions: `shieldwatch ${version}, charts by uPlot ${uplotVersion} (MIT)`,
  };
}

/** What to report on and where it came from. */
export interface ReportRequest {
  /** The window, ISO-8601 (inclusive). */
  readonly since: string;
  readonly until: string;
  /** Networks to chart; networks named by rule alerts in the window are added unless `onlyNetworks`. */
  readonly networks: readonly string[];
  /** True when the networks were named (`--networks`): only they are read, none is added. */
  readonly onlyNetworks?: boolean;
  readonly table: string;
  /**
   * How the store was named to people (`embedded store (/home/...)`). Not shown in the page: it may be a local
   * path, and the page is meant to be mailed.
   */
  readonly store?: string;
  readonly figureFields?: readonly string[];
  readonly expected?: string;
  /** The `rules` setting: thresholds drawn besides those of the rules the events carry. */
  readonly rules?: readonly Rule[];
  /** The `figureUnits` setting. */
  readonly units?: ReadonlyMap<string, FigureUnit>;
  /** When the report is made, epoch ms. */
  readonly nowMs: number;
  /** The maintenance windows declared in configuration (the `maintenance` setting). @default [] */
  readonly maintenance?: readonly WindowRequest[];
  /**
   * The listing and the silences already read ({@link readPresentSources}), when one publish makes several
   * reports; read from the store otherwise.
   */
  readonly present?: PresentSources;
}

/** What the report's present reads besides the snapshots: the one listing of incidents, the silences. */
export interface PresentSources {
  /** Every incident the store knows from `since` on, and every open one (`readIncidentListing`). */
  readonly incidents: readonly IncidentView[];
  /** Every stored silence. */
  readonly silences: readonly Silence[];
}

/**
 * Reads the listing (events from `since` on, every open incident) and the silences (with the occurrences of the
 * maintenance windows, stored or declared in `maintenance`, as of `nowMs`): queries only.
 */
export async function readPresentSources(
  source: ReportSource,
  since: string,
  quiet: { readonly nowMs: number; readonly maintenance?: readonly WindowRequest[] },
): Promise<PresentSources> {
  const silenceStore = new DynamoSilenceStore(source.client, source.table, {
    now: () => quiet.nowMs,
    ...(quiet.maintenance === undefined ? {} : { windows: quiet.maintenance }),
  });
  const [incidents, silences] = await Promise.all([
    readIncidentListing(source.client, source.table, { since }),
    silenceStore.list(),
  ]);
  return { incidents, silences };
}

/** Where the report reads from: the store's client and table. */
export interface ReportSource {
  readonly client: DynamoDBClient;
  readonly table: string;
}

/** What the status band and the uptime read of a filter snapshot: not its body. */
const FILTER_ATTRIBUTES = ['at', 'cycleId', 'ok', 'status', 'httpStatus', 'error', 'errorKind'] as const;
/** What a chart reads of a network snapshot: its time, whether it was read, its body. */
const NETWORK_ATTRIBUTES = ['at', 'cycleId', 'ok', 'body'] as const;
/** Networks read at the same time: each holds one page (at most 1 MB) while it is reduced. */
const NETWORKS_AT_ONCE = 4;

/**
 * Reads what the report shows from the store (reads only) and prepares it. Network snapshots are read a page
 * at a time and reduced into their charts as they come (docs/report.md, large histories), so memory is
 * bounded by the page size and the chart resolution, not by the history; filter snapshots are read without
 * their bodies; events whole (they are few, and the table shows them).
 */
export async function collectReport(source: ReportSource, request: ReportRequest): Promise<ReportData> {
  const { client, table } = source;
  const window = { since: request.since, until: request.until };
  const pages = (target: Target, attributes: readonly string[]) =>
    snapshotPages(client, table, target, { ...window, attributes });
  const readFilter = async (): Promise<Snapshot[]> => {
    const filter: Snapshot[] = [];
    for await (const page of pages({ kind: 'filter' }, FILTER_ATTRIBUTES)) filter.push(...page);
    return filter;
  };
  const [filter, events, present] = await Promise.all([
    readFilter(),
    new DynamoStore(client, table).queryEvents(window),
    request.present ??
      readPresentSources(source, request.since, {
        nowMs: request.nowMs,
        ...(request.maintenance === undefined ? {} : { maintenance: request.maintenance }),
      }),
  ]);
  // The events decide which figures the rules read; the listing which incidents show and whose peaks to watch.
  const plan = planReport(events, { ...request, incidents: present.incidents });
  const named =
    request.onlyNetworks === true
      ? []
      : [
          ...events.flatMap((event) => {
            const network = (event as unknown as Record<string, unknown>)['network'];
            return typeof network === 'string' && network !== '' ? [network] : [];
          }),
          // An incident open since before the window has networks no event of the window names.
          ...plan.incidents
            .flatMap((incident) => (incident.kind === 'rule' ? incident.networks : []))
            .map((n) => n.network),
        ];
  const ids = [...new Set([...request.networks, ...named])];
  const endMs = Date.parse(request.until);
  const reducers = ids.map(
    (id) => new NetworkChartReducer(id, plan.fieldsFor(id), { endMs }, plan.watchesFor(id)),
  );
  let next = 0;
  const worker = async () => {
    while (next < reducers.length) {
      const reducer = reducers[next++]!;
      for await (const page of pages({ kind: 'network', networkId: reducer.id }, NETWORK_ATTRIBUTES)) {
        for (const snapshot of page) reducer.add(snapshot);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(NETWORKS_AT_ONCE, reducers.length) }, worker));
  return prepareReport({
    generatedAt: new Date(request.nowMs).toISOString(),
    table: request.table,
    since: request.since,
    until: request.until,
    filter,
    events,
    incidents: present.incidents,
    silences: present.silences,
    networks: reducers,
    ...(request.figureFields === undefined ? {} : { figureFields: request.figureFields }),
    ...(request.expected === undefined ? {} : { expected: request.expected }),
    ...(request.rules === undefined ? {} : { rules: request.rules }),
    ...(request.units === undefined ? {} : { units: request.units }),
  });
}

/**
 * Renders the report and writes it to `path`; resolves with its size in bytes. The page goes to a new
 * temporary file in the same directory (created exclusively: never an existing file or link) that is then
 * renamed onto `path`, so a symbolic link at `path` is replaced, never written through, and a reader never
 * sees half a file.
 */
export async function writeReport(path: string, data: ReportData, assets: ReportAssets): Promise<number> {
  const html = renderReportHtml(data, assets);
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, html, { encoding: 'utf8', flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'its directory does not exist'
        : code === 'EISDIR'
          ? 'that is a directory (give a file name)'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new Error(`cannot write the report to ${path}: ${why}`);
  }
  return Buffer.byteLength(html);
}

/** Reads the store, writes the report to `path`; what it showed and the file's size. */
export async function buildReportFile(
  store: ReportSource,
  request: ReportRequest,
  path: string,
): Promise<{ data: ReportData; bytes: number }> {
  const assets = readReportAssets();
  const data = await collectReport(store, request);
  return { data, bytes: await writeReport(path, data, assets) };
}
