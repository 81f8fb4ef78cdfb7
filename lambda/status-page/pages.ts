/**
 * The hosted page's own HTML (docs/status-page.md): the private landing page (the present, then links to the
 * reports of 24 hours and 7 days) and the public page (status, open incidents, uptime; no network, rule or
 * figure). Both self-contained, no request to any other host. Pure.
 */
import { createHash } from 'node:crypto';
import { formatDuration } from '../core/alerts/alert-text.ts';
import { displayStatus } from '../core/detect/status.ts';
import type { IncidentKind, IncidentRow } from '../core/incidents/incidents.ts';
import { UNREADABLE_STATUS, type UptimeReport } from '../core/uptime.ts';
import type { PresentSilence } from '../report/data.ts';
import { formatShare } from '../report/data.ts';
import { escapeHtml, utc } from '../report/html.ts';
import type { PublicIncident, StatusDocument } from './status-document.ts';

/** The objects the publisher writes, by role. */
export const PAGE_KEYS = {
  index: 'index.html',
  day: 'report-24h.html',
  week: 'report-7d.html',
  status: 'status.json',
  /** The Atom feed of the incidents of the last 7 days (`feed.ts`). */
  feed: 'feed.atom',
} as const;

/** The windows the page reports on, longest first (read first: its present gives the status's "since"). */
export const PAGE_WINDOWS = [
  { key: PAGE_KEYS.week, label: 'last 7 days', ms: 7 * 86_400_000 },
  { key: PAGE_KEYS.day, label: 'last 24 hours', ms: 86_400_000 },
] as const;

/** Uptime of a window, for the public page. */
export interface WindowUptime {
  /** `last 24 hours`, `last 7 days`. */
  readonly label: string;
  readonly uptime: UptimeReport | null;
}

/** What both pages show. */
export interface PageInput {
  readonly document: StatusDocument;
  /** Seconds between two publishes: the page reloads itself that often. */
  readonly refreshSeconds: number;
  /** The expected filter status, when configured: shown as the healthy one. */
  readonly expected?: string;
}

/**
 * Signed URLs (private): the policy covers every object, but a browser following a relative link drops the
 * query string that carries the signature; this carries it over to the page's links.
 */
const CARRY_SIGNATURE_SCRIPT =
  "for(const a of document.querySelectorAll('a[data-signed]'))a.search=location.search;";

const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#5b6470;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--line:#d0d7de}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--line:#30363d}}
body{font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:56rem;padding:1rem}
h1{font-size:1.5rem;margin:.2rem 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.now{border:1px solid var(--line);border-left:.5rem solid var(--ok);border-radius:.4rem;padding:.75rem 1rem}
.now.away,.now.incident{border-left-color:var(--bad)}.now.stale{border-left-color:var(--warn)}
.big{font-size:1.3rem;font-weight:600}.muted{color:var(--muted)}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.nw{white-space:nowrap}a{color:inherit}ul{padding-left:1.2rem}
.quiet{margin:.4rem 0;color:var(--warn)}.ack{color:var(--muted)}
`;

/** Most networks of one incident the landing page names; status.json and `shieldwatch incidents show` list all. */
const MAX_PAGE_NETWORKS = 20;

/** How each kind of incident is named to a reader (the pages and the feed). */
export const KIND_WORDS: Readonly<Record<IncidentKind, string>> = {
  status: 'Filter status away from the expected one',
  api: 'Protection API unavailable',
  network: 'Network unreachable',
  rule_unreadable: 'Traffic figures unreadable',
  rule: 'Traffic alert',
};

function statusText(status: string | null): string {
  if (status === null) return 'not seen';
  return status === UNREADABLE_STATUS ? status : displayStatus(status);
}

function time(iso: string | null): string {
  if (iso === null) return '-';
  const ms = Date.parse(iso);
  return Number.isFinite(ms)
    ? `<time class="nw" datetime="${escapeHtml(iso)}">${utc(ms)} UTC</time>`
    : escapeHtml(iso);
}

function page(title: string, refreshSeconds: number, body: string, script?: string): string {
  const scriptSrc =
    script === undefined ? "'none'" : `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
  const csp =
    `default-src 'none'; script-src ${scriptSrc}; style-src 'unsafe-inline'; img-src data:; ` +
    "base-uri 'none'; form-action 'none'";
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="${Math.max(60, Math.round(refreshSeconds))}">`,
    `<title>${escapeHtml(title)}</title><style>${CSS}</style></head>`,
    `<body>${body}${script === undefined ? '' : `<script>${script}</script>`}</body></html>`,
  ].join('\n');
}

/** The private page's silences: what each holds back, until when, why, and the next one. */
function silenceLines(silences: readonly PresentSilence[]): string {
  return silences
    .map((s) => {
      const what =
        s.pattern === '*' ? 'every alert' : `alerts matching <code>${escapeHtml(s.pattern)}</code>`;
      const reason = s.reason === null ? '' : ` Reason: <q>${escapeHtml(s.reason)}</q>.`;
      return s.active
        ? `<div class="quiet silence">Silenced: ${what} recorded, not sent, until ${time(s.endsAt)} (silence <code>${escapeHtml(s.id)}</code>).${reason}</div>`
        : `<div class="muted silence">Next silence: ${what} from ${time(s.startsAt)} to ${time(s.endsAt)} (silence <code>${escapeHtml(s.id)}</code>).${reason}</div>`;
    })
    .join('\n');
}

/** The "now" box: the status and since when, all clear or how many incidents are open. */
function nowBox(input: PageInput, detail: string): string {
  const { document } = input;
  const open = document.openIncidents.length;
  const lastMs = document.lastCycleAt === null ? Number.NaN : Date.parse(document.lastCycleAt);
  const stale =
    !Number.isFinite(lastMs) ||
    Date.parse(document.generatedAt) - lastMs > 3 * 60_000 + input.refreshSeconds * 1000;
  const cls = open > 0 ? 'incident' : document.away ? 'away' : stale ? 'stale' : '';
  const headline =
    open > 0
      ? `${open} open incident${open === 1 ? '' : 's'}`
      : document.away
        ? 'Filter status away'
        : 'All clear';
  return [
    `<section class="now ${cls}" id="now">`,
    `<div class="big" id="headline">${escapeHtml(headline)}</div>`,
    `<div>Filter status <strong id="status">${escapeHtml(statusText(document.status))}</strong>` +
      `${document.since === null ? '' : ` since ${time(document.since)}`}</div>`,
    detail,
    document.silences !== undefined && document.silences.length > 0
      ? `<div id="silences">${silenceLines(document.silences)}</div>`
      : '',
    document.maintenanceUntil === undefined || document.maintenanceUntil === null
      ? ''
      : `<div class="quiet" id="maintenance">Maintenance until ${time(document.maintenanceUntil)}</div>`,
    `<div class="muted">Last cycle ${time(document.lastCycleAt)}${stale ? ' (the monitor has not reported recently)' : ''}; page written ${time(document.generatedAt)}</div>`,
    '</section>',
  ].join('\n');
}

/** The private landing page: the present with each open incident's networks and peaks, and links to the reports. */
export function renderLandingPage(input: PageInput): string {
  const rows = (input.document.openIncidents as IncidentRow[]).map((incident) => {
    const shown = incident.networks.slice(0, MAX_PAGE_NETWORKS);
    const more = incident.networks.length - shown.length;
    const networks = [
      ...shown.map(
        (n) =>
          `<li>${escapeHtml(n.network)}${n.peak === undefined ? '' : `: peak ${escapeHtml(String(n.peak))}`}${n.peakAt === undefined ? '' : ` at ${time(n.peakAt)}`}</li>`,
      ),
      ...(more > 0 ? [`<li class="muted">and ${more} more (status.json lists them all)</li>`] : []),
    ].join('');
    const ack = incident.acknowledged;
    const acked =
      ack === undefined
        ? ''
        : `<div class="ack">acknowledged by <strong>${escapeHtml(ack.by)}</strong> at ${time(ack.at)}${ack.note === undefined ? '' : `: <q>${escapeHtml(ack.note)}</q>`}</div>`;
    return (
      `<tr data-id="${escapeHtml(incident.id)}"><td>${escapeHtml(KIND_WORDS[incident.kind] ?? incident.kind)}${incident.rule === undefined ? '' : ` <strong>${escapeHtml(incident.rule)}</strong>`}` +
      `<div class="muted"><code>${escapeHtml(incident.id)}</code> ${escapeHtml(incident.state)}</div>${acked}</td>` +
      `<td>${time(incident.openedAt)}</td><td>${networks === '' ? '-' : `<ul>${networks}</ul>`}</td></tr>`
    );
  });
  const incidents =
    rows.length === 0
      ? ''
      : `<table id="incidents"><thead><tr><th>Incident</th><th>Since</th><th>Networks and peaks</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  const body = [
    '<h1>shieldwatch</h1>',
    nowBox(input, incidents),
    '<h2>Reports</h2>',
    '<ul>',
    `<li><a data-signed href="${PAGE_KEYS.day}">The last 24 hours</a></li>`,
    `<li><a data-signed href="${PAGE_KEYS.week}">The last 7 days</a></li>`,
    `<li><a data-signed href="${PAGE_KEYS.status}">status.json</a></li>`,
    '</ul>',
  ].join('\n');
  return page('shieldwatch status', input.refreshSeconds, body, CARRY_SIGNATURE_SCRIPT);
}

/** The public page: status, open incidents (kind and since when), uptime; no network, rule or figure. */
export function renderPublicPage(input: PageInput & { readonly windows: readonly WindowUptime[] }): string {
  const incidents = (input.document.openIncidents as PublicIncident[]).map(
    (incident) =>
      `<li>${escapeHtml(KIND_WORDS[incident.kind] ?? 'Incident')} since ${time(incident.openedAt)}` +
      `${incident.networkCount > 1 ? ` (${incident.networkCount} networks)` : ''}</li>`,
  );
  const uptime = input.windows.map(({ label, uptime }) => {
    if (uptime === null) return `<h3>${escapeHtml(label)}</h3><p class="muted">Not monitored.</p>`;
    const expected = input.expected;
    const rows = uptime.statuses.map(
      (s) =>
        `<tr><td>${escapeHtml(statusText(s.status))}${expected !== undefined && s.status === expected ? ' (normal)' : ''}</td><td>${formatShare(s.share)}</td><td class="nw">${escapeHtml(formatDuration(s.ms))}</td></tr>`,
    );
    return (
      `<h3>${escapeHtml(label)}</h3><table class="uptime"><thead><tr><th>Filter status</th><th>Share</th><th>Time</th></tr></thead>` +
      `<tbody>${rows.join('')}</tbody></table>` +
      `<p class="muted">Protection API available ${formatShare(uptime.availability.share)} of the monitored time.</p>`
    );
  });
  const body = [
    '<h1>Status</h1>',
    nowBox(input, incidents.length === 0 ? '' : `<ul id="incidents">${incidents.join('')}</ul>`),
    '<h2>Uptime</h2>',
    ...uptime,
  ].join('\n');
  return page('Status', input.refreshSeconds, body);
}
