/**
 * The `digest` family (CONTRACT §19, docs/digest.md): `monitor.digest`, the period at a glance the stack
 * publishes once per day or week to those who do not watch the alerts. It opens and closes nothing (no
 * `action`), is never silenced, and its email is the digest's text (`digest-text.ts`, what `shieldwatch digest`
 * prints) with the hosted page's address; its SMS one line of counts; its `sqs` document the digest object.
 */
import { type DigestAlertBody, decodeDigestBody, localPeriod } from '../../digest/digest-body.ts';
import { digestPercent, digestSpread, renderDigestText } from '../../digest/digest-text.ts';
import type { DigestAlertRecord } from '../../types.ts';
import { type AlertFamily, NOTHING, plainSubject, type TextField } from './family.ts';

const bodyOf = (alert: DigestAlertRecord): DigestAlertBody | undefined => decodeDigestBody(alert.digest);

const everyWord = (body: DigestAlertBody): string => (body.period.every === 'weekly' ? 'weekly' : 'daily');

/** `3 opened, 2 resolved, 1 open`. */
function counts(body: DigestAlertBody): string {
  const i = body.digest.incidents;
  return `${i.opened} opened, ${i.resolved} resolved, ${i.openAtEnd} open`;
}

function pageLines(body: DigestAlertBody, field: TextField): string[] {
  if (body.page === undefined) return [];
  return [
    field(
      'Status page',
      body.page.mode === 'private'
        ? `${body.page.url} (private: open it with a link from shieldwatch page-link)`
        : body.page.url,
    ),
  ];
}

function periodLine(body: DigestAlertBody, field: TextField): string {
  return field('Period', `${localPeriod(body)} (${everyWord(body)})`);
}

const lateLines = (body: DigestAlertBody, field: TextField): string[] =>
  body.late === true
    ? [field('Sent late', 'the run due at the end of the period was missed; this one made it good')]
    : [];

/** `monitor.digest`. */
export const DIGEST_FAMILY: AlertFamily<DigestAlertRecord> = {
  subject: (alert, prefix) => {
    const body = bodyOf(alert);
    if (body === undefined) return plainSubject(alert, prefix);
    const every = everyWord(body);
    return `${prefix}${every[0]?.toUpperCase()}${every.slice(1)} digest ${body.period.label}: ${counts(body)}`;
  },
  sms: (alert, name, when) => {
    const body = bodyOf(alert);
    if (body === undefined) return `${name}: digest, ${when}.`;
    const api = body.digest.availability.share;
    return `${name}: ${everyWord(body)} digest to ${body.period.label}: incidents ${counts(body)}; API ${digestPercent(api)} answered.`;
  },
  emailLines: (alert, field) => {
    const body = bodyOf(alert);
    if (body === undefined) return [];
    return [
      periodLine(body, field),
      ...lateLines(body, field),
      ...pageLines(body, field),
      '',
      ...renderDigestText(body.digest).split('\n'),
      '',
    ];
  },
  emailTail: NOTHING.lines,
  chatLines: (alert, field) => {
    const body = bodyOf(alert);
    if (body === undefined) return [];
    const r = body.digest.response;
    return [
      periodLine(body, field),
      field('Incidents', counts(body)),
      field('Time to acknowledge', digestSpread(r.timeToAcknowledge)),
      field('Time to resolve', digestSpread(r.timeToResolve)),
      field('API availability', `${digestPercent(body.digest.availability.share)} of cycles answered`),
      ...lateLines(body, field),
      ...pageLines(body, field),
    ];
  },
  chatTail: NOTHING.lines,
  attributes: (alert): Readonly<Record<string, string>> => {
    const body = bodyOf(alert);
    return body === undefined ? {} : { period: everyWord(body) };
  },
  action: () => undefined,
  level: () => 'info',
  severity: () => undefined,
  derivedIncident: () => undefined,
  documentFields: (alert) => {
    const body = bodyOf(alert);
    if (body === undefined) return {};
    return {
      period: body.period,
      digest: body.digest,
      ...(body.page === undefined ? {} : { page: body.page.url }),
      ...(body.late === true ? { late: true } : {}),
    };
  },
  networkFigures: false,
};
