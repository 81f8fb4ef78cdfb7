/**
 * The acknowledge link's pages (docs/acknowledge.md, The link): the confirmation page a `GET` shows (the
 * incident, its networks, since when, and one button), the page after a `POST`, and the one plain refusal
 * every bad, expired or replayed link gets. Every response carries the same strict headers. Pure: HTML text
 * from data, every value from the incident escaped.
 */

/** What the pages show of an incident. */
export interface AckIncidentView {
  readonly id: string;
  readonly rule?: string;
  /** What an incident without networks is (the monitor's own: the status away, the API unreachable). */
  readonly about?: string;
  readonly openedAt: string;
  /** Its networks: the active ones first, each with its peak when it has one. */
  readonly networks: ReadonlyArray<{
    readonly network: string;
    readonly peak?: number | boolean;
    readonly active: boolean;
  }>;
  readonly stage: number;
  readonly acknowledged?: { readonly by: string; readonly at: string; readonly note?: string };
}

/** A response of the acknowledge function. */
export interface AckResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Networks the page lists at most (the rest are counted). */
export const PAGE_MAX_NETWORKS = 50;

/**
 * The headers of every response: nothing may load but inline style, the form posts only to this function,
 * the page is never framed, cached, or told to another site through a referrer, and no CORS header is sent.
 */
export const ACK_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

// Before REFUSAL, which renders a page when the module loads.
const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}' +
  'h1{font-size:1.4rem}table{border-collapse:collapse}td,th{padding:.2rem .8rem .2rem 0;text-align:left}' +
  'button{font-size:1.1rem;padding:.6rem 1.4rem;cursor:pointer}code{word-break:break-all}' +
  '@media (prefers-color-scheme:dark){body{background:#111;color:#eee}}';

/** The one answer to every link that does not work: bad, expired, replayed, resolved, unknown. */
export const REFUSAL: AckResponse = {
  status: 404,
  headers: ACK_HEADERS,
  body: page(
    'Link not valid',
    '<h1>This link is not valid</h1><p>It may have expired, or the incident may be over. Use ' +
      '<code>shieldwatch status</code> (the open incidents) and <code>shieldwatch ack ID</code> instead.</p>',
  ),
};

function page(title: string, content: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body>${content}</body></html>`
  );
}

/** Text for HTML content and attribute values (double-quoted). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function incidentFacts(incident: AckIncidentView): string {
  const shown = incident.networks.slice(0, PAGE_MAX_NETWORKS);
  const rows = shown
    .map(
      (n) =>
        `<tr><td><code>${escapeHtml(n.network)}</code></td>` +
        `<td>${n.peak === undefined ? '' : escapeHtml(String(n.peak))}</td>` +
        `<td>${n.active ? 'active' : 'recovered'}</td></tr>`,
    )
    .join('');
  const more = incident.networks.length - shown.length;
  return (
    '<table>' +
    `<tr><th>Incident</th><td><code>${escapeHtml(incident.id)}</code></td></tr>` +
    (incident.rule === undefined
      ? ''
      : `<tr><th>Rule</th><td><code>${escapeHtml(incident.rule)}</code></td></tr>`) +
    (incident.about === undefined ? '' : `<tr><th>What</th><td>${escapeHtml(incident.about)}</td></tr>`) +
    `<tr><th>Since</th><td>${escapeHtml(incident.openedAt)}</td></tr>` +
    `<tr><th>Stage</th><td>${incident.stage}</td></tr>` +
    '</table>' +
    // The monitor's own incidents concern no network: no list to show.
    (incident.about !== undefined && incident.networks.length === 0
      ? ''
      : `<h2>Networks (${incident.networks.length})</h2>` +
        `<table><tr><th>Network</th><th>Peak</th><th></th></tr>${rows}</table>` +
        (more > 0 ? `<p>and ${more} more</p>` : ''))
  );
}

function acknowledgedLine(incident: AckIncidentView): string {
  const ack = incident.acknowledged;
  if (ack === undefined) return '';
  return (
    // A rule's incident on one network acknowledged before who was kept, or past its item's budget for them,
    // keeps when only (docs/acknowledge.md).
    `<p id="acknowledged">Acknowledged${ack.by === '' ? '' : ` by <code>${escapeHtml(ack.by)}</code>`} at ${escapeHtml(ack.at)}` +
    (ack.note === undefined ? '' : `: ${escapeHtml(ack.note)}`) +
    '.</p>'
  );
}

/**
 * The confirmation page of a `GET`: what the incident is, and a form that posts the token back (no script).
 * An incident already acknowledged says by whom, and has no button.
 */
export function confirmationPage(incident: AckIncidentView, token: string, action: string): AckResponse {
  const form =
    incident.acknowledged === undefined
      ? `<form method="post" action="${escapeHtml(action)}">` +
        `<input type="hidden" name="t" value="${escapeHtml(token)}">` +
        '<button type="submit">Acknowledge</button></form>' +
        '<p>Acknowledging stops the reminders and escalations of this incident; its end is still sent.</p>'
      : '';
  return {
    status: 200,
    headers: ACK_HEADERS,
    body: page(
      'Acknowledge incident',
      `<h1>Acknowledge this incident?</h1>${incidentFacts(incident)}${acknowledgedLine(incident)}${form}`,
    ),
  };
}

/** The page after a `POST` that acknowledged the incident, or found it acknowledged already. */
export function acknowledgedPage(incident: AckIncidentView): AckResponse {
  return {
    status: 200,
    headers: ACK_HEADERS,
    body: page(
      'Incident acknowledged',
      `<h1>Incident acknowledged</h1>${acknowledgedLine(incident)}${incidentFacts(incident)}`,
    ),
  };
}
