/**
 * What a `monitor.digest` alert carries (CONTRACT §19): the digest, its period and the hosted page's address,
 * as one JSON text in the record's `digest` field, so that outbox, spilled and event items store it as it is.
 * Read back defensively: a text another version wrote, or a damaged one, reads as undefined and the alert is
 * rendered from what is left (its event and time). Pure.
 */
import { DateTime } from 'luxon';
import type { Digest } from './digest.ts';
import type { DigestPeriod } from './digest-schedule.ts';

/** The hosted page the digest's email points to. */
export interface DigestPage {
  readonly url: string;
  /** `private`: the page opens only through a signed link (`shieldwatch page-link`). */
  readonly mode: 'private' | 'public';
}

/** The body of a `monitor.digest` alert. */
export interface DigestAlertBody {
  readonly digest: Digest;
  readonly period: DigestPeriod;
  /** The zone `digestAt` is in, for texts. */
  readonly tz: string;
  readonly page?: DigestPage;
  /** True when sent more than an hour after its period's end (a run was missed). */
  readonly late?: boolean;
}

/** The body as the record's `digest` text. */
export function encodeDigestBody(body: DigestAlertBody): string {
  return JSON.stringify(body);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The body of a record's `digest` text, or undefined when it is none (absent, damaged, another shape). */
export function decodeDigestBody(text: unknown): DigestAlertBody | undefined {
  if (typeof text !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || !isObject(value['digest']) || !isObject(value['period'])) return undefined;
  const digest = value['digest'];
  const period = value['period'];
  if (
    typeof period['since'] !== 'string' ||
    typeof period['until'] !== 'string' ||
    (period['every'] !== 'daily' && period['every'] !== 'weekly') ||
    !isObject(digest['incidents']) ||
    !isObject(digest['response']) ||
    !isObject(digest['filter']) ||
    !isObject(digest['availability'])
  ) {
    return undefined;
  }
  return value as unknown as DigestAlertBody;
}

/** The period in the digest's zone: `2026-11-27 08:00 .. 2026-11-28 08:00 Europe/Berlin`. */
export function localPeriod(body: Pick<DigestAlertBody, 'period' | 'tz'>): string {
  const local = (iso: string): string => {
    const t = DateTime.fromISO(iso, { zone: body.tz });
    return t.isValid ? t.toFormat('yyyy-MM-dd HH:mm') : iso;
  };
  return `${local(body.period.since)} .. ${local(body.period.until)} ${body.tz}`;
}
