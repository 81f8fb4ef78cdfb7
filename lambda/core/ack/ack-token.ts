/**
 * Acknowledge-link tokens (docs/acknowledge.md, The link): an HMAC-SHA256 signature over the incident id and an
 * expiry, with the id of the key that signed it, so that a link names one incident, stops working when it
 * expires, and survives a rotation of the signing key until then (the old key is still tried, by its id).
 *
 * Pure: the keys and the time are parameters; nothing here reads the clock, the environment or a secret store.
 * A token is URL-safe as it is (`A-Z a-z 0-9 - _ .`): `<version>.<key id>.<expiry>.<incident>.<signature>`,
 * with the expiry in base-36 seconds and the incident and signature base64url.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The longest a token lives: the bound, and what rotation waits for. */
export const ACK_TOKEN_MAX_TTL_MS = 7 * 86_400_000;

/** The lifetime of the tokens the poller puts in alerts: the longest allowed (a reminder brings a fresh one). */
export const ACK_TOKEN_TTL_MS = ACK_TOKEN_MAX_TTL_MS;

/** The token format's version, the first field. A new layout gets a new one and the old is refused. */
const VERSION = 'a1';

/** Longest token accepted: an incident id is at most 255 characters (docs/channels.md), base64url 340. */
export const ACK_TOKEN_MAX_CHARS = 480;

/** Shortest signing key accepted, in bytes: HMAC-SHA256 keys below its output size are weaker than it. */
export const ACK_KEY_MIN_BYTES = 32;

/** A signing key and the id tokens name it by. */
export interface AckKey {
  /** Derived from the key ({@link ackKey}): names it in tokens without revealing anything of it. */
  readonly id: string;
  readonly secret: Buffer;
}

/**
 * A signing key from its secret text (the Secrets Manager secret's string, made at deploy). Its id is the first
 * 8 characters of a hash of it, so the same secret always has the same id and no version bookkeeping is needed.
 */
export function ackKey(secretText: string): AckKey {
  const secret = Buffer.from(secretText, 'utf8');
  if (secret.length < ACK_KEY_MIN_BYTES) {
    throw new RangeError(`an acknowledge signing key needs at least ${ACK_KEY_MIN_BYTES} bytes`);
  }
  const id = createHash('sha256').update('shieldwatch-ack-key-id\n').update(secret).digest('base64url');
  return { id: id.slice(0, 8), secret };
}

/** What a valid token says. */
export interface AckClaim {
  readonly incident: string;
  /** Epoch milliseconds (whole seconds). */
  readonly expiresAtMs: number;
}

/** Why a token was refused: for logs and tests only; the page answers every refusal alike. */
export type AckTokenRefusal = 'malformed' | 'unknown-key' | 'bad-signature' | 'expired' | 'too-long-lived';

/** The outcome of {@link verifyAckToken}. */
export type AckTokenCheck =
  | { readonly ok: true; readonly claim: AckClaim; readonly keyId: string }
  | { readonly ok: false; readonly refusal: AckTokenRefusal };

/**
 * A token for `incident`, signed with `key`, valid until `nowMs + ttlMs` (rounded down to a second).
 * `ttlMs` is at most {@link ACK_TOKEN_MAX_TTL_MS}.
 */
export function signAckToken(incident: string, key: AckKey, nowMs: number, ttlMs = ACK_TOKEN_TTL_MS): string {
  if (!(ttlMs > 0 && ttlMs <= ACK_TOKEN_MAX_TTL_MS)) {
    throw new RangeError(`an acknowledge token lives from 1 ms to ${ACK_TOKEN_MAX_TTL_MS} ms`);
  }
  if (incident.length === 0) throw new RangeError('an acknowledge token needs an incident id');
  const expiry = Math.floor((nowMs + ttlMs) / 1000).toString(36);
  const body = `${VERSION}.${key.id}.${expiry}.${Buffer.from(incident, 'utf8').toString('base64url')}`;
  return `${body}.${signature(key, body).toString('base64url')}`;
}

const TOKEN = /^a1\.([A-Za-z0-9_-]{8})\.([0-9a-z]{1,9})\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;

/**
 * Checks a token against the keys in force (the current one first, then the previous one while its links
 * live): the key it names must be among them, its signature must match (compared in constant time), and it
 * must not have expired nor claim a life longer than {@link ACK_TOKEN_MAX_TTL_MS} from now. The incident it
 * names is the only one it can acknowledge.
 */
export function verifyAckToken(token: string, keys: readonly AckKey[], nowMs: number): AckTokenCheck {
  if (typeof token !== 'string' || token.length > ACK_TOKEN_MAX_CHARS) return refuse('malformed');
  const match = TOKEN.exec(token);
  if (match === null) return refuse('malformed');
  const [, keyId, expiry, incidentText, signatureText] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
  ];
  const key = keys.find((candidate) => candidate.id === keyId);
  if (key === undefined) return refuse('unknown-key');
  const body = token.slice(0, token.length - signatureText.length - 1);
  const given = Buffer.from(signatureText, 'base64url');
  const expected = signature(key, body);
  // Both are 32 bytes (the pattern fixes 43 base64url characters); a non-canonical last character is
  // caught by comparing the re-encoded text as well, so one token has one spelling.
  if (
    given.length !== expected.length ||
    !timingSafeEqual(given, expected) ||
    given.toString('base64url') !== signatureText
  ) {
    return refuse('bad-signature');
  }
  const expiresAtMs = Number.parseInt(expiry, 36) * 1000;
  if (!(expiresAtMs > nowMs)) return refuse('expired');
  if (expiresAtMs - nowMs > ACK_TOKEN_MAX_TTL_MS + 1000) return refuse('too-long-lived');
  const incident = Buffer.from(incidentText, 'base64url').toString('utf8');
  if (Buffer.from(incident, 'utf8').toString('base64url') !== incidentText) return refuse('malformed');
  return { ok: true, claim: { incident, expiresAtMs }, keyId };
}

function signature(key: AckKey, body: string): Buffer {
  return createHmac('sha256', key.secret).update(`shieldwatch-ack\n${body}`).digest();
}

function refuse(refusal: AckTokenRefusal): AckTokenCheck {
  return { ok: false, refusal };
}
