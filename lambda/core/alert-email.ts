/**
 * The email text of an alert (also the `default` text): plain text, with the statuses exact, the latest figures
 * of each network, and every hidden character from the API shown as `<U+XXXX>`. Pure; never throws on a
 * record of the right shape.
 */
import { eventTexts } from './alert-events.ts';
import { EMAIL_MAX_BYTES, EMAIL_MAX_FIGURES, EMAIL_MAX_NETWORKS, PRODUCT } from './alert-limits.ts';
import { formatDuration, momentOf } from './alert-time.ts';
import { healthEmailLines } from './health-alert-text.ts';
import { incidentEmailLines } from './incident-alert-text.ts';
import { ruleEmailLines } from './rule-alert-text.ts';
import { silenceEmailLines } from './silence-alert-text.ts';
import { quoteStatus, statusEmailLines } from './status-alert-text.ts';
import type { AlertRecord, NetworkFigures } from './types.ts';
import { escapeHidden, shorten } from './visible-text.ts';

/** What the email may mention besides the alert itself (see `RenderContext` in alert-text.ts). */
export interface EmailContext {
  readonly networks: readonly NetworkFigures[];
  readonly monitorName?: string;
  readonly apiUrl?: string;
}

const MAX_DETAIL_IN_EMAIL = 2000;
const MAX_ID_IN_EMAIL = 200;
const MAX_PATH_IN_EMAIL = 200;
const MAX_ERROR_IN_EMAIL = 500;
const MAX_URL_IN_EMAIL = 500;
const MAX_TIME_TEXT = 64;
const LABEL_WIDTH = 24;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The email of `alert`: at most {@link EMAIL_MAX_BYTES} bytes, networks beyond the room left are counted. */
export function renderEmail(alert: AlertRecord, ctx: EmailContext): string {
  const event = typeof alert.event === 'string' ? alert.event : String(alert.event);
  const texts = eventTexts(event);
  const header: string[] = [texts?.intro ?? `Alert ${quoteText(event, MAX_ID_IN_EMAIL)}.`, ''];
  const seen = momentOf(alert.at);

  if (texts?.family === 'status') {
    header.push(...statusEmailLines(alert, field));
  }
  if (texts?.family === 'silence') {
    header.push(...silenceEmailLines(alert, field));
  }
  if (texts?.family === 'health') {
    header.push(...healthEmailLines(alert, field));
  }
  if (texts?.family === 'grouped') {
    header.push(...incidentEmailLines(alert, field));
  }
  if (texts?.family === 'rule') {
    header.push(...ruleEmailLines(alert, field));
  } else if (texts?.family === 'grouped') {
    header.push(field('Severity', alert.severity === 'resolved' ? 'RESOLVED' : 'HIGH'));
  } else if (alert.severity === 'high' || alert.severity === 'resolved') {
    const why =
      alert.severity === 'high'
        ? `HIGH (the status is away from the expected ${quoteStatus(alert.expected)})`
        : `RESOLVED (back to the expected ${quoteStatus(alert.expected)})`;
    header.push(field('Severity', why));
  }
  header.push(field('Seen', seen === undefined ? unknownTime(alert.at) : `${seen.iso} (${seen.human})`));
  if (event === 'filter.status_changed') {
    header.push(field('Previous status lasted', previousDuration(alert)));
    const cycles = cyclesOf(alert);
    if (cycles !== undefined && cycles > 1) {
      header.push(field('Confirmed by', `${cycles} cycles in a row`));
    }
  } else if (texts?.family === 'incident' || texts?.family === 'recovery') {
    const cycles = cyclesOf(alert);
    header.push(field('Cycles in a row', cycles === undefined ? 'unknown' : String(cycles)));
  }
  // A health alert's detail is the list of its networks, which its own lines give in full.
  if (typeof alert.detail === 'string' && alert.detail !== '' && texts?.family !== 'health') {
    header.push(field('Detail', cleanText(alert.detail, MAX_DETAIL_IN_EMAIL)));
  }

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
  return [headerText, '', ...networkLines(ctx?.networks, room), footerText].join('\n');
}

/** A count of cycles from the record, or undefined when it is not a whole number of at least 0. */
export function cyclesOf(alert: AlertRecord): number | undefined {
  const cycles = alert.cycles;
  return typeof cycles === 'number' && Number.isSafeInteger(cycles) && cycles >= 0 ? cycles : undefined;
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

function previousDuration(alert: AlertRecord): string {
  const since = momentOf(alert.previousSince);
  const seen = momentOf(alert.at);
  if (since === undefined || seen === undefined) {
    return 'unknown';
  }
  return `${formatDuration(seen.ms - since.ms)} (since ${since.iso})`;
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

/**
 * Free text for the email: shortened, on one line (tab, LF and CR read as spaces), every other hidden
 * character (controls, format characters such as U+202E, unusual spaces) as `<U+XXXX>`, a lone surrogate
 * as U+FFFD. At most `max` characters.
 */
function cleanText(text: string, max: number): string {
  const visible = escapeHidden(shorten(text, max), 'space').replace(LONE_SURROGATE, '\uFFFD');
  return shorten(visible, max);
}
