import { describe, expect, it } from 'vitest';
import { ackLinkIncident, ackLinkUrl, withAckLink } from '../../lambda/core/ack/ack-link.ts';
import { CHATBOT_DESCRIPTION_MAX_CHARS } from '../../lambda/core/alerts/alert-documents.ts';
import { EMAIL_MAX_BYTES } from '../../lambda/core/alerts/alert-limits.ts';
import type { RenderedAlert } from '../../lambda/core/types.ts';

const LINK = ackLinkUrl('https://abc.lambda-url.us-east-1.on.aws/', 'a1.kid.tok');
const rendered = (event: string, email: string, description: string): RenderedAlert =>
  ({
    subject: '[shieldwatch] x',
    sms: 'sms',
    email,
    default: email,
    https: JSON.stringify({ version: '1.0', content: { title: 't', description } }),
    sqs: JSON.stringify({ event, incident: 'flood@2026-05-01T10:00:00.000Z' }),
    attributes: { event },
  }) as unknown as RenderedAlert;

describe('the acknowledge link in alert texts (pure)', () => {
  it('the link is AckUrl?t=TOKEN', () => {
    expect(LINK).toBe('https://abc.lambda-url.us-east-1.on.aws/?t=a1.kid.tok');
  });

  it('only alerts that open or remind of an incident name one', () => {
    for (const event of [
      'incident.opened',
      'incident.reminder',
      'incident.escalated',
      'network.unreachable',
      'network.rule_unreadable',
    ]) {
      expect(ackLinkIncident(rendered(event, 'e', 'd')), event).toBe('flood@2026-05-01T10:00:00.000Z');
    }
    for (const event of [
      'incident.updated',
      'incident.resolved',
      'incident.acknowledged',
      'network.recovered',
      'network.rule_readable',
    ]) {
      expect(ackLinkIncident(rendered(event, 'e', 'd')), event).toBeUndefined();
    }
  });

  it('an email and a chat description at their limits stay within them, the link kept', () => {
    // Prepare
    const email = `First paragraph.\n\n${'x'.repeat(EMAIL_MAX_BYTES - 30)}\u00e9\u00e9`;
    const lines = [
      'sentence',
      '',
      ...Array.from({ length: 200 }, (_, i) => `*F${i}:* \`${'v'.repeat(10)}\``),
    ];
    const description = lines.join('\n').slice(0, CHATBOT_DESCRIPTION_MAX_CHARS);

    // Act
    const linked = withAckLink(rendered('incident.opened', email, description), LINK);

    // Assess
    expect(Buffer.byteLength(linked.email, 'utf8')).toBeLessThanOrEqual(EMAIL_MAX_BYTES);
    expect(linked.email.split('\n\n')[1]).toContain(LINK);
    expect(linked.email).not.toContain('\uFFFD');
    expect(linked.default).toBe(linked.email);
    const chat = JSON.parse(linked.https).content.description as string;
    expect(chat.length).toBeLessThanOrEqual(CHATBOT_DESCRIPTION_MAX_CHARS);
    expect(chat.split('\n').slice(0, 3)).toEqual(['sentence', '', `*Acknowledge:* ${LINK}`]);
    expect(linked.sms).toBe('sms');
    expect(linked.sqs).toBe(rendered('incident.opened', email, description).sqs);
  });
});
