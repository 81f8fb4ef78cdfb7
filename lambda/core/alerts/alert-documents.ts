/**
 * The two machine-readable texts of every published alert (docs/channels.md): `https`, the AWS Chatbot
 * custom-notification document that Slack and Microsoft Teams channels receive, and `sqs`, the alert as plain
 * JSON for the queue that feeds PagerDuty and webhooks, with a stable `incident` id and an `action`.
 * Pure: built from the alert record and the texts already rendered for it; nothing here throws.
 */

import type { Digest } from '../digest/digest.ts';
import type { DigestPeriod } from '../digest/digest-schedule.ts';
import type { AlertRecord, Severity } from '../types.ts';
import { type AlertAction, type AlertLevel, familyOf } from './alert-families/index.ts';
import { sinceOf } from './alert-since.ts';
import { momentOf } from './alert-time.ts';
import type { DocumentPeak } from './incident-alert-text.ts';
import { escapeHidden, shorten } from './visible-text.ts';

/** Longest Chatbot notification title (the custom-notification schema allows 250 characters). */
export const CHATBOT_TITLE_MAX_CHARS = 250;
/**
 * Longest Chatbot notification description: well inside the custom-notification schema, and within the
 * 3,000 characters of one Slack text block.
 */
export const CHATBOT_DESCRIPTION_MAX_CHARS = 3000;
/** Longest value in a Chatbot `additionalContext` entry and in a text field of the `sqs` document. */
export const DOCUMENT_FIELD_MAX_CHARS = 1024;
/** Longest `incident` id: PagerDuty's `dedup_key` allows 255 characters. */
export const INCIDENT_MAX_CHARS = 255;
/** Version of the `sqs` document's layout; a field removed or changed in meaning raises it. */
export const ALERT_DOCUMENT_VERSION = 1;

export type { AlertAction, AlertLevel } from './alert-families/index.ts';

/** The `sqs` document: the alert as plain JSON (docs/channels.md, The `sqs` document). */
export interface AlertDocument {
  readonly version: typeof ALERT_DOCUMENT_VERSION;
  readonly event: string;
  /** The monitor's name as the subject shows it. */
  readonly monitor: string;
  readonly at: string;
  /**
   * When the cycle that saw what the alert is about asked the API (CONTRACT §18): the metric `TimeToAlert` runs
   * from it to the publish. The same time as `at` for an alert made by the cycle that observed it.
   */
  readonly observedAt?: string;
  /** Present on alerts that open or close an incident. */
  readonly action?: AlertAction;
  /** Shared by an incident's start, its reminders and its end. */
  readonly incident?: string;
  readonly level: AlertLevel;
  /** The subject: ASCII, at most 99 characters. */
  readonly summary: string;
  /** The SMS text: ASCII, at most 160 characters. */
  readonly text: string;
  readonly severity?: Severity;
  readonly from?: string;
  readonly to?: string;
  readonly expected?: string;
  readonly since?: string;
  readonly previousSince?: string;
  readonly cycles?: number;
  readonly detail?: string;
  readonly rule?: string;
  readonly network?: string;
  readonly value?: number | boolean;
  readonly threshold?: number | boolean;
  readonly baseline?: number;
  readonly ruleText?: string;
  readonly values?: readonly (number | boolean)[];
  /** Network health alerts: the networks it is about, each with how its request failed (docs/alerts.md, Blind spots). */
  readonly networks?: readonly DocumentNetwork[];
  /** Network health alerts: the networks of the incident still failing (or unreadable) after it. */
  readonly remaining?: readonly string[];
  /** `network.rule_unreadable` / `network.rule_readable`: the rule's path. */
  readonly path?: string;
  readonly seq?: number;
  /** `incident.*`: each listed network's peak (and latest value), worst first (incident-alert-text.ts). */
  readonly peaks?: readonly DocumentPeak[];
  /** `incident.*`: how many networks the alert is about, and how many the incident has had in all. */
  readonly networkCount?: number;
  readonly networksTotal?: number;
  /** `incident.*` of a rule across networks: the network that opened it and the last to join, with when. */
  readonly spread?: {
    readonly first: { readonly network: string; readonly at: string };
    readonly last: { readonly network: string; readonly at: string };
  };
  readonly openedAt?: string;
  readonly resolvedAt?: string;
  /** `incident.*`: the incident's escalation stage (1 until the first escalation; docs/acknowledge.md). */
  readonly stage?: number;
  /** `incident.acknowledged`: who acknowledged (an IAM principal, an OS user, or `link`). */
  readonly acknowledgedBy?: string;
  /** `monitor.digest`: the period the digest covers (CONTRACT §19). */
  readonly period?: DigestPeriod;
  /** `monitor.digest`: the period at a glance, as `shieldwatch digest --format json` prints it. */
  readonly digest?: Digest;
  /** `monitor.digest`: the hosted status page's address, when the stack has one. */
  readonly page?: string;
  /** `monitor.digest`: sent by a later run after the one due at the period's end was missed. */
  readonly late?: true;
}

/** One network of a network health alert in the `sqs` document. */
export interface DocumentNetwork {
  readonly network: string;
  readonly since?: string;
  readonly cycles?: number;
  readonly errorKind?: string;
  readonly httpStatus?: number;
  readonly error?: string;
}

/** The texts of the alert that the documents repeat. */
export interface DocumentTexts {
  /** The monitor's name as the subject shows it. */
  readonly monitor: string;
  readonly subject: string;
  readonly sms: string;
}

/** The two documents, each as its JSON text. */
export interface AlertDocuments {
  readonly https: string;
  readonly sqs: string;
}

/** Most networks a document lists (an SNS message holds 256 KB for every protocol's text together). */
const MAX_DOCUMENT_NETWORKS = 100;

const MAX_RULE_TEXT_CHARS = 2000;
const MAX_VALUES = 100;
const MAX_CHAT_VALUE_CHARS = 200;

/** Whether the alert opens an incident, closes one, or neither (a reminder, a change without an expected status, the test). */
export function alertAction(alert: AlertRecord): AlertAction | undefined {
  return familyOf(alert).action(alert);
}

/** See {@link AlertLevel}. */
export function alertLevel(alert: AlertRecord): AlertLevel {
  const action = alertAction(alert);
  // An end, or someone taking the incident (acknowledge): nothing more to do.
  if (action === 'resolve' || action === 'acknowledge') return 'info';
  if (alert.severity === 'high') return 'critical';
  return familyOf(alert).level(alert, action);
}

/**
 * The incident id of the alert: the record's (decide and the rules give every incident one), at most
 * {@link INCIDENT_MAX_CHARS} characters. A record written before alerts carried ids gets the id its incident
 * would have had where the record says enough (a recovery names when the incident began), else one of its own.
 */
export function alertIncident(alert: AlertRecord): string | undefined {
  const own = alert.incident;
  if (typeof own === 'string' && own !== '') return boundedIncident(own);
  const derived = familyOf(alert).derivedIncident(alert, alertAction(alert));
  return derived === undefined ? undefined : boundedIncident(derived);
}

/** An id within PagerDuty's 255 characters: a longer one keeps its start and a hash of the whole. */
function boundedIncident(id: string): string {
  if (id.length <= INCIDENT_MAX_CHARS) return id;
  const hash = fnv1a(id);
  return `${shorten(id, INCIDENT_MAX_CHARS - hash.length - 1).replace(/\.\.\.$/, '')}#${hash}`;
}

/** 64-bit FNV-1a of the UTF-16 code units, as 16 hex digits: stable across runs and processes. */
function fnv1a(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

/** The `https` and `sqs` documents of an alert. Never throws: a record that cannot be read gets minimal ones. */
export function renderDocuments(alert: AlertRecord, texts: DocumentTexts): AlertDocuments {
  try {
    const document = queueDocument(alert, texts);
    return { https: JSON.stringify(chatbotDocument(alert, document)), sqs: JSON.stringify(document) };
  } catch {
    const event = typeof alert?.event === 'string' ? shorten(alert.event, 100) : 'unknown';
    const minimal: AlertDocument = {
      version: ALERT_DOCUMENT_VERSION,
      event,
      monitor: texts.monitor,
      at: typeof alert?.at === 'string' ? shorten(alert.at, 64) : '',
      level: 'info',
      summary: texts.subject,
      text: texts.sms,
    };
    const chat = {
      version: '1.0',
      source: 'custom',
      content: {
        textType: 'client-markdown',
        title: inertLine(texts.subject, CHATBOT_TITLE_MAX_CHARS),
        description: inertLine(texts.sms, CHATBOT_DESCRIPTION_MAX_CHARS),
      },
      metadata: { eventType: event, additionalContext: { event, monitor: texts.monitor } },
    };
    return { https: JSON.stringify(chat), sqs: JSON.stringify(minimal) };
  }
}

/** The `sqs` document of an alert (docs/channels.md). */
export function queueDocument(alert: AlertRecord, texts: DocumentTexts): AlertDocument {
  const action = alertAction(alert);
  const incident = alertIncident(alert);
  const text = (value: unknown, max = DOCUMENT_FIELD_MAX_CHARS) =>
    typeof value === 'string' ? shorten(value, max) : undefined;
  const scalar = (value: unknown) =>
    typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ? value : undefined;
  const values = Array.isArray(alert.values)
    ? alert.values.slice(-MAX_VALUES).filter((v) => scalar(v) !== undefined)
    : undefined;
  const document: Record<string, unknown> = {
    version: ALERT_DOCUMENT_VERSION,
    event: text(alert.event, 100) ?? String(alert.event),
    monitor: texts.monitor,
    at: text(alert.at, 64) ?? '',
    observedAt:
      typeof alert.at === 'string' && Number.isFinite(Date.parse(alert.at)) ? text(alert.at, 64) : undefined,
    action,
    incident,
    level: alertLevel(alert),
    summary: texts.subject,
    text: texts.sms,
    severity: familyOf(alert).severity(alert),
    from: text(alert.from),
    to: text(alert.to),
    expected: text(alert.expected),
    since: text(sinceOf(alert), 64),
    previousSince: text(alert.previousSince, 64),
    cycles: Number.isSafeInteger(alert.cycles) ? alert.cycles : undefined,
    detail: text(alert.detail),
    rule: text(alert.rule),
    network: text(alert.network),
    value: scalar(alert.value),
    threshold: scalar(alert.threshold),
    baseline: typeof alert.baseline === 'number' ? scalar(alert.baseline) : undefined,
    ruleText: text(alert.ruleText, MAX_RULE_TEXT_CHARS),
    values,
    networks: Array.isArray(alert.members)
      ? alert.members
          .filter((m) => typeof m === 'object' && m !== null && typeof m.network === 'string')
          .slice(0, MAX_DOCUMENT_NETWORKS)
          .map((m) =>
            Object.fromEntries(
              Object.entries({
                network: text(m.network),
                since: text(m.since, 64),
                cycles: Number.isSafeInteger(m.cycles) && (m.cycles ?? 0) >= 1 ? m.cycles : undefined,
                errorKind: text(m.errorKind, 40),
                httpStatus: Number.isSafeInteger(m.httpStatus) ? m.httpStatus : undefined,
                error: text(m.error),
              }).filter(([, value]) => value !== undefined),
            ),
          )
      : undefined,
    remaining: Array.isArray(alert.remaining)
      ? alert.remaining
          .filter((n): n is string => typeof n === 'string')
          .slice(0, MAX_DOCUMENT_NETWORKS)
          .map((n) => shorten(n, DOCUMENT_FIELD_MAX_CHARS))
      : undefined,
    path: text(alert.path),
    seq: Number.isSafeInteger(alert.seq) ? alert.seq : undefined,
    // The family's own: an incident across networks' networks, their peaks and the totals.
    ...familyOf(alert).documentFields(alert),
  };
  return Object.fromEntries(
    Object.entries(document).filter(([, value]) => value !== undefined),
  ) as unknown as AlertDocument;
}

/** The fields of the `sqs` document that the Chatbot document repeats in `additionalContext`. */
const CONTEXT_FIELDS = [
  'event',
  'monitor',
  'at',
  'action',
  'incident',
  'level',
  'severity',
  'from',
  'to',
  'rule',
  'network',
  'value',
] as const;

/** The `https` document: AWS Chatbot's custom-notification format (docs/channels.md). */
export function chatbotDocument(alert: AlertRecord, document: AlertDocument) {
  const additionalContext: Record<string, string> = {};
  for (const key of CONTEXT_FIELDS) {
    const value = document[key];
    if (value !== undefined) additionalContext[key] = String(value);
  }
  const keywords = [
    document.event,
    document.level,
    ...(document.action === undefined ? [] : [document.action]),
  ];
  return {
    version: '1.0',
    source: 'custom',
    content: {
      textType: 'client-markdown',
      title: inertLine(document.summary, CHATBOT_TITLE_MAX_CHARS),
      description: chatDescription(alert, document),
      keywords: keywords.map((word) => fitChat(word, 75)),
    },
    metadata: {
      // One thread per incident: its start, reminders and end read together.
      ...(document.incident === undefined ? {} : { threadId: document.incident }),
      summary: fitChat(document.summary, CHATBOT_TITLE_MAX_CHARS),
      eventType: document.event,
      additionalContext,
    },
  };
}

/**
 * The description: the SMS sentence (made inert, see {@link inertLine}), then one `*Label:* value` line per
 * field, values in code spans with hidden characters shown as `<U+XXXX>`. Lines that do not fit are left
 * out, and the last line says so.
 */
function chatDescription(alert: AlertRecord, document: AlertDocument): string {
  const lines: string[] = [inertLine(document.text, CHATBOT_DESCRIPTION_MAX_CHARS), ''];
  const field = (label: string, value: string) => `*${chatText(label)}:* ${chatCode(value)}`;
  const family = familyOf(alert);
  lines.push(...family.chatLines(alert, field));
  const seen = momentOf(alert.at);
  lines.push(field('Seen', seen === undefined ? String(document.at) : seen.iso));
  if (document.severity !== undefined) lines.push(field('Severity', document.severity));
  lines.push(...family.chatTail(document, field));
  if (document.detail !== undefined) lines.push(field('Detail', escapeHidden(document.detail, 'space')));
  if (document.incident !== undefined) {
    lines.push(
      field(
        'Incident',
        `${escapeHidden(document.incident)}${document.action === undefined ? '' : ` (${document.action})`}`,
      ),
    );
  }
  lines.push(field('Event', document.event), field('Monitor', document.monitor));
  return fitLines(lines, CHATBOT_DESCRIPTION_MAX_CHARS);
}

/** Whole lines up to `max` characters; when some are left out, the last line kept says so. */
function fitLines(lines: readonly string[], max: number): string {
  const more = '_(more in the email)_';
  const all = lines.join('\n');
  if (all.length <= max) return all;
  const kept: string[] = [];
  let used = more.length;
  for (const line of lines) {
    if (used + line.length + 1 > max) break;
    kept.push(line);
    used += line.length + 1;
  }
  return [...kept, more].join('\n');
}

/**
 * Text for chat markdown: `&` and `<` as entities, so that nothing from the API can mention a channel
 * (`<!channel>`), link or ping anyone (every such sequence starts with `<`); the chat shows the characters.
 */
function chatText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** A value in a code span (no formatting inside), a backtick in it as `<U+0060>`, its text at most 200 characters. */
function chatCode(value: string): string {
  return `\`${codeText(shorten(value, MAX_CHAT_VALUE_CHARS))}\``;
}

/** The inside of a code span: a backtick (which would end it) as `<U+0060>`, then {@link chatText}. */
function codeText(text: string): string {
  return chatText(text.replace(/`/g, '<U+0060>'));
}

/**
 * A plain-text line (the subject, the SMS sentence: our words with values from the API in them) made inert
 * for chat markdown, within `max` characters: every word that holds a character Slack or Teams could act on
 * (emphasis, links, mentions, code, emoji, a URL or a domain, a list or quote marker at the line's start) is
 * shown in a code span, consecutive ones in one span; plain words (letters, digits and `'%=+-`, numbers and
 * times such as `1.5` and `10:04`, with quotes, brackets and punctuation around them) stay as they are. So
 * a status `[login](https://evil.example)` or `*URGENT* _now_` is shown, never obeyed, whichever event's
 * text carries it. A line cut to fit ends with `...` after a closed span.
 */
export function inertLine(text: string, max: number): string {
  const pieces: Array<{ code: boolean; text: string }> = [];
  const add = (code: boolean, piece: string) => {
    if (piece === '') return;
    const last = pieces[pieces.length - 1];
    const beforeLast = pieces[pieces.length - 2];
    if (last !== undefined && last.code === code && !code) last.text += piece;
    else if (code && last !== undefined && /^ +$/.test(last.text) && beforeLast?.code) {
      // Two spans a space apart are one: `*URGENT now*` must not become two spans with markup between.
      pieces.pop();
      beforeLast.text += last.text + piece;
    } else if (code && last?.code) last.text += piece;
    else pieces.push({ code, text: piece });
  };
  for (const word of text.replace(/[\r\n]+/g, ' ').split(/( +)/)) {
    if (word === '' || word.startsWith(' ') || isPlainWord(word, pieces.length === 0)) {
      add(false, word);
      continue;
    }
    // Opening and closing punctuation stays outside the span, as the sentence's own.
    const lead = /^[("]*/.exec(word)![0];
    const trail = /["),.;:?!]*$/.exec(word.slice(lead.length))![0];
    add(false, lead);
    add(true, word.slice(lead.length, word.length - trail.length));
    add(false, trail);
  }
  const render = (piece: { code: boolean; text: string }) =>
    piece.code ? `\`${codeText(piece.text)}\`` : chatText(piece.text);
  const whole = pieces.map(render).join('');
  if (whole.length <= max) return whole;
  const ellipsis = '...';
  let out = '';
  for (const piece of pieces) {
    const shown = render(piece);
    if (out.length + shown.length + ellipsis.length <= max) {
      out += shown;
      continue;
    }
    // The piece that does not fit: as much of it as fits, a span closed again, then the ellipsis.
    const escaped = piece.code ? codeText : chatText;
    const frame = piece.code ? 2 : 0;
    let part = '';
    for (const char of piece.text) {
      const next = escaped(char);
      if (out.length + frame + part.length + next.length + ellipsis.length > max) break;
      part += next;
    }
    if (part !== '') out += piece.code ? `\`${part}\`` : part;
    break;
  }
  return out + ellipsis;
}

/** Words whose characters no chat markdown acts on: letters, digits and `'%=+-`, or a number or time. */
const PLAIN_CORE = /^(?:[A-Za-z0-9'%=+-]*|\d+(?:[.:]\d+)+)$/;

/**
 * Whether a word can stand outside a code span: a plain core ({@link PLAIN_CORE}) between opening `("` and
 * closing `"),.;:?!`; a bracketed name such as `[edge-eu]` as the first word (nothing after it: `](` makes a
 * link, `]:` a link definition); `->`. At the line's start, nothing that opens a list, a quote or a heading.
 */
function isPlainWord(word: string, first: boolean): boolean {
  if (first && /^(?:[-+=#>]|\d+[.)])/.test(word)) return false;
  if (word === '->' && !first) return true;
  // Only as the line's first word (the monitor's `[name]`): after another word, a `[` left open earlier could
  // pair with its `]` (`[* [x]`).
  if (first && /^\[[A-Za-z0-9-]+\]$/.test(word)) return true;
  const core = word.replace(/^[("]+/, '').replace(/["),.;:?!]+$/, '');
  return PLAIN_CORE.test(core);
}

/** {@link chatText} within `max` characters, cut before an entity rather than through one. */
function fitChat(text: string, max: number): string {
  const escaped = chatText(text);
  if (escaped.length <= max) return escaped;
  let out = '';
  for (const char of text) {
    const piece = chatText(char);
    if (out.length + piece.length > max - 3) break;
    out += piece;
  }
  return `${out}...`;
}
