/**
 * One request to the acknowledge link (docs/acknowledge.md, The link): `GET ?t=TOKEN` shows the confirmation
 * page and writes nothing (mail scanners and link previews fetch links); `POST` with the form field `t`
 * acknowledges the incident the token names, once. Every link that does not work (malformed, forged, expired,
 * of an incident that is no longer open) gets the same answer, {@link REFUSAL}; why is only logged, never the
 * token. Independent of Lambda, so that a plain HTTP server on loopback can drive it in tests.
 */
import { type AckResponse, acknowledgedPage, confirmationPage, REFUSAL } from './core/ack/ack-page.ts';
import { type AckKey, verifyAckToken } from './core/ack/ack-token.ts';
import { ACK_BY_LINK } from './core/incidents/incident-ack.ts';
import { acknowledge, findOpenIncident, type IncidentScopes } from './incident-acks.ts';

/** An incoming request, as the entry (Lambda or a test's server) read it. */
export interface AckRequest {
  readonly method: string;
  /** The query string's `t` (GET). */
  readonly queryToken?: string;
  /** The body as sent, and its content type (POST). */
  readonly body?: string;
  readonly contentType?: string;
}

/** What one request needs. */
export interface AckDeps {
  /** The keys in force: the current one, then the previous one while its links live. */
  readonly keys: () => Promise<readonly AckKey[]>;
  readonly incidents: IncidentScopes;
  readonly now: () => number;
  /** Why a request was refused, or what it did (never the token). */
  readonly log?: (message: string, fields: Record<string, unknown>) => void;
}

/** Longest form body read: the token and a little more. */
const MAX_BODY_CHARS = 2048;

/** The token of a request, or undefined. */
function tokenOf(request: AckRequest): string | undefined {
  if (request.method === 'GET') return request.queryToken;
  if (request.method !== 'POST') return undefined;
  const type = (request.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded' || request.body === undefined) return undefined;
  if (request.body.length > MAX_BODY_CHARS) return undefined;
  return new URLSearchParams(request.body).get('t') ?? undefined;
}

/** Answers one request. Throws only when the store or the secret cannot be read (the platform answers 5xx). */
export async function respondToAck(request: AckRequest, deps: AckDeps): Promise<AckResponse> {
  const log = deps.log ?? (() => {});
  const token = tokenOf(request);
  if (token === undefined) {
    log('acknowledge link refused', { method: request.method, reason: 'no-token' });
    return REFUSAL;
  }
  const check = verifyAckToken(token, await deps.keys(), deps.now());
  if (!check.ok) {
    log('acknowledge link refused', { method: request.method, reason: check.refusal });
    return REFUSAL;
  }
  const id = check.claim.incident;
  if (request.method === 'GET') {
    const incident = await findOpenIncident(deps.incidents, id);
    if (incident === undefined) {
      log('acknowledge link refused', { method: 'GET', reason: 'not-open', incident: id });
      return REFUSAL;
    }
    return confirmationPage(incident, token, '/');
  }
  const result = await acknowledge(deps.incidents, id, {
    by: ACK_BY_LINK,
    at: new Date(deps.now()).toISOString(),
  });
  if (result.outcome === 'not-open') {
    log('acknowledge link refused', { method: 'POST', reason: 'not-open', incident: id });
    return REFUSAL;
  }
  log(result.outcome === 'acknowledged' ? 'incident acknowledged' : 'incident already acknowledged', {
    incident: id,
    keyId: check.keyId,
  });
  return acknowledgedPage(result.view);
}
