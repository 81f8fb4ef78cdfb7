/**
 * Naming what stopped a request before or while its answer arrived: undici and node errors by their code,
 * and the caller's abort by the reason it gave. Short, stable, one-line texts; undici and node messages may
 * echo request details, so only a code's name or a sanitised message is kept (the client scrubs the key too).
 */
import { sanitise } from '../core/detect/answer.ts';

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** A short, stable description of a transport error; undici and node messages may echo request details. */
export function describeError(err: unknown): string {
  const code = errorCode(err);
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'UND_ERR_SOCKET':
      return 'connection closed by the server';
    case 'ENOTFOUND':
    case 'EAI_NONAME':
      return 'DNS lookup failed (host not found)';
    case 'EAI_AGAIN':
      return 'DNS lookup failed (temporary failure)';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect timed out';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'timed out waiting for the headers';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out waiting for the body';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'EPIPE':
      return 'connection closed while sending';
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
      return 'client closed';
    default:
      break;
  }
  if (code !== undefined && TLS_CODE.test(code)) return `TLS error (${code})`;
  const message = err instanceof Error ? err.message : String(err);
  return sanitise(code === undefined ? message : `${code}: ${message}`) || 'unknown error';
}

/** The most specific error code, looking through `cause` (undici wraps socket errors). */
export function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  let found: string | undefined;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (found === undefined || found === 'UND_ERR_SOCKET')) found = code;
    current = (current as { cause?: unknown }).cause;
  }
  return found;
}

/**
 * Why the caller's signal stopped a request, for the error text: its reason's message when it gave one
 * (the cycle says `cycle deadline reached`), otherwise `aborted`. The text is the caller's, never the key.
 */
export function abortReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  // A bare abort() gives a DOMException "This operation was aborted": plain "aborted" says as much.
  return reason instanceof Error && reason.name !== 'AbortError' && reason.message !== ''
    ? sanitise(reason.message)
    : 'aborted';
}
