/**
 * Writes the report (README, The report): reads the store, prepares the data, renders the page, writes the
 * file. Shared by `shieldwatch report` and the demo's last step.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { SnapshotStore } from '../../lambda/ports.ts';
import { prepareReport, type ReportData } from './data.ts';
import { type ReportAssets, renderReportHtml } from './html.ts';

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
  /** Networks to chart; networks named by rule alerts in the window are added. */
  readonly networks: readonly string[];
  readonly table: string;
  /** How to name the store to people (`embedded (.shieldwatch/)`, `DynamoDB in eu-west-1`). */
  readonly store: string;
  readonly figureFields?: readonly string[];
  readonly expected?: string;
  /** When the report is made, epoch ms. */
  readonly nowMs: number;
}

/** Reads what the report shows from the store (reads only) and prepares it. */
export async function collectReport(store: SnapshotStore, request: ReportRequest): Promise<ReportData> {
  const window = { since: request.since, until: request.until };
  const [filter, events] = await Promise.all([
    store.querySnapshots({ kind: 'filter' }, window),
    store.queryEvents(window),
  ]);
  const named = events.flatMap((event) => {
    const network = (event as unknown as Record<string, unknown>)['network'];
    return typeof network === 'string' && network !== '' ? [network] : [];
  });
  const ids = [...new Set([...request.networks, ...named])];
  const networks = await Promise.all(
    ids.map(async (id) => ({
      id,
      snapshots: await store.querySnapshots({ kind: 'network', networkId: id }, window),
    })),
  );
  return prepareReport({
    generatedAt: new Date(request.nowMs).toISOString(),
    table: request.table,
    store: request.store,
    since: request.since,
    until: request.until,
    filter,
    events,
    networks,
    ...(request.figureFields === undefined ? {} : { figureFields: request.figureFields }),
    ...(request.expected === undefined ? {} : { expected: request.expected }),
  });
}

/** Renders the report and writes it to `path`; resolves with its size in bytes. */
export async function writeReport(path: string, data: ReportData, assets: ReportAssets): Promise<number> {
  const html = renderReportHtml(data, assets);
  try {
    await writeFile(path, html, 'utf8');
  } catch (error) {
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
  store: SnapshotStore,
  request: ReportRequest,
  path: string,
): Promise<{ data: ReportData; bytes: number }> {
  const assets = readReportAssets();
  const data = await collectReport(store, request);
  return { data, bytes: await writeReport(path, data, assets) };
}
