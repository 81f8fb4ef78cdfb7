/**
 * The email text of an alert (also the `default` text): plain text, with the statuses exact, the latest figures
 * of each network, and every hidden character from the API shown as `<U+XXXX>`. Pure; never throws on a
 * record of the right shape.
 */

import type { AlertRecord, NetworkFigures } from '../types.ts';
import { eventTexts } from './alert-events.ts';
import { familyOf } from './alert-families/index.ts';
import { EMAIL_MAX_BYTES, EMAIL_MAX_FIGURES, EMAIL_MAX_NETWORKS, PRODUCT } from './alert-limits.ts';
import { momentOf } from './alert-time.ts';
import { cleanText, escapeHidden, shorten } from './visible-text.ts';

/** What the email may mention besides the alert itself (see `RenderContext` in alert-text.ts). */
export interface EmailContext {
  readonly networks: readonly NetworkFigures[];
  readonly monitorName?: string;
  readonly apiUrl?: string;
}

const MAX_ID_IN_EMAIL = 200;
const MAX_PATH_IN_EMAIL = 200;
const MAX_ERROR_IN_EMAIL = 500;
const MAX_URL_IN_EMAIL = 500;
const MAX_TIME_TEXT = 64;
const LABEL_WIDTH = 24;

/** The email of `alert`: at most {@link EMAIL_MAX_BYTES} bytes, networks beyond the room left are counted. */
export function renderEmail(alert: AlertRecord, ctx: EmailContext): string {
  const raw: unknown = alert.event;
  const event = typeof raw === 'string' ? raw : String(raw);
  const family = familyOf(alert);
  const seen = momentOf(alert.at);
  const header: string[] = [
    family.intro?.(alert) ?? eventTexts(event)?.intro ?? `Alert ${quoteText(event, MAX_ID_IN_EMAIL)}.`,
    '',
    ...family.emailLines(alert, field),
    field('Seen', seen === undefined ? unknownTime(alert.at) : `${seen.iso} (${seen.human})`),
    ...family.emailTail(alert, field),
  ];

  const footer = ['', '--', `${PRODUCT} alert, event ${cleanText(event, MAX_ID_IN_EMAIL)}`];
  if (typeof ctx?.monitorName === 'string' && ctx.monitorName !== '') {
    footer.push(`Monitor: ${cleanText(ctx.monitorName, MAX_ID_IN_EMAIL)}`);
  }
  if (typeof ctx?.apiUrl === 'string' && ctx.apiUrl !== '') {
    footer.push(`API: ${cleanText(ctx.apiUrl, MAX_URL_IN_EMAIL)}`);
  }
  if (Number.isSafeInteger(alert.seq)) {
    footer.push(`Alert number: ${alert.seq}`);
  }

  const headerText = header.join('\n');
  const footerText = footer.join('\n');
  // The header and footer are bounded by the caps above; the network list gets whatever room is left.
  const room = EMAIL_MAX_BYTES - Buffer.byteLength(headerText) - Buffer.byteLength(footerText) - 200;
  if (family.networkFigures === false) {
    return [shortenBytes(headerText, EMAIL_MAX_BYTES - Buffer.byteLength(footerText) - 200), footerText].join(
      '\n',
    );
  }
  return [headerText, '', ...networkLines(ctx?.networks, room), footerText].join('\n');
}

function networkLines(networks: unknown, room: number): string[] {
  if (!Array.isArray(networks) || networks.length === 0) {
    return ['Latest network figures: none (no networks watched)'];
  }
  const lines = ['Latest network figures:'];
  let used = Buffer.byteLength(lines[0] ?? '') + 1;
  const shown = Math.min(networks.length, EMAIL_MAX_NETWORKS);
  let listed = 0;
  for (; listed < shown; listed++) {
    const block = networkBlock(networks[listed]);
    const size = block.reduce((total, line) => total + Buffer.byteLength(line) + 1, 0);
    if (used + size > room) {
      break;
    }
    lines.push(...block);
    used += size;
  }
  const left = networks.length - listed;
  if (left > 0) {
    const why = listed < shown ? ' (left out to keep the message within the SNS size limit)' : '';
    lines.push(`  ... and ${left} more network${left === 1 ? '' : 's'}${why}`);
  }
  return lines;
}

function networkBlock(entry: unknown): string[] {
  if (typeof entry !== 'object' || entry === null) {
    return ['  (an unreadable network entry)'];
  }
  const network = entry as Partial<NetworkFigures>;
  const id =
    typeof network.networkId === 'string' && network.networkId.trim() !== ''
      ? cleanText(network.networkId, MAX_ID_IN_EMAIL)
      : '(no network id)';
  const at =
    typeof network.at === 'string' && network.at !== '' ? ` (${cleanText(network.at, MAX_TIME_TEXT)})` : '';
  const lines = [`  ${id}${at}`];
  if (typeof network.error === 'string') {
    lines.push(`    error: ${cleanText(network.error, MAX_ERROR_IN_EMAIL) || '(no detail)'}`);
  }
  const figures: readonly unknown[] = Array.isArray(network.figures) ? network.figures : [];
  if (figures.length === 0 && typeof network.error !== 'string') {
    lines.push('    (no figures)');
  }
  for (const figure of figures.slice(0, EMAIL_MAX_FIGURES)) {
    if (Array.isArray(figure)) {
      const [path, value] = figure as unknown[];
      const name = typeof path === 'string' && path !== '' ? cleanText(path, MAX_PATH_IN_EMAIL) : '(no path)';
      lines.push(`    ${name} = ${typeof value === 'number' ? String(value) : '(not a number)'}`);
    }
  }
  if (figures.length > EMAIL_MAX_FIGURES) {
    const left = figures.length - EMAIL_MAX_FIGURES;
    lines.push(`    ... and ${left} more figure${left === 1 ? '' : 's'}`);
  }
  return lines;
}

/** `text` cut to at most `bytes` UTF-8 bytes (at a line's end when it can), saying so. */
function shortenBytes(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  const note = '\n... (cut to keep the message within the SNS size limit)';
  let cut = Buffer.from(text)
    .subarray(0, Math.max(0, bytes - note.length))
    .toString('utf8');
  // A character cut in half decodes as U+FFFD: drop it, and the line it ends.
  const lastBreak = cut.lastIndexOf('\n');
  if (lastBreak > 0) cut = cut.slice(0, lastBreak);
  return `${cut}${note}`;
}

function unknownTime(value: unknown): string {
  return typeof value === 'string' && value !== ''
    ? `${quoteText(value, MAX_TIME_TEXT)} (not a valid time)`
    : 'unknown';
}

function field(label: string, value: string): string {
  return `${`${label}:`.padEnd(LABEL_WIDTH)}${value}`;
}

function quoteText(text: string, max: number): string {
  return escapeHidden(JSON.stringify(shorten(text, max)));
}
