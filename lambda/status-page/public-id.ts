/**
 * The public page's incident ids (CONTRACT §15, "Public ids are opaque"): an HMAC-SHA-256 of the incident's id
 * under a key of the stack (a Secrets Manager secret generated at deploy, read by the publisher only; never in
 * a template, an environment, a log or the page). Nobody without the key can compute one from a rule, a network
 * and a time, nor tell from one which incident it is; the same incident keeps the same public id at every
 * publish, as long as the key stays. Pure.
 */
import { createHmac } from 'node:crypto';

/** Hex characters kept of the HMAC: 80 bits, far beyond any guessing without the key. */
const PUBLIC_ID_HEX = 20;

/** Keeps a key of this purpose apart from any other use of the same bytes. */
const DOMAIN = 'shieldwatch public incident id\u0000';

/** The shortest key accepted: the stack's is 64 characters. */
export const MIN_PUBLIC_ID_KEY_CHARS = 32;

/** The public id of incident `id` under `key`: `i-` and 20 hex characters. */
export function publicIncidentId(key: string, id: string): string {
  if (key.length < MIN_PUBLIC_ID_KEY_CHARS) {
    throw new Error(`the public id key must have at least ${MIN_PUBLIC_ID_KEY_CHARS} characters`);
  }
  return `i-${createHmac('sha256', key).update(DOMAIN).update(id).digest('hex').slice(0, PUBLIC_ID_HEX)}`;
}
