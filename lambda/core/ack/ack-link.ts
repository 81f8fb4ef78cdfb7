/**
 * The acknowledge link in alert texts (docs/acknowledge.md, The link): which alerts carry it and where it goes
 * in their email and chat texts. Pure: the link (already signed, by the publisher stage in
 * `adapters/ack-link-publisher.ts`) is given as data; nothing here reads a key or the clock.
 */
import { CHATBOT_DESCRIPTION_MAX_CHARS } from '../alerts/alert-documents.ts';
import { EMAIL_MAX_BYTES } from '../alerts/alert-limits.ts';
import type { RenderedAlert } from '../types.ts';

/**
 * The alerts that carry the link: those that open an incident or remind of it (a reminder, and an escalation,
 * which reminds the next line), a rule's (across networks or on one) or a blind spot's. Not the update, the acknowledgement or the end:
 * nothing to take there.
 */
export const ACK_LINK_EVENTS: ReadonlySet<string> = new Set([
  'incident.opened',
  // A rule's trigger on one network opens that network's incident (`groupBy=none`; recorded only, never
  // published, when it joined the rule's incident across networks).
  'network.rule_triggered',
  // The blind spots open incidents too (CONTRACT §13); their reminders and escalations are `incident.*` above.
  'network.unreachable',
  'network.rule_unreadable',
  'incident.reminder',
  'incident.escalated',
]);

/** The link to the acknowledge function for a token: `AckUrl?t=TOKEN` (the token is URL-safe as it is). */
export function ackLinkUrl(baseUrl: string, token: string): string {
  const url = new URL(baseUrl);
  url.searchParams.set('t', token);
  return url.toString();
}

/** The incident an alert that should carry a link is about, or undefined (any other alert). */
export function ackLinkIncident(rendered: RenderedAlert): string | undefined {
  if (!ACK_LINK_EVENTS.has(rendered.attributes['event'] ?? '')) return undefined;
  try {
    const document = JSON.parse(rendered.sqs) as { incident?: unknown };
    return typeof document.incident === 'string' && document.incident !== '' ? document.incident : undefined;
  } catch {
    return undefined;
  }
}

const EMAIL_LINE = 'Acknowledge (no more reminders or escalation; confirm on the page):';

/**
 * `rendered` with `link` in its email (and `default`) text after the first paragraph, and in its chat
 * description after the first line, each still within its limit (the email's end, the chat's last lines give
 * way). The subject, SMS, `sqs` document and attributes are unchanged.
 */
export function withAckLink(rendered: RenderedAlert, link: string): RenderedAlert {
  const email = emailWithLink(rendered.email, link);
  return {
    ...rendered,
    email,
    default: rendered.default === rendered.email ? email : emailWithLink(rendered.default, link),
    https: chatWithLink(rendered.https, link),
  };
}

function emailWithLink(text: string, link: string): string {
  const cut = text.indexOf('\n\n');
  const head = cut < 0 ? text : text.slice(0, cut);
  const tail = cut < 0 ? '' : text.slice(cut);
  const joined = `${head}\n\n${EMAIL_LINE}\n${link}${tail}`;
  if (Buffer.byteLength(joined, 'utf8') <= EMAIL_MAX_BYTES) return joined;
  // Past the limit (only an email at its limit already): the end gives way, whole characters only.
  const marker = '\n(cut to fit)';
  const room = EMAIL_MAX_BYTES - Buffer.byteLength(marker, 'utf8');
  return `${Buffer.from(joined, 'utf8')
    .subarray(0, room)
    .toString('utf8')
    .replace(/\uFFFD+$/, '')}${marker}`;
}

function chatWithLink(https: string, link: string): string {
  let document: { content?: { description?: unknown } };
  try {
    document = JSON.parse(https) as typeof document;
  } catch {
    return https;
  }
  const description = document.content?.description;
  if (typeof description !== 'string') return https;
  const lines = description.split('\n');
  // The sentence, then the link on a line of its own (a plain URL: Slack and Teams both make it a link).
  lines.splice(1, 0, '', `*Acknowledge:* ${link}`);
  while (lines.join('\n').length > CHATBOT_DESCRIPTION_MAX_CHARS && lines.length > 3) {
    lines.splice(lines.length - 2, 1);
  }
  return JSON.stringify({ ...document, content: { ...document.content, description: lines.join('\n') } });
}
