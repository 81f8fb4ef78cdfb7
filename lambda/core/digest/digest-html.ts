/**
 * The digest as one small self-contained HTML page (CONTRACT §19): inline style, no script, no request to any
 * host or file; every stored text escaped. Pure; the same {@link Digest} as the text and the JSON.
 */
import { formatDuration } from '../alerts/alert-time.ts';
import type { Digest } from './digest.ts';
import { digestPercent, digestSpread, digestStatus } from './digest-text.ts';

/** Text for HTML content and attribute values; hidden characters (bidi overrides, controls) as `<U+XXXX>`. */
export function escapeDigestHtml(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g,
      (c) => `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`,
    )
    .replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const e = escapeDigestHtml;

function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  if (rows.length === 0) return '<p class="none">none</p>';
  return [
    '<table>',
    `<thead><tr>${head.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead>`,
    '<tbody>',
    ...rows.map((r) => `<tr>${r.map((c) => `<td>${e(c)}</td>`).join('')}</tr>`),
    '</tbody></table>',
  ].join('\n');
}

const STYLE = [
  'body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:52em;padding:0 1em;color:#222}',
  'h1{font-size:1.3em}h2{font-size:1.05em;margin-top:1.6em;border-bottom:1px solid #ddd}',
  'table{border-collapse:collapse;margin:.4em 0}td,th{padding:.2em .8em .2em 0;text-align:left;vertical-align:top}',
  'th{font-weight:600;border-bottom:1px solid #ccc}.none{color:#777}.figures{font-size:1.1em}',
].join('');

/** The digest as a complete HTML document. */
export function renderDigestHtml(digest: Digest): string {
  const i = digest.incidents;
  const a = digest.availability;
  const f = digest.filter;
  const title = `shieldwatch digest ${digest.since} .. ${digest.until}`;
  const body = [
    `<h1>${e(title)}</h1>`,
    `<p class="figures">${i.opened} incident${i.opened === 1 ? '' : 's'} opened, ${i.resolved} resolved, ${i.openAtEnd} open at the end.</p>`,
    '<h2>Incidents per kind</h2>',
    table(
      ['kind', 'opened', 'resolved'],
      i.byKind.map((k) => [k.kind, String(k.opened), String(k.resolved)]),
    ),
    '<h2>Incidents per rule</h2>',
    table(
      ['rule', 'kind', 'opened', 'resolved'],
      i.byRule.map((r) => [r.rule, r.kind, String(r.opened), String(r.resolved)]),
    ),
    '<h2>Worst networks by peak</h2>',
    table(
      ['rule', 'network', 'peak', 'at'],
      digest.worstNetworks.flatMap((r) =>
        r.networks.map((n) => [r.rule, n.network, String(n.peak), n.peakAt ?? '-']),
      ),
    ),
    '<h2>Response</h2>',
    table(
      ['', 'figures'],
      [
        ['time to acknowledge', digestSpread(digest.response.timeToAcknowledge)],
        ['time to resolve', digestSpread(digest.response.timeToResolve)],
        ['not acknowledged', String(digest.response.notAcknowledged)],
      ],
    ),
    '<h2>Filter status</h2>',
    `<p>Time-weighted over ${e(formatDuration(f.monitoredMs))} monitored${f.notMonitoredMs === 0 ? '' : ` (${e(formatDuration(f.notMonitoredMs))} not monitored)`}.</p>`,
    table(
      ['status', 'share', 'time'],
      f.statuses.map((s) => [digestStatus(s.status), digestPercent(s.share), formatDuration(s.ms)]),
    ),
    '<h2>API availability</h2>',
    a.cycles === 0
      ? '<p class="none">no cycle in the period</p>'
      : `<p>${e(digestPercent(a.share))} of cycles answered (${a.answeredCycles} of ${a.cycles}), ${e(digestPercent(a.timeShare))} of monitored time.</p>`,
    '<h2>Silences and maintenance windows</h2>',
    table(
      ['kind', 'id', 'from', 'until', 'events', 'reason'],
      digest.silences.map((s) => [
        s.repeat === undefined ? s.kind : `${s.kind} (${s.repeat})`,
        s.id,
        s.startsAt,
        s.endsAt,
        s.pattern,
        s.reason ?? '',
      ]),
    ),
  ];
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>${e(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head><body>',
    ...body,
    '</body></html>',
  ].join('\n');
}
