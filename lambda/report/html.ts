/**
 * The report page (docs/report.md): one HTML file, its CSS, script, chart library and data inline, and a
 * Content-Security-Policy that forbids every request, so it opens offline, from a mail or a ticket alike.
 * Everything but the charts is rendered here, so the page reads without its script too. Pure.
 */
import { formatDuration } from '../core/alerts/alert-text.ts';
import { displayStatus } from '../core/detect/status.ts';
import type { Spread } from '../core/incidents/response-times.ts';
import { UNREADABLE_STATUS } from '../core/uptime.ts';
import { SETTINGS } from '../settings.ts';
import type { ChartPanel } from './charts.ts';
import {
  formatShare,
  type PresentSilence,
  type ReportData,
  type StatusInterval,
  uptimeRows,
} from './data.ts';
import type { ReportIncident } from './incidents.ts';
import { statusColour } from './status-colours.ts';
import { withUnit } from './units.ts';

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

/**
 * A `<time>` element for `ms`: the date and the time of day each kept whole (a narrow column breaks the line
 * between them, never inside a date); the date left out when `day` is the same day.
 */
export function timeHtml(ms: number, sameDayAs?: number): string {
  if (!Number.isFinite(ms)) return '';
  const [date, time] = utc(ms).split(' ') as [string, string];
  const showDate = sameDayAs === undefined || utc(sameDayAs).slice(0, 10) !== date;
  return `<time datetime="${new Date(ms).toISOString()}">${showDate ? `<span class="nw">${date}</span> ` : ''}<span class="nw">${time}</span></time>`;
}

/**
 * Escaped text in which long names may wrap only after a `/` or `=` (never inside a word, a dotted name or a
 * hyphenated one such as a date):
 * an incident id such as `flood/edge-1/2026-11-23T03:57:51Z` fits a phone's width without being cut anywhere.
 */
export function wrappable(text: string, max = 300): string {
  // A browser may break after any hyphen (inside `edge-1` or a date): pieces with one are kept whole.
  return shown(text, max).replace(/[^\s/=]*[/=]?/g, (piece) => {
    const kept = piece.includes('-') ? `<span class="nw">${piece}</span>` : piece;
    return /[/=]$/.test(piece) ? `${kept}<wbr>` : kept;
  });
}

/** Inline text that must not break the page's layout (a very long status or id): shown cut, kept in full in a title. */
function shown(text: string, max = 60): string {
  const chars = [...text];
  return chars.length <= max ? escapeHtml(text) : `${escapeHtml(chars.slice(0, max - 1).join(''))}…`;
}

/**
 * The classes of a status's colour: its own hue, the same in every report (status-colours.ts); green for the
 * expected status and a red mark for any other only when an expected status is set.
 */
function statusClass(data: ReportData, status: string | null): string {
  if (status === null) return 'gap';
  if (status === UNREADABLE_STATUS) return 'unreadable';
  if (data.expected === undefined) return `s${statusColour(status)}`;
  return status === data.expected ? 'expected' : `s${statusColour(status)} status-away`;
}

function statusName(status: string | null): string {
  if (status === null) return 'not monitored';
  return status === UNREADABLE_STATUS ? status : displayStatus(status);
}

/** How each kind of incident is named. */
const INCIDENT_KINDS: Readonly<Record<ReportIncident['kind'], string>> = {
  status: 'filter status away',
  api: 'protection API',
  network: 'network unreachable',
  rule_unreadable: 'rule reads nothing',
  rule: 'traffic rule',
};

/**
 * An incident's per-network peaks as cells' lines: `edge-1` and `1.18M pps at 03:57:55` (with its date when
 * not the day of `dayMs`: an incident open since before the window).
 */
function peakText(incident: ReportIncident, n: ReportIncident['networks'][number], dayMs: number): string {
  if (n.peak === null) return '-';
  const value = typeof n.peak === 'number' ? withUnit(n.peak, incident.unit ?? '') : String(n.peak);
  if (n.peakAt === null) return value;
  const at = utc(Date.parse(n.peakAt));
  return `${value} at ${at.slice(0, 10) === utc(dayMs).slice(0, 10) ? at.slice(11) : at}`;
}

/**
 * The attack's story on one network (CONTRACT §15): its peak and when, the peak as a multiple of the rule's
 * threshold, and where it began (its value when it joined): `1.5M pps at 10:05 (3.0x the threshold), first 700k pps`.
 */
function storyText(incident: ReportIncident, n: ReportIncident['networks'][number], dayMs: number): string {
  const peak = peakText(incident, n, dayMs);
  if (n.peak === null) return peak;
  const multiple =
    typeof n.peak === 'number' && incident.threshold !== undefined && incident.threshold > 0
      ? ` (${(n.peak / incident.threshold).toFixed(1)}x the threshold)`
      : '';
  const first =
    n.first === undefined
      ? ''
      : `, first ${typeof n.first === 'number' ? withUnit(n.first, incident.unit ?? '') : String(n.first)}`;
  return `${peak}${multiple}${first}`;
}

/** How a rule's incident spread: `first edge-1 at 10:00, last to join edge-9 at 10:07`, or nothing. */
function spreadHtml(incident: ReportIncident, toMs: number): string {
  const spread = incident.spread;
  if (spread === undefined) return '';
  const first = `first ${wrappable(spread.first.network, 80)} at ${timeHtml(Date.parse(spread.first.at), toMs)}`;
  const last =
    // Every network joined at the opening: no last to join.
    spread.last.network === spread.first.network || spread.last.at === spread.first.at
      ? ''
      : `, last to join ${wrappable(spread.last.network, 80)} at ${timeHtml(Date.parse(spread.last.at), toMs)}`;
  return `<div class="spread">spread: ${first}${last}</div>`;
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
      units: n.units,
      panels: n.panels,
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
<p class="meta">${timeHtml(data.fromMs)} to ${timeHtml(data.toMs, data.fromMs)} UTC (${escapeHtml(formatDuration(data.toMs - data.fromMs))}${data.fromMs > Date.parse(data.since) ? `; asked from ${escapeHtml(utc(Date.parse(data.since)))}, the first data is later` : ''}). Made ${timeHtml(Date.parse(data.generatedAt), data.toMs)} UTC from table <code>${escapeHtml(data.table)}</code>. All times are UTC.</p>
</header>
<main>
${presentSection(data)}
${incidentsSection(data)}
${responseSection(data)}
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

/** What an incident is, in a few words: `rule flood`, `status away: "mitigating"`, `network unreachable: a1, a2`. */
function incidentTitle(incident: ReportIncident): string {
  if (incident.kind === 'rule') return `rule <strong>${shown(incident.rule ?? '?', 40)}</strong>`;
  const detail =
    incident.detail === undefined || incident.kind === 'status' ? '' : `: ${wrappable(incident.detail, 120)}`;
  return `<strong>${wrappable(incident.about, 80)}</strong>${detail}`;
}

/** Who acknowledged an incident, when, and the note (CONTRACT §14), or nothing. */
function acknowledgement(incident: ReportIncident, toMs: number): string {
  const ack = incident.acknowledged;
  if (ack === undefined) return '';
  const note =
    ack.note === undefined || ack.note === '' ? '' : `: <q class="note">${wrappable(ack.note, 200)}</q>`;
  return `<div class="ack">acknowledged by <strong class="by">${wrappable(ack.by, 80)}</strong> at ${timeHtml(Date.parse(ack.at), toMs)}${note}</div>`;
}

/** Its state as a badge: open, acknowledged, resolved. */
function stateBadge(incident: ReportIncident): string {
  return incident.state === 'acknowledged'
    ? `<span class="badge lv-warning">acknowledged</span>`
    : `<span class="badge lv-${incident.level}">${incident.state}</span>`;
}

/** How many networks past those named: `and 9,980 more (shieldwatch incidents show ID lists them all)`. */
function moreNetworks(incident: ReportIncident): string {
  const more = incident.networkCount - incident.networks.length;
  return more <= 0
    ? ''
    : `<span class="more">and ${more} more (<code>shieldwatch incidents show ${shown(incident.id, 80)}</code> lists them all)</span>`;
}

/** The silences in the present: what they hold back and until when, then the next one (CONTRACT §15). */
function silencesHtml(silences: readonly PresentSilence[], toMs: number): string {
  if (silences.length === 0) return '';
  const line = (s: PresentSilence) => {
    const what = s.pattern === '*' ? 'every alert' : `alerts matching <code>${shown(s.pattern, 60)}</code>`;
    const reason = s.reason === null ? '' : ` Reason: <q>${wrappable(s.reason, 200)}</q>.`;
    return s.active
      ? `<li class="silence active"><span class="badge lv-warning">silenced</span> ${what} recorded, not sent, until ${timeHtml(Date.parse(s.endsAt), toMs)} UTC (silence <code>${shown(s.id, 40)}</code>).${reason}</li>`
      : `<li class="silence next"><span class="badge lv-info">next silence</span> ${what} from ${timeHtml(Date.parse(s.startsAt), toMs)} to ${timeHtml(Date.parse(s.endsAt), Date.parse(s.startsAt))} UTC (silence <code>${shown(s.id, 40)}</code>).${reason}</li>`;
  };
  return `<ul class="silences" id="silences">${silences.map(line).join('')}</ul>`;
}

/** The first lines: the filter status now, the open incidents with their networks and peaks, or all clear. */
function presentSection(data: ReportData): string {
  const now = data.present;
  const status =
    now.status === null
      ? '<p class="status-line">No filter status read in this window.</p>'
      : `<p class="status-line">Filter status <strong class="status-now ${statusClass(data, now.status)}">${shown(statusName(now.status), 80)}</strong>${now.statusSince === null ? '' : ` since ${timeHtml(now.statusSince, data.toMs)}`}${data.expected === undefined ? '' : now.away ? `, away from the expected <strong>${shown(data.expected, 40)}</strong>` : ' (expected)'}.</p>`;
  const networks = (incident: ReportIncident) =>
    incident.networks.length === 0
      ? ''
      : `<ul class="nets">${incident.networks
          .map(
            (n) =>
              `<li><span class="net">${wrappable(n.network, 80)}</span>${incident.kind === 'rule' ? ` <span class="peak">peak ${escapeHtml(peakText(incident, n, data.toMs))}</span>` : ''}${n.resolvedAt === null || incident.state === 'resolved' ? '' : ' <span class="tag">left</span>'}</li>`,
          )
          .join(
            '',
          )}${incident.networkCount > incident.networks.length ? `<li>${moreNetworks(incident)}</li>` : ''}</ul>`;
  let body: string;
  if (now.open.length > 0) {
    body = `<ul class="open">${now.open
      .map(
        (incident) =>
          `<li class="lv-${incident.level}" data-id="${escapeHtml(incident.id)}">${stateBadge(incident)} ${incidentTitle(incident)} since ${timeHtml(Date.parse(incident.openedAt), data.toMs)} (${escapeHtml(formatDuration(data.toMs - Date.parse(incident.openedAt)))})${acknowledgement(incident, data.toMs)}${networks(incident)}</li>`,
      )
      .join('')}</ul>`;
  } else {
    const last = data.incidents[0];
    body =
      now.allClearSince === null
        ? `<p class="all-clear"><span class="badge lv-resolved">all clear</span> No incident in this window.</p>`
        : `<p class="all-clear"><span class="badge lv-resolved">all clear</span> since ${timeHtml(now.allClearSince, data.toMs)} UTC${last === undefined ? '' : `: the last incident, ${incidentTitle(last)}, lasted ${escapeHtml(formatDuration(Date.parse(last.resolvedAt ?? last.openedAt) - Date.parse(last.openedAt)))}`}.</p>${last === undefined ? '' : networks(last)}`;
  }
  return `<section id="now" class="${now.open.length > 0 ? 'open' : 'clear'}${now.silences.some((s) => s.active) ? ' silenced' : ''}">
<h2>Now <span class="meta">at ${timeHtml(data.toMs)} UTC</span></h2>
${status}
${body}
${silencesHtml(now.silences, data.toMs)}
</section>`;
}

/** How fast the team answered the window's incidents (CONTRACT §15; `shieldwatch incidents --stats`). */
function responseSection(data: ReportData): string {
  const r = data.response;
  if (r === undefined || r.count === 0) return '';
  const d = (ms: number | null) => (ms === null ? '-' : escapeHtml(formatDuration(ms)));
  const row = (what: string, s: Spread) =>
    `<tr><th scope="row">${what}</th><td class="num">${s.count}</td><td class="num">${d(s.medianMs)}</td><td class="num">${d(s.p90Ms)}</td><td class="num">${d(s.worstMs)}</td></tr>`;
  const kinds = r.byKind
    .map((k) => `${escapeHtml(INCIDENT_KINDS[k.kind] ?? k.kind)} ${k.count} (${k.open} open)`)
    .join(', ');
  return `<section id="response">
<h2>How fast the team answers</h2>
<p class="note">${r.count} incident(s) of this window: ${kinds}. ${r.notAcknowledged.resolved + r.notAcknowledged.open} never acknowledged (${r.notAcknowledged.open} of them open). Percentiles by nearest rank; open incidents count in the time to acknowledge once acknowledged, not in the time to resolve. The same figures: <code>shieldwatch incidents --stats</code>.</p>
<div class="table-wrap"><table class="response">
<thead><tr><th scope="col"></th><th scope="col">incidents</th><th scope="col">median</th><th scope="col">90th percentile</th><th scope="col">worst</th></tr></thead>
<tbody>
${row('time to acknowledge', r.timeToAcknowledge)}
${row('time to resolve (duration)', r.timeToResolve)}
</tbody></table></div>
</section>`;
}

/** The window's incidents: kind, rule, start, end, duration, networks and their peaks. */
function incidentsSection(data: ReportData): string {
  if (data.incidents.length === 0) {
    return '<section id="incidents"><h2>Incidents</h2><p class="empty">No incident in this window.</p></section>';
  }
  const rows = data.incidents
    .map((incident) => {
      const opened = Date.parse(incident.openedAt);
      const resolved = incident.resolvedAt === null ? null : Date.parse(incident.resolvedAt);
      const lines = (f: (n: ReportIncident['networks'][number]) => string) =>
        incident.networks.length === 0 ? '-' : incident.networks.map((n) => `<div>${f(n)}</div>`).join('');
      // Not about networks: the cells say '-' on a wide screen and are left out on a phone.
      const none = incident.networks.length === 0 ? ' class="none"' : '';
      return `<tr class="lv-${incident.state === 'resolved' ? 'resolved' : incident.level}" data-id="${escapeHtml(incident.id)}">
<td data-label="kind"><span class="badge lv-${incident.level}">${INCIDENT_KINDS[incident.kind]}</span>${incident.state === 'resolved' ? '' : ` <span class="tag">${incident.state}</span>`}${acknowledgement(incident, data.toMs)}</td>
<td data-label="rule">${incident.kind === 'rule' && incident.rule !== null ? `<code>${shown(incident.rule, 40)}</code>` : incidentTitle(incident)}${spreadHtml(incident, data.toMs)}</td>
<td data-label="start">${timeHtml(opened, data.toMs)}</td>
<td data-label="end">${resolved === null ? '<em>open</em>' : timeHtml(resolved, opened)}</td>
<td data-label="duration" class="num">${escapeHtml(formatDuration((resolved ?? data.toMs) - opened))}${resolved === null ? ' so far' : ''}</td>
<td data-label="networks"${none}>${lines((n) => wrappable(n.network, 80))}${moreNetworks(incident)}</td>
<td data-label="peak" class="num${none === '' ? '' : ' none'}">${lines((n) => `<span class="narrow-only">${wrappable(n.network, 80)}: </span>${incident.kind === 'rule' ? escapeHtml(storyText(incident, n, data.toMs)) : '-'}`)}</td>
</tr>`;
    })
    .join('\n');
  return `<section id="incidents">
<h2>Incidents</h2>
<p class="note">${data.incidents.length} incident(s): every open one (however long ago it opened), then those of this window, newest first; the ids, states and acknowledgements of the alerts and <code>shieldwatch incidents</code>. Each network's peak is the most extreme value of the rule's figure while it was in the incident.</p>
<div class="table-wrap"><table class="incidents stack">
<thead><tr><th scope="col">kind</th><th scope="col">rule</th><th scope="col">start</th><th scope="col">end</th><th scope="col">duration</th><th scope="col">networks</th><th scope="col">peak</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>
</section>`;
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
  return `<section id="status">
<h2>Filter status over time</h2>
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

/** How a unit is named over its chart. */
function unitTitle(unit: string): string {
  const names: Readonly<Record<string, string>> = {
    pps: 'packets per second (pps)',
    bps: 'bits per second (bps)',
    'B/s': 'bytes per second (B/s)',
    'req/s': 'requests per second',
    'conn/s': 'connections per second',
    '%': 'percent',
  };
  return names[unit] ?? (unit === '' ? 'figures without a unit' : unit);
}

function panelHtml(n: ReportData['networks'][number], i: number, panel: ChartPanel, p: number): string {
  const lines = panel.thresholds.map(
    (t) =>
      `<li class="threshold"><span class="dash" aria-hidden="true"></span>threshold of rule <code>${shown(t.rule, 40)}</code>: ${shown(t.path, 60)} ${escapeHtml(t.op)} ${escapeHtml(withUnit(t.value, panel.unit))}</li>`,
  );
  const notes = panel.notes.map((note) => `<li class="note">${escapeHtml(note)}</li>`);
  return `<div class="panel" data-unit="${escapeHtml(panel.unit)}">
<h4>${escapeHtml(unitTitle(panel.unit))}</h4>
<div class="chart" id="chart-${i}-${p}" role="img" aria-label="${escapeHtml(`${unitTitle(panel.unit)} of network ${n.id} over time`)}"></div>
${lines.length + notes.length === 0 ? '' : `<ul class="thresholds">${[...lines, ...notes].join('')}</ul>`}
</div>`;
}

function networksSection(data: ReportData): string {
  if (data.networks.length === 0) {
    return `<section id="networks"><h2>Networks</h2><p class="empty">No network to show: set ${SETTINGS.networks.env} or give <code>--networks A,B</code>.</p></section>`;
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
                `<li class="${m.event === 'network.rule_resolved' ? 'resolved' : 'triggered'}">${timeHtml(m.at, data.toMs)} ${wrappable(m.label, 120)}</li>`,
            )
            .join('')}</ul>`;
    const panels =
      n.panels.length === 0
        ? '<p class="empty">No figures in this window.</p>'
        : n.panels.map((panel, p) => panelHtml(n, i, panel, p)).join('\n');
    return `<figure class="network" id="network-${i}">
<figcaption><h3>network <span class="id">${shown(n.id, 80)}</span></h3></figcaption>
${panels}
<p class="meta">${escapeHtml(meta)}</p>
${marks}
</figure>`;
  });
  return `<section id="networks">
<h2>Networks</h2>
<p class="note">Per network, one chart per unit (packet rates apart from bit rates), from zero; the legend gives each figure's last value (hover for the value at a time). Dashed lines: rule thresholds; solid vertical lines: rule alerts (red triggered, green resolved); dotted: status changes. Click a name in a legend to hide or show it, drag across a chart to zoom in, double-click to zoom out.</p>
${charts.join('\n')}
</section>`;
}

function eventsSection(data: ReportData): string {
  if (data.events.length === 0) {
    return '<section id="events"><h2>Events</h2><p class="empty">No events in this window.</p></section>';
  }
  const rows = data.events
    .map((e) => {
      const ms = Date.parse(e.at);
      return `<tr class="${e.family} lv-${e.level}${e.suppressed === undefined ? '' : ' suppressed'}"><td class="when">${Number.isFinite(ms) ? timeHtml(ms, data.toMs) : escapeHtml(e.at)}</td><td class="name"><code>${escapeHtml(e.event)}</code>${e.suppressed === undefined ? '' : ` <span class="tag">suppressed: ${shown(e.suppressed, 40)}</span>`}</td><td class="what">${wrappable(e.summary, 300)}</td></tr>`;
    })
    .join('\n');
  return `<section id="events">
<h2>Events</h2>
<p class="note">${data.eventCount} event(s) in this window, oldest first${data.eventCount > data.events.length ? `; the newest ${data.events.length} are listed (<code>shieldwatch events --all</code> lists them all)` : ''}. Colours follow the alert's severity: red critical, orange error, amber warning, green resolved.</p>
<div class="table-wrap"><table class="events">
<thead><tr><th scope="col">time (UTC)</th><th scope="col">event</th><th scope="col">what</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>
</section>`;
}
