/**
 * The text of an alert: SNS subject, SMS, email and message attributes (docs/alerts.md).
 * Pure: times come from the alert record, never from the clock; nothing here throws.
 *
 * Each event's fixed texts are in `alert-events.ts` (one exhaustive record); what differs between families of
 * events (subject, SMS, email and chat lines, attributes, action, level) in one record per family,
 * `alert-families/<family>.ts`, looked up here; the email in `alert-email.ts`; folding and escaping in
 * `visible-text.ts`.
 */

import { stageAttribute } from '../incidents/escalation.ts';
import type { AlertRecord, NetworkFigures, RenderedAlert } from '../types.ts';
import { alertAction, alertIncident, renderDocuments } from './alert-documents.ts';
import { renderEmail } from './alert-email.ts';
import { familyOf } from './alert-families/index.ts';
import { ATTRIBUTE_MAX_CHARS, PRODUCT, SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from './alert-limits.ts';
import { momentOf } from './alert-time.ts';
import { asciiFold, shorten } from './visible-text.ts';

export {
  ATTRIBUTE_MAX_CHARS,
  EMAIL_MAX_BYTES,
  EMAIL_MAX_FIGURES,
  EMAIL_MAX_NETWORKS,
  SMS_MAX_CHARS,
  SUBJECT_MAX_CHARS,
} from './alert-limits.ts';
export { formatDuration } from './alert-time.ts';
export { asciiFold, shorten } from './visible-text.ts';

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

const MAX_NAME_CHARS = 30;
/** Raw characters folded for a one-line text; anything longer is cut first so a huge text costs nothing. */
const MAX_FOLD_INPUT = 1000;

/** Everything XML 1.0 does not allow (lone surrogates included, as the `u` flag matches them as code points). */
const NOT_XML_1_0 = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Renders an alert for SNS. Never throws, whatever the record holds.
 *
 * - `subject`: printable ASCII, 1 to 99 characters, `[name] ...`; for a status change it names both statuses
 *   (folded to ASCII, hidden characters such as U+200B or U+202E as `<U+200B>`, the empty status as
 *   `(empty)`, one of spaces as `(blank)`), each shortened fairly so the whole fits and the arrow stays. Two
 *   different statuses never look the same: when their folded forms are equal, both are shown with every
 *   non-ASCII character escaped and the subject says `(look-alike)`.
 * - `sms`: printable ASCII, at most 160 characters, names the new status (the same way; look-alike statuses
 *   with the sentence that they differ only in invisible or look-alike characters).
 * - `email` (and `default`, the same text): plain text with the exact statuses JSON-quoted (and escaped when
 *   they hold non-ASCII characters), when the change was seen, how long the previous status lasted,
 *   confirmations or failure cycles, the detail, and the latest figures of each network (at most 50 networks
 *   and 20 figures each); hidden characters from the API as `<U+XXXX>`; at most `EMAIL_MAX_BYTES` bytes.
 * - Rule alerts (`network.rule_*`): the subject and SMS name the network, the rule and the value against the
 *   threshold (`net 2: pps triggered (traffic.in_pps 90000 > 50000)`); the email the rule as written, the
 *   values of its last cycles and the baseline (see `rule-alert-text.ts`).
 * - `https` and `sqs`: the Chatbot document and the plain JSON document (see `alert-documents.ts`).
 * - `attributes`: `event` always, `from` and `to` when the record has them (`rule`, `network` and `severity`
 *   for rule alerts, `action` for alerts that open or close an incident, `incident` and `stage` for every alert
 *   of an incident), exact except for what SNS refuses:
 *   an empty value becomes `(empty)`, characters not allowed in XML 1.0 (controls other than tab/LF/CR, lone
 *   surrogates, U+FFFE/U+FFFF) are removed (a value left empty by that is `(empty)` too), and a value longer
 *   than 1024 characters is shortened with `...`.
 */
export function renderAlert(alert: AlertRecord, ctx: RenderContext): RenderedAlert {
  try {
    const name = monitorLabel(ctx?.monitorName);
    const email = renderEmail(alert, ctx);
    const subject = renderSubject(alert, name);
    const sms = renderSms(alert, name);
    const documents = renderDocuments(alert, { monitor: name, subject, sms });
    return { subject, sms, email, default: email, ...documents, attributes: renderAttributes(alert) };
  } catch {
    // Defensive only (a record whose fields are getters that throw); the publisher must always get a message.
    const event = typeof alert?.event === 'string' ? alert.event : 'unknown';
    const label = shorten(asciiFold(shorten(event, 100)), 60);
    const text = `${PRODUCT}: alert ${label} (its details could not be rendered)`;
    const subject = shorten(`[${PRODUCT}] Alert: ${label}`, SUBJECT_MAX_CHARS);
    const sms = shorten(text, SMS_MAX_CHARS);
    return {
      subject,
      sms,
      email: text,
      default: text,
      ...renderDocuments({ seq: 0, event, at: '' } as AlertRecord, { monitor: PRODUCT, subject, sms }),
      attributes: { event: attributeValue(event) },
    };
  }
}

function renderSubject(alert: AlertRecord, name: string): string {
  const subject = familyOf(alert).subject(alert, `[${name}] `);
  // The pieces are ASCII already; folding again guards the guarantee, not the content.
  return shorten(asciiFold(subject), SUBJECT_MAX_CHARS);
}

function renderSms(alert: AlertRecord, name: string): string {
  const seen = momentOf(alert.at);
  const when = seen === undefined ? 'time unknown' : `seen ${seen.short}`;
  return shorten(asciiFold(familyOf(alert).sms(alert, name, when)), SMS_MAX_CHARS);
}

function renderAttributes(alert: AlertRecord): Record<string, string> {
  const event: unknown = alert.event;
  const attributes: Record<string, string> = {
    event: attributeValue(typeof event === 'string' ? event : String(event)),
  };
  if (typeof alert.from === 'string') {
    attributes['from'] = attributeValue(alert.from);
  }
  if (typeof alert.to === 'string') {
    attributes['to'] = attributeValue(alert.to);
  }
  if (alert.severity === 'high' || alert.severity === 'resolved') {
    attributes['severity'] = alert.severity;
  }
  const action = alertAction(alert);
  if (action !== undefined) attributes['action'] = action;
  // Every alert of an incident, whatever its kind: the id its `sqs` document carries, and its escalation stage,
  // for subscription filter policies (docs/alerts.md, docs/acknowledge.md).
  const incident = alertIncident(alert);
  if (incident !== undefined) attributes['stage'] = stageAttribute(alert.stage);
  // The family's own: a rule's name and network.
  for (const [key, value] of Object.entries(familyOf(alert).attributes(alert))) {
    attributes[key] = attributeValue(value);
  }
  if (incident !== undefined) attributes['incident'] = attributeValue(incident);
  return attributes;
}

function attributeValue(value: string): string {
  const valid = value.replace(NOT_XML_1_0, '');
  return valid === '' ? '(empty)' : shorten(valid, ATTRIBUTE_MAX_CHARS);
}

function monitorLabel(name: unknown): string {
  if (typeof name !== 'string') {
    return PRODUCT;
  }
  const folded = asciiFold(shorten(name, MAX_FOLD_INPUT)).replace(/ +/g, ' ').trim();
  return folded === '' ? PRODUCT : shorten(folded, MAX_NAME_CHARS);
}
