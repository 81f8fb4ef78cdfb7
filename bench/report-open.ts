/**
 * `npx tsx bench/report-open.ts`: what a large report costs (docs/report.md).
 *
 * A week of one-minute snapshots of 20 networks (about 200,000 points, test/fixtures/report-history.ts) is
 * prepared and rendered by the same code as `shieldwatch report` (the store left out: its reading time is the
 * store's, not the page's), then opened 5 times in Debian's chromium, offline. Prints the preparation and render
 * times, the file's size and uPlot's share of it, and the open time: from the start of navigation to the
 * charts painted, as the page records it, and the wall time of `goto` until then.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { readReportAssets } from '../lambda/report/build.ts';
import { prepareReport } from '../lambda/report/data.ts';
import { renderReportHtml } from '../lambda/report/html.ts';
import { longHistory } from '../test/fixtures/report-history.ts';

const RUNS = 5;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const history = longHistory({ days: 7, networks: 20 });
const points = history.networks.reduce((n, network) => n + network.snapshots.length, 0);
const assets = readReportAssets();
let started = performance.now();
const data = prepareReport({
  generatedAt: new Date(history.untilMs).toISOString(),
  table: 'shieldwatch',
  since: new Date(history.sinceMs).toISOString(),
  until: new Date(history.untilMs).toISOString(),
  filter: history.filter,
  events: history.events,
  networks: history.networks,
});
const prepareMs = performance.now() - started;
started = performance.now();
const html = renderReportHtml(data, assets);
const renderMs = performance.now() - started;

const dir = mkdtempSync(join(tmpdir(), 'shieldwatch-report-bench-'));
const file = join(dir, 'week.html');
writeFileSync(file, html);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const drawn: number[] = [];
const wall: number[] = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
    const page = await context.newPage();
    const begun = performance.now();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-drawn-ms]');
    wall.push(performance.now() - begun);
    drawn.push(Number(await page.getAttribute('body', 'data-drawn-ms')));
    await context.close();
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}

const kb = (text: string) => `${Math.round(Buffer.byteLength(text) / 1024)} KB`;
console.log(
  [
    `history          ${points} network snapshots (${history.networks.length} networks, 7 days, one a minute)`,
    `prepare          ${Math.round(prepareMs)} ms (parse the bodies, downsample: min/max per bucket)`,
    `render           ${Math.round(renderMs)} ms`,
    `file             ${kb(html)}; uPlot ${kb(assets.uplotJs)} + CSS ${kb(assets.uplotCss)}; page script ${kb(assets.pageJs)}, CSS ${kb(assets.pageCss)}`,
    `points drawn     ${data.networks.reduce((n, network) => n + network.rows.x.length, 0)} rows in ${data.networks.length} charts`,
    `open (painted)   median ${median(drawn)} ms from navigation start (runs: ${drawn.join(', ')})`,
    `open (wall)      median ${Math.round(median(wall))} ms from goto (runs: ${wall.map(Math.round).join(', ')})`,
  ].join('\n'),
);
