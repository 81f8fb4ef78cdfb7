/**
 * The text of an alert: SNS subject, SMS, email and message attributes (CONTRACT §6).
 * Pure: times come from the alert record, never from the clock; nothing here throws.
 */

import { displayStatus } from './status.ts';
import type { AlertEvent, AlertRecord, NetworkFigures, RenderedAlert } from './types.ts';

/** Longest SNS subject: SNS requires fewer than 100 characters. */
export const SUBJECT_MAX_CHARS = 99;

/** Longest SMS text: one GSM message. */
export const SMS_MAX_CHARS = 160;

/**
 * Largest email text, in UTF-8 bytes. One SNS message (at most 256 KiB) carries the email twice (`default` and
 * `email`), JSON-escaped (which can double the size of quotes and backslashes), plus the SMS, subject and
 * attributes; 60 000 bytes keeps the worst case under the limit.
 */
export const EMAIL_MAX_BYTES = 60_000;

/** Most networks listed in an email; the rest are counted. */
export const EMAIL_MAX_NETWORKS = 50;

/** Most figures listed per network in an email; the rest are counted. */
export const EMAIL_MAX_FIGURES = 20;

/** Longest message attribute value, in UTF-16 code units. */
export const ATTRIBUTE_MAX_CHARS = 1024;

/** What the text of an alert may mention besides the alert itself. */
export interface RenderContext {
  /** The latest figures of each watched network, in the order to list them. */
  readonly networks: readonly NetworkFigures[];
  /**
   * Replaces `shieldwatch` in the subject bracket and the SMS prefix (folded to ASCII and shortened there).
   * @default 'shieldwatch'
   */
  readonly monitorName?: string;
  /** The watched API's base URL, named in the email footer. */
  readonly apiUrl?: string;
}

const PRODUCT = 'shieldwatch';
const MAX_NAME_CHARS = 30;
/** Raw characters folded for a subject or SMS; anything longer is cut first so a huge status costs nothing. */
const MAX_FOLD_INPUT = 1000;
const MAX_STATUS_IN_EMAIL = 1000;
const MAX_DETAIL_IN_EMAIL = 2000;
const MAX_DETAIL_IN_SMS = 100;
const MAX_ID_IN_EMAIL = 200;
const MAX_PATH_IN_EMAIL = 200;
const MAX_ERROR_IN_EMAIL = 500;
const MAX_URL_IN_EMAIL = 500;
const MAX_TIME_TEXT = 64;
const LABEL_WIDTH = 24;

/** Characters NFKD leaves alone (or turns into something unhelpful) that have an obvious ASCII form. */
const TYPOGRAPHIC: ReadonlyMap<string, string> = new Map([
  ['\u2018', "'"],
  ['\u2019', "'"],
  ['\u201A', "'"],
  ['\u201B', "'"],
  ['\u2032', "'"],
  ['\u2035', "'"],
  ['\u02BC', "'"],
  ['\u2039', "'"],
  ['\u203A', "'"],
  ['\u201C', '"'],
  ['\u201D', '"'],
  ['\u201E', '"'],
  ['\u201F', '"'],
  ['\u2033', '"'],
  ['\u2036', '"'],
  ['\u00AB', '"'],
  ['\u00BB', '"'],
  ['\u2010', '-'],
  ['\u2011', '-'],
  ['\u2012', '-'],
  ['\u2013', '-'],
  ['\u2014', '-'],
  ['\u2015', '-'],
  ['\u2043', '-'],
  ['\u2212', '-'],
  ['\u2026', '...'],
  ['\u00A0', ' '],
  ['\u2007', ' '],
  ['\u202F', ' '],
  ['\u00DF', 'ss'],
  ['\u00C6', 'AE'],
  ['\u00E6', 'ae'],
  ['\u0152', 'OE'],
  ['\u0153', 'oe'],
  ['\u00D8', 'O'],
  ['\u00F8', 'o'],
  ['\u0141', 'L'],
  ['\u0142', 'l'],
  ['\u0110', 'D'],
  ['\u0111', 'd'],
  ['\u00D0', 'D'],
  ['\u00F0', 'd'],
  ['\u00DE', 'Th'],
  ['\u00FE', 'th'],
  ['\u0131', 'i'],
]);

const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;
const COMBINING_MARK = /^\p{M}$/u;
const SPACE_LIKE = /^[\t\n\v\f\r\u0085\u2028\u2029\p{Zs}]$/u;
const INVISIBLE = /^[\p{Cc}\p{Cf}]$/u;
/** Control characters other than tab, LF and CR, and the Unicode line separators: kept out of the email. */
const EMAIL_CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\u2028\u2029]/g;
const EMAIL_WHITESPACE_CONTROL = /[\t\n\r]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Everything XML 1.0 does not allow (lone surrogates included, as the `u` flag matches them as code points). */
const NOT_XML_1_0 = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** One-line summaries used in subjects (after `[name] `). */
const SUBJECTS: ReadonlyMap<string, string> = new Map<AlertEvent, string>([
  ['api.auth_failed', 'API key rejected'],
  ['api.auth_restored', 'API key accepted again'],
  ['api.unreachable', 'API unreachable'],
  ['api.recovered', 'API reachable again'],
  ['filter.status_unreadable', 'Filter status unreadable'],
  ['filter.status_readable', 'Filter status readable again'],
  ['monitor.test', 'TEST notification - delivery check'],
]);

/** Sentences used in SMS texts (after `name: `); `filter.status_changed` has its own template. */
const SMS_SENTENCES: ReadonlyMap<string, string> = new Map<AlertEvent, string>([
  ['api.auth_failed', 'the API key was rejected'],
  ['api.auth_restored', 'the API key is accepted again'],
  ['api.unreachable', 'the API is unreachable'],
  ['api.recovered', 'the API is reachable again'],
  ['filter.status_unreadable', 'the filter status cannot be read'],
  ['filter.status_readable', 'the filter status can be read again'],
  ['monitor.test', 'TEST notification, alert delivery works'],
]);

/** Opening paragraphs of the email. */
const EMAIL_INTROS: ReadonlyMap<string, string> = new Map<AlertEvent, string>([
  ['filter.status_changed', 'The filter status changed.'],
  [
    'api.auth_failed',
    'The protection API rejected the API key (HTTP 401 or 403). No status can be read until the key is fixed.',
  ],
  ['api.auth_restored', 'The protection API accepts the API key again.'],
  [
    'api.unreachable',
    'The protection API is unreachable: every request failed (time-out, connection error, HTTP 5xx or 429).',
  ],
  ['api.recovered', 'The protection API is reachable again.'],
  [
    'filter.status_unreadable',
    'The filter status cannot be read from the API answers (no status at the status path, or a body that is not JSON).',
  ],
  ['filter.status_readable', 'The filter status can be read again.'],
  ['filter.status_reminder', 'Reminder: the filter status is still away from the expected status.'],
  [
    'monitor.test',
    'This is a TEST notification from shieldwatch, sent to check that alerts are delivered. No action is needed.',
  ],
]);

/** Events about an incident, whose `cycles` counts failures in a row rather than confirmations. */
/** Incident events that end an incident. */
const RECOVERY_EVENTS: ReadonlySet<string> = new Set<AlertEvent>([
  'api.auth_restored',
  'api.recovered',
  'filter.status_readable',
]);

const INCIDENT_EVENTS: ReadonlySet<string> = new Set<AlertEvent>([
  'api.auth_failed',
  'api.auth_restored',
  'api.unreachable',
  'api.recovered',
  'filter.status_unreadable',
  'filter.status_readable',
]);

/**
 * Transliterates text to printable ASCII (0x20–0x7E): typographic quotes, dashes, ellipsis and no-break spaces
 * become their ASCII forms, a few letters that do not decompose (ß, æ, ø, ł, ...) are spelled out, NFKD
 * splits the rest and combining marks are dropped (`é` → `e`).
 * Whitespace controls (tab, newlines, line separators) and other spaces become one space each; other control
 * and invisible format characters (zero-width space, BOM, soft hyphen) are removed; every other code point
 * (CJK, emoji, a lone surrogate) becomes one `?`.
 */
export function asciiFold(text: string): string {
  if (typeof text !== 'string') {
    return '';
  }
  if (PRINTABLE_ASCII.test(text)) {
    return text;
  }
  let out = '';
  for (const char of text) {
    const mapped = TYPOGRAPHIC.get(char);
    if (mapped !== undefined) {
      out += mapped;
      continue;
    }
    for (const part of char.normalize('NFKD')) {
      out += foldCodePoint(part);
    }
  }
  return out;
}

/**
 * Cuts `text` to at most `max` UTF-16 code units, ending with `...` when it was cut (with `max` under 3, only
 * dots fit). A surrogate pair is never split.
 */
export function shorten(text: string, max: number): string {
  const limit = Number.isNaN(max) ? 0 : Math.max(0, Math.floor(max));
  if (text.length <= limit) {
    return text;
  }
  if (limit < 3) {
    return '.'.repeat(limit);
  }
  let cut = limit - 3;
  if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) {
    cut -= 1;
  }
  return `${text.slice(0, cut)}...`;
}

/**
 * A duration for people, in its two largest units, rounded down: `45s`, `12m 5s`, `3h 2m`, `2d 4h`
 * (a zero second unit is left out: `3h`). Negative, NaN or infinite → `unknown`.
 */
export function formatDuration(ms: number): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    return 'unknown';
  }
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) {
    return `${seconds}s`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return twoUnits(minutes, 'm', seconds % 60, 's');
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    return twoUnits(hours, 'h', minutes % 60, 'm');
  }
  return twoUnits(Math.floor(hours / 24), 'd', hours % 24, 'h');
}

/**
 * Renders an alert for SNS. Never throws, whatever the record holds.
 *
 * - `subject`: printable ASCII, 1 to 99 characters, `[name] ...`; for a status change it names both statuses
 *   (folded with {@link asciiFold}, the empty status as `(empty)`, one that folds to blanks as `(blank)`), each
 *   shortened fairly so the whole fits and the arrow stays.
 * - `sms`: printable ASCII, at most 160 characters, names the new status.
 * - `email` (and `default`, the same text): plain text with the exact statuses JSON-quoted, when the change was
 *   seen, how long the previous status lasted, confirmations or failure cycles, the detail, and the latest
 *   figures of each network (at most 50 networks and 20 figures each); at most {@link EMAIL_MAX_BYTES} bytes.
 * - `attributes`: `event` always, `from` and `to` when the record has them, exact except for what SNS refuses:
 *   an empty value becomes `(empty)`, characters not allowed in XML 1.0 (controls other than tab/LF/CR, lone
 *   surrogates, U+FFFE/U+FFFF) are removed (a value left empty by that is `(empty)` too), and a value longer
 *   than 1024 characters is shortened with `...`.
 */
export function renderAlert(alert: AlertRecord, ctx: RenderContext): RenderedAlert {
  try {
    const name = monitorLabel(ctx?.monitorName);
    const email = renderEmail(alert, ctx);
    return {
      subject: renderSubject(alert, name),
      sms: renderSms(alert, name),
      email,
      default: email,
      attributes: renderAttributes(alert),
    };
  } catch {
    // Defensive only (a record whose fields are getters that throw); the publisher must always get a message.
    const event = typeof alert?.event === 'string' ? alert.event : 'unknown';
    const label = shorten(asciiFold(shorten(event, 100)), 60);
    const text = `${PRODUCT}: alert ${label} (its details could not be rendered)`;
    return {
      subject: shorten(`[${PRODUCT}] Alert: ${label}`, SUBJECT_MAX_CHARS),
      sms: shorten(text, SMS_MAX_CHARS),
      email: text,
      default: text,
      attributes: { event: attributeValue(event) },
    };
  }
}

function renderSubject(alert: AlertRecord, name: string): string {
  const prefix = `[${name}] `;
  let subject: string;
  if (alert.event === 'filter.status_reminder') {
    const head = `${prefix}REMINDER: filter status still `;
    const middle = ', expected ';
    const [to, expected] = fitPair(
      subjectStatus(alert.to),
      subjectStatus(alert.expected),
      SUBJECT_MAX_CHARS - head.length - middle.length,
    );
    subject = `${head}${to}${middle}${expected}`;
  } else if (alert.event === 'filter.status_changed') {
    const head = `${prefix}${severityTag(alert)}Filter status changed: `;
    const arrow = ' -> ';
    const [from, to] = fitPair(
      subjectStatus(alert.from),
      subjectStatus(alert.to),
      SUBJECT_MAX_CHARS - head.length - arrow.length,
    );
    subject = `${head}${from}${arrow}${to}`;
  } else {
    subject = `${prefix}${SUBJECTS.get(alert.event) ?? `Alert: ${unknownEventLabel(alert)}`}`;
  }
  // The pieces are ASCII already; folding again guards the guarantee, not the content.
  return shorten(asciiFold(subject), SUBJECT_MAX_CHARS);
}

function renderSms(alert: AlertRecord, name: string): string {
  const seen = momentOf(alert.at);
  const when = seen === undefined ? 'time unknown' : `seen ${seen.short}`;
  let sms: string;
  if (alert.event === 'filter.status_reminder') {
    const lasted = stillFor(alert);
    const fixed = `${name}: REMINDER filter status still "" (expected ""), for ${lasted}, ${when}`;
    const [to, expected] = fitPair(
      subjectStatus(alert.to),
      subjectStatus(alert.expected),
      SMS_MAX_CHARS - fixed.length,
    );
    sms = `${name}: REMINDER filter status still "${to}" (expected "${expected}"), for ${lasted}, ${when}`;
  } else if (alert.event === 'filter.status_changed') {
    const hasFrom = typeof alert.from === 'string';
    const tag = severityTag(alert);
    const fixed = hasFrom
      ? `${name}: ${tag}filter status is now "" (was ""), ${when}`
      : `${name}: ${tag}filter status is now "", ${when}`;
    const [to, from] = fitPair(
      subjectStatus(alert.to),
      hasFrom ? subjectStatus(alert.from) : '',
      SMS_MAX_CHARS - fixed.length,
    );
    sms = hasFrom
      ? `${name}: ${tag}filter status is now "${to}" (was "${from}"), ${when}`
      : `${name}: ${tag}filter status is now "${to}", ${when}`;
  } else {
    const sentence = SMS_SENTENCES.get(alert.event) ?? `alert ${shorten(unknownEventLabel(alert), 40)}`;
    const cycles = INCIDENT_EVENTS.has(alert.event) ? cyclesOf(alert) : undefined;
    // A recovery's count and detail describe the incident that ended, and say so.
    const recovery = RECOVERY_EVENTS.has(alert.event);
    const count =
      cycles !== undefined && cycles > 1
        ? recovery
          ? ` (after ${cycles} failing cycles)`
          : ` (${cycles} cycles in a row)`
        : '';
    const detail =
      typeof alert.detail === 'string' && alert.detail !== ''
        ? ` ${recovery ? 'Last error was: ' : ''}${shorten(foldBounded(alert.detail).trim(), MAX_DETAIL_IN_SMS)}`
        : '';
    sms = `${name}: ${sentence}${count}, ${when}.${detail}`;
  }
  return shorten(asciiFold(sms), SMS_MAX_CHARS);
}

function renderEmail(alert: AlertRecord, ctx: RenderContext): string {
  const event = eventName(alert);
  const header: string[] = [EMAIL_INTROS.get(event) ?? `Alert ${quoteText(event, MAX_ID_IN_EMAIL)}.`, ''];
  const seen = momentOf(alert.at);

  if (event === 'filter.status_changed') {
    header.push(field('New status', quoteStatus(alert.to)));
    header.push(field('Previous status', quoteStatus(alert.from)));
  } else if (event === 'filter.status_reminder') {
    header.push(field('Current status', quoteStatus(alert.to)));
    header.push(field('Expected status', quoteStatus(alert.expected)));
    header.push(field('Away for', stillFor(alert)));
  }
  if (alert.severity === 'high' || alert.severity === 'resolved') {
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
  } else if (INCIDENT_EVENTS.has(event)) {
    const cycles = cyclesOf(alert);
    header.push(field('Cycles in a row', cycles === undefined ? 'unknown' : String(cycles)));
  }
  if (typeof alert.detail === 'string' && alert.detail !== '') {
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
  const room = EMAIL_MAX_BYTES - utf8Length(headerText) - utf8Length(footerText) - 200;
  return [headerText, '', ...networkLines(ctx?.networks, room), footerText].join('\n');
}

function networkLines(networks: unknown, room: number): string[] {
  if (!Array.isArray(networks) || networks.length === 0) {
    return ['Latest network figures: none (no networks watched)'];
  }
  const lines = ['Latest network figures:'];
  let used = utf8Length(lines[0] ?? '') + 1;
  const shown = Math.min(networks.length, EMAIL_MAX_NETWORKS);
  let listed = 0;
  for (; listed < shown; listed++) {
    const block = networkBlock(networks[listed]);
    const size = block.reduce((total, line) => total + utf8Length(line) + 1, 0);
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

function renderAttributes(alert: AlertRecord): Record<string, string> {
  const attributes: Record<string, string> = { event: attributeValue(eventName(alert)) };
  if (typeof alert.from === 'string') {
    attributes['from'] = attributeValue(alert.from);
  }
  if (typeof alert.to === 'string') {
    attributes['to'] = attributeValue(alert.to);
  }
  if (alert.severity === 'high' || alert.severity === 'resolved') {
    attributes['severity'] = alert.severity;
  }
  return attributes;
}

function attributeValue(value: string): string {
  const valid = value.replace(NOT_XML_1_0, '');
  return valid === '' ? '(empty)' : shorten(valid, ATTRIBUTE_MAX_CHARS);
}

function foldCodePoint(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0x20 && code <= 0x7e) {
    return char;
  }
  const mapped = TYPOGRAPHIC.get(char);
  if (mapped !== undefined) {
    return mapped;
  }
  if (COMBINING_MARK.test(char)) {
    return '';
  }
  if (SPACE_LIKE.test(char)) {
    return ' ';
  }
  if (INVISIBLE.test(char)) {
    return '';
  }
  return '?';
}

/** Folds at most {@link MAX_FOLD_INPUT} characters; a longer text keeps a trailing `...` to show it was cut. */
function foldBounded(text: string): string {
  return asciiFold(shorten(text, MAX_FOLD_INPUT));
}

function subjectStatus(status: unknown): string {
  if (typeof status !== 'string') {
    return '(unknown)';
  }
  if (status === '') {
    return displayStatus(status);
  }
  const folded = foldBounded(status);
  // A status of spaces or invisible characters would otherwise vanish from a one-line text.
  return folded.trim() === '' ? '(blank)' : folded;
}

function monitorLabel(name: unknown): string {
  if (typeof name !== 'string') {
    return PRODUCT;
  }
  const folded = foldBounded(name).replace(/ +/g, ' ').trim();
  return folded === '' ? PRODUCT : shorten(folded, MAX_NAME_CHARS);
}

/** Shortens two texts to share `budget` characters: neither gets less than half unless the other needs less. */
function fitPair(first: string, second: string, budget: number): [string, string] {
  if (first.length + second.length <= budget) {
    return [first, second];
  }
  const half = Math.floor(budget / 2);
  if (first.length <= half) {
    return [first, shorten(second, budget - first.length)];
  }
  if (second.length <= budget - half) {
    return [shorten(first, budget - second.length), second];
  }
  return [shorten(first, half), shorten(second, budget - half)];
}

function eventName(alert: AlertRecord): string {
  return typeof alert.event === 'string' ? alert.event : String(alert.event);
}

/** An event name this version does not know (a newer writer, a corrupt record), printable and never blank. */
function unknownEventLabel(alert: AlertRecord): string {
  return foldBounded(eventName(alert)).trim() || '(unnamed)';
}

function cyclesOf(alert: AlertRecord): number | undefined {
  const cycles = alert.cycles;
  return typeof cycles === 'number' && Number.isSafeInteger(cycles) && cycles >= 0 ? cycles : undefined;
}

/** `HIGH: ` or `RESOLVED: ` before a status change's subject and SMS, when an expected status is set. */
function severityTag(alert: AlertRecord): string {
  return alert.severity === 'high' ? 'HIGH: ' : alert.severity === 'resolved' ? 'RESOLVED: ' : '';
}

/** How long a reminder's status has lasted, e.g. `2h 5m (since ...)`. */
function stillFor(alert: AlertRecord): string {
  const since = momentOf(alert.since);
  const seen = momentOf(alert.at);
  return since === undefined || seen === undefined ? 'unknown' : formatDuration(seen.ms - since.ms);
}

function previousDuration(alert: AlertRecord): string {
  const since = momentOf(alert.previousSince);
  const seen = momentOf(alert.at);
  if (since === undefined || seen === undefined) {
    return 'unknown';
  }
  return `${formatDuration(seen.ms - since.ms)} (since ${since.iso})`;
}

interface Moment {
  readonly ms: number;
  /** ISO-8601 UTC with milliseconds. */
  readonly iso: string;
  /** `Sun, 22 Nov 2026 10:04:05 UTC`. */
  readonly human: string;
  /** `2026-11-22 10:04 UTC`, for the SMS. */
  readonly short: string;
}

function momentOf(value: unknown): Moment | undefined {
  if (typeof value !== 'string') {
    return undefined;
  }
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) {
    return undefined;
  }
  const date = new Date(ms);
  const iso = date.toISOString();
  const parts = /^([+-]?\d+-\d\d-\d\d)T(\d\d:\d\d)/.exec(iso);
  return {
    ms,
    iso,
    human: date.toUTCString().replace(/GMT$/, 'UTC'),
    short: parts === null ? iso : `${parts[1]} ${parts[2]} UTC`,
  };
}

function unknownTime(value: unknown): string {
  return typeof value === 'string' && value !== ''
    ? `${quoteText(value, MAX_TIME_TEXT)} (not a valid time)`
    : 'unknown';
}

function field(label: string, value: string): string {
  return `${`${label}:`.padEnd(LABEL_WIDTH)}${value}`;
}

/** A status for the email: exact and JSON-quoted, so blanks, empties and control characters stay visible. */
function quoteStatus(status: unknown): string {
  if (typeof status !== 'string') {
    return 'unknown';
  }
  if (status.length <= MAX_STATUS_IN_EMAIL) {
    return JSON.stringify(status);
  }
  return `${JSON.stringify(shorten(status, MAX_STATUS_IN_EMAIL))} (shortened; ${status.length} characters in all)`;
}

function quoteText(text: string, max: number): string {
  return JSON.stringify(shorten(text, max));
}

/** Free text for the email: shortened, on one line, without control characters or lone surrogates. */
function cleanText(text: string, max: number): string {
  return shorten(text, max)
    .replace(EMAIL_WHITESPACE_CONTROL, ' ')
    .replace(EMAIL_CONTROL, '?')
    .replace(LONE_SURROGATE, '\uFFFD');
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      bytes += 1;
    } else if (code < 0x800) {
      bytes += 2;
    } else if (isHighSurrogate(code) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function twoUnits(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major}${majorUnit}` : `${major}${majorUnit} ${minor}${minorUnit}`;
}
