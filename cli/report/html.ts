/**
 * The report page (README, The report): one HTML file, its CSS, script, chart library and data inline, and a
 * Content-Security-Policy that forbids every request, so it opens offline, from a mail or a ticket alike.
 * Everything but the charts is rendered here, so the page reads without its script too. Pure.
 */
import { formatDuration } from '../../lambda/core/alert-text.ts';
import { displayStatus } from '../../lambda/core/status.ts';
import { UNREADABLE_STATUS } from '../../lambda/core/uptime.ts';
import { formatShare, type ReportData, type StatusInterval, uptimeRows } from './data.ts';

/** The page's inline parts: the chart library and the page's own CSS and script. */
export interface ReportAssets {
  readonly uplotJs: string;
  readonly uplotCss: string;
  readonly pageJs: string;
  readonly pageCss: string;
  /** e.g. `shieldwatch 0.4.0`, `uPlot 1.6.32`: named in the footer. */
  readonly versions: string;
}

/** No request of any kind: scripts and styles only inline, images only as data: URLs. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
  "base-uri 'none'; form-action 'none'";

/** Status colours in the page's CSS: s0..s(n-1), then the palette repeats. */
const STATUS_COLOURS = 8;

/** Controls but tab and line feed, invisible format characters (bidi overrides and isolates), separators. */
const HIDDEN_IN_PAGE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\p{Cf}\u2028\u2029]/gu;

/**
 * Escapes text for HTML content and attribute values; a control or invisible format character (a
 * bidirectional override or isolate such as U+202E, U+2066, which would reorder the text after it) is shown
 * as `<U+202E>`, as the CLI and the alert texts show it.
 */
export function escapeHtml(text: string): string {
  return text
    .replace(
      HIDDEN_IN_PAGE,
      (c) => `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`,
    )
    .replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that cannot end its `<script>` element early (nor open a comment) wherever it sits. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** An ISO-like UTC time to the second: `2024-06-01 12:00:00`. */
export function utc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** Inline text that must not break the page's layout (a very long status or id): shown cut, kept in full in a title. */
function shown(text: string, max = 60): string {
  const chars = [...text];
  return chars.length <= max ? escapeHtml(text) : `${escapeHtml(chars.slice(0, max - 1).join(''))}…`;
}

/** The class of a status's colour. */
function statusClass(data: ReportData, status: string | null): string {
  if (status === null) return 'gap';
  if (status === UNREADABLE_STATUS) return 'unreadable';
  const index = data.statuses.indexOf(status);
  if (data.expected !== undefined && status === data.expected) return 'expected';
  return `s${(index < 0 ? data.statuses.length : index) % STATUS_COLOURS}`;
}

function statusName(status: string | null): string {
  if (status === null) return 'not monitored';
  return status === UNREADABLE_STATUS ? status : displayStatus(status);
}

/** The whole page. */
export function renderReportHtml(data: ReportData, assets: ReportAssets): string {
  const span = Math.max(1, data.toMs - data.fromMs);
  const pct = (ms: number) => `${(((ms - data.fromMs) / span) * 100).toFixed(3)}%`;
  const clientData = {
    from: data.fromMs,
    to: data.toMs,
    changes: data.changes,
    networks: data.networks.map((n) => ({
      id: n.id,
      fields: n.fields,
      axes: n.axes,
      x: n.rows.x,
      ys: n.rows.ys,
      marks: n.marks,
    })),
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>shieldwatch report ${escapeHtml(utc(data.fromMs))} to ${escapeHtml(utc(data.toMs))} UTC</title>
<style>${assets.uplotCss}</style>
<style>${assets.pageCss}</style>
</head>
<body>
<header>
<h1>shieldwatch report</h1>
<p class="meta">From <time datetime="${new Date(data.fromMs).toISOString()}">${utc(data.fromMs)}</time> to <time datetime="${new Date(data.toMs).toISOString()}">${utc(data.toMs)}</time> UTC (${escapeHtml(formatDuration(data.toMs - data.fromMs))}${data.fromMs > Date.parse(data.since) ? `; asked from ${escapeHtml(utc(Date.parse(data.since)))}, the first data is later` : ''}). All times are UTC.</p>
<p class="meta">Made <time datetime="${escapeHtml(data.generatedAt)}">${escapeHtml(utc(Date.parse(data.generatedAt)))}</time> UTC from table <code>${escapeHtml(data.table)}</code> in the ${escapeHtml(data.store.replace(`, table ${data.table}`, ''))}.</p>
</header>
<main>
${statusSection(data, pct)}
${uptimeSection(data)}
${networksSection(data)}
${eventsSection(data)}
</main>
<footer><p>Made by ${escapeHtml(assets.versions)}. This file makes no request anywhere: it works offline and can be mailed or attached as it is.</p></footer>
<script type="application/json" id="report-data">${scriptJson(clientData)}</script>
<script>${assets.uplotJs}</script>
<script>${assets.pageJs}</script>
</body>
</html>
`;
}

function statusSection(data: ReportData, pct: (ms: number) => string): string {
  if (data.band.length === 0 || data.uptime === null) {
    return `<section id="status"><h2>Filter status</h2><p class="empty">No filter snapshots in this window.</p></section>`;
  }
  const segment = (interval: StatusInterval) => {
    const name = statusName(interval.status);
    const when = `${utc(interval.from)} to ${utc(interval.to)} (${formatDuration(interval.to - interval.from)})`;
    return `<li class="seg ${statusClass(data, interval.status)}" style="left:${pct(interval.from)};width:${pct(data.fromMs + interval.to - interval.from)}" title="${escapeHtml(`${name}: ${when}`)}" data-status="${escapeHtml(interval.status ?? '')}"><span class="label">${shown(name, 40)}</span><span class="sr"> ${escapeHtml(when)}</span></li>`;
  };
  const changes = data.changes
    .filter((c) => c.at >= data.fromMs && c.at <= data.toMs)
    .map(
      (c) =>
        `<span class="change-mark" style="left:${pct(c.at)}" title="${escapeHtml(`${utc(c.at)} changed ${c.label}`)}" aria-hidden="true"></span>`,
    )
    .join('');
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const at = data.fromMs + f * (data.toMs - data.fromMs);
      // Under 10 s (a quick demo), the ticks need milliseconds to differ.
      const text =
        data.toMs - data.fromMs < 10_000 ? `${utc(at)}.${new Date(at).toISOString().slice(20, 23)}` : utc(at);
      return `<span class="tick t${f * 100}" style="left:${(f * 100).toFixed(1)}%">${text.slice(f === 0 || f === 1 ? 0 : 5)}</span>`;
    })
    .join('');
  const seen = [...new Set(data.band.map((i) => i.status))];
  const legend = seen
    .map(
      (status) =>
        `<li><span class="swatch ${statusClass(data, status)}" aria-hidden="true"></span>${shown(statusName(status), 80)}${status !== null && status === data.expected ? ' (expected)' : ''}</li>`,
    )
    .join('');
  const last = [...data.band].reverse().find((i) => i.status !== null);
  return `<section id="status">
<h2>Filter status over time</h2>
${last === undefined ? '' : `<p>Last seen: <strong class="status-now">${shown(statusName(last.status), 80)}</strong>, since ${utc(last.from)} UTC.</p>`}
<div class="band-wrap">
<div class="changes">${changes}</div>
<ol class="band" aria-label="Filter status over time, oldest first">${data.band.map(segment).join('')}</ol>
<div class="axis" aria-hidden="true">${ticks}</div>
</div>
<ul class="legend" aria-label="Statuses">${legend}</ul>
<p class="note">Each snapshot's status holds until the next one. ${data.changes.length === 0 ? 'No confirmed status change in this window.' : `Marks above the band: the ${data.changes.length} confirmed status change(s), listed in the events below.`}</p>
</section>`;
}

function uptimeSection(data: ReportData): string {
  const uptime = data.uptime;
  if (uptime === null)
    return '<section id="uptime"><h2>Uptime</h2><p class="empty">No filter snapshots in this window.</p></section>';
  const rows = uptimeRows(uptime)
    .map(
      (row, i) =>
        `<tr><td><span class="swatch ${statusClass(data, uptime.statuses[i]!.status)}" aria-hidden="true"></span>${shown(row.status, 80)}</td><td class="num">${row.share}</td><td class="num">${escapeHtml(row.time)}</td></tr>`,
    )
    .join('');
  const a = uptime.availability;
  const gapMs = uptime.gaps.reduce((ms, gap) => ms + gap.ms, 0);
  const kinds = Object.entries(a.byKind)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  return `<section id="uptime">
<h2>Uptime</h2>
<p>The same figures as <code>shieldwatch uptime</code> for this window: ${escapeHtml(formatDuration(uptime.monitoredMs))} monitored${uptime.gaps.length === 0 ? '' : `, ${escapeHtml(formatDuration(gapMs))} not monitored in ${uptime.gaps.length} gap(s)`}.</p>
<table class="uptime"><caption>Filter status, share of monitored time</caption>
<thead><tr><th scope="col">status</th><th scope="col">share</th><th scope="col">time</th></tr></thead>
<tbody>${rows}</tbody></table>
<p class="availability">API availability <strong>${formatShare(a.share)}</strong> of monitored time (${a.cycles} cycles, ${a.failedCycles} failed${kinds === '' ? '' : `: ${escapeHtml(kinds)}`}${a.cutShort === 0 ? '' : `; ${a.cutShort} cut short by the operator, not counted`}).</p>
</section>`;
}

function networksSection(data: ReportData): string {
  if (data.networks.length === 0) {
    return '<section id="networks"><h2>Networks</h2><p class="empty">No network to show: set SHIELDWATCH_NETWORKS or give <code>--networks A,B</code>.</p></section>';
  }
  const charts = data.networks.map((n, i) => {
    const meta = `${n.snapshots} snapshot(s)${n.failed === 0 ? '' : `, ${n.failed} failed`}; ${
      n.rows.x.length === 0
        ? 'no figures to draw'
        : n.downsampled
          ? `drawn as ${n.rows.x.filter((_, r) => n.rows.ys.some((y) => y[r] !== null)).length} points: the smallest and largest value of each figure per time slice, so spikes stay visible`
          : 'every snapshot drawn'
    }.`;
    const marks =
      n.marks.length === 0
        ? ''
        : `<ul class="marks" aria-label="Rule alerts on network ${escapeHtml(n.id)}">${n.marks
            .map(
              (m) =>
                `<li class="${m.event === 'network.rule_resolved' ? 'resolved' : 'triggered'}"><time>${utc(m.at)}</time> ${shown(m.label, 120)}</li>`,
            )
            .join('')}</ul>`;
    return `<figure class="network" id="network-${i}">
<figcaption><h3>network <span class="id">${shown(n.id, 80)}</span></h3>${n.fields.length === 0 ? '' : `<span class="fields">${n.fields.map((f) => `<code>${shown(f, 60)}</code>`).join(' ')}</span>`}</figcaption>
<div class="chart" id="chart-${i}" role="img" aria-label="${escapeHtml(`figures of network ${n.id} over time`)}">${n.rows.x.length === 0 ? '<p class="empty">No figures in this window.</p>' : ''}</div>
<p class="meta">${escapeHtml(meta)}</p>
${marks}
</figure>`;
  });
  return `<section id="networks">
<h2>Networks</h2>
<p class="note">One chart per network of its numeric figures; much smaller figures use the right axis. Click a name in a chart's legend to hide or show it, drag across a chart to zoom in, double-click to zoom out. Vertical lines: rule alerts (solid) and status changes (dotted).</p>
${charts.join('\n')}
</section>`;
}

function eventsSection(data: ReportData): string {
  if (data.events.length === 0) {
    return '<section id="events"><h2>Events</h2><p class="empty">No events in this window.</p></section>';
  }
  const rows = data.events
    .map(
      (e) =>
        `<tr class="${e.family}${e.suppressed === undefined ? '' : ' suppressed'}"><td><time datetime="${escapeHtml(e.at)}">${escapeHtml(Number.isFinite(Date.parse(e.at)) ? utc(Date.parse(e.at)) : e.at)}</time></td><td><code>${escapeHtml(e.event)}</code>${e.suppressed === undefined ? '' : ` <span class="tag">suppressed: ${shown(e.suppressed, 40)}</span>`}</td><td class="what">${shown(e.summary, 300)}</td></tr>`,
    )
    .join('\n');
  return `<section id="events">
<h2>Events</h2>
<p class="note">${data.eventCount} event(s) in this window, oldest first${data.eventCount > data.events.length ? `; the newest ${data.events.length} are listed (<code>shieldwatch events --all</code> lists them all)` : ''}.</p>
<div class="table-wrap"><table class="events">
<thead><tr><th scope="col">time (UTC)</th><th scope="col">event</th><th scope="col">what</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>
</section>`;
}
