/**
 * What an answer of the protection API means, from what arrived: the HTTP status, the few headers that
 * matter and the decoded body text. The client (`adapters/protection-api.ts`) reads and decodes the bytes;
 * this decides ok or which failure, words the error, and has the key scrubbed (by the {@link AnswerScrubber}
 * the client passes) from every text it hands back. Pure: no I/O, no clock (the caller passes `nowMs`),
 * never throws.
 */
import type { ApiResponse } from '../types.ts';

/** Deepest nesting accepted in a body; deeper is a `contract` failure (no real API nests this deep). */
export const MAX_BODY_DEPTH = 64;

/** Longest excerpt of a non-2xx body quoted in an error (and longest text made by {@link sanitise}). */
export const EXCERPT_CHARS = 200;

/** An answer's meaning, without the counts the client adds (latency, attempts, body bytes). */
export type AnswerResponse = Omit<ApiResponse, 'latencyMs' | 'attempts'>;

/** An answer's meaning and, for a 429 or 503, how long the server asked us to wait. */
export interface ClassifiedAnswer {
  readonly response: AnswerResponse;
  /** Server-requested wait before the next attempt, in ms (429/503 `Retry-After`). */
  readonly retryAfterMs?: number;
}

/** Removes the API key from what an answer hands back (`adapters/key-redaction.ts` is the real one). */
export interface AnswerScrubber {
  /** A text (an error excerpt, a body that is not JSON) with the key removed. */
  text(text: string): string;
  /**
   * A JSON text with the key removed from its strings (and from its numbers, for a key a number could
   * spell), still JSON, every other token as written.
   */
  json(text: string): string;
}

const NO_SCRUB: AnswerScrubber = { text: (text) => text, json: (text) => text };

/** What arrived, as the client read it. */
export interface Answer {
  /** HTTP status code. */
  readonly status: number;
  /** The API's origin (`https://host:port`), to tell a redirect to the same origin from one elsewhere. */
  readonly origin: string;
  readonly contentType?: string | string[];
  readonly retryAfter?: string | string[];
  readonly location?: string | string[];
  /**
   * A 2xx: the whole body, decoded (BOM removed), raw: it is parsed first and then scrubbed as JSON (a
   * scrub of the text could cut through a number). A 3xx: ignored (a redirect body is never quoted).
   * Otherwise: the start of the body, raw (it is scrubbed here before it is cut).
   */
  readonly text: string;
  /** Now, epoch ms: a `Retry-After` HTTP-date counts from it. */
  readonly nowMs: number;
}

/**
 * Classifies an answer. A 2xx whose text is JSON (at most {@link MAX_BODY_DEPTH} deep) is ok, with `text`
 * the body scrubbed as JSON ({@link AnswerScrubber.json}: its strings, so that its numbers survive) and
 * `json` parsed from that text; an empty or non-JSON 2xx is a `contract` failure that keeps the text
 * scrubbed as text. A 3xx is a `client`
 * failure that says only whether it pointed to the same origin; 401/403 `auth`; 429 `rate_limited`; 5xx
 * `server` (both with the `Retry-After` wait when given); any other status `client`. Non-2xx errors quote one
 * line of the body, at most {@link EXCERPT_CHARS} characters.
 *
 * @param scrubber removes the key: from a JSON body as JSON, from every other text kept or quoted as text;
 *   an excerpt is scrubbed both before and after it is made one line (which may join what stood apart) and
 *   before it is cut (a cut can shorten a fragment of the key, never make one).
 */
export function classifyAnswer(answer: Answer, scrubber: AnswerScrubber = NO_SCRUB): ClassifiedAnswer {
  const scrub = (text: string): string => scrubber.text(text);
  const { status } = answer;
  if (status >= 200 && status < 300) return classifySuccess(answer, scrubber);
  if (status >= 300 && status < 400) {
    const to = redirectTarget(answer.location, answer.origin);
    return { response: httpFailure('client', status, `redirect (${status}) not followed (${to})`) };
  }
  const excerpt = clip(scrub(oneLine(scrub(decodeJsonEscapes(answer.text)))));
  const quoted = excerpt.length > 0 ? `: ${excerpt}` : '';
  if (status === 401 || status === 403) {
    return { response: httpFailure('auth', status, `key rejected (HTTP ${status})${quoted}`) };
  }
  const retryAfterMs =
    status === 429 || status === 503 ? parseRetryAfter(answer.retryAfter, answer.nowMs) : undefined;
  const waitNote = retryAfterMs === undefined ? '' : `, Retry-After ${Math.round(retryAfterMs / 1000)} s`;
  const wait = retryAfterMs === undefined ? {} : { retryAfterMs };
  if (status === 429) {
    return {
      response: httpFailure('rate_limited', status, `rate limited (HTTP 429${waitNote})${quoted}`),
      ...wait,
    };
  }
  if (status >= 500 && status < 600) {
    return {
      response: httpFailure('server', status, `server error (HTTP ${status}${waitNote})${quoted}`),
      ...wait,
    };
  }
  return { response: httpFailure('client', status, `unexpected answer (HTTP ${status})${quoted}`) };
}

function classifySuccess(answer: Answer, scrubber: AnswerScrubber): ClassifiedAnswer {
  const { status, text } = answer;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const type = sanitise(String(answer.contentType ?? 'none'));
    const what = text.trim().length === 0 ? 'body is empty' : 'body is not JSON';
    return {
      response: { ...contract(status, `${what} (content-type: ${type})`), text: scrubber.text(text) },
    };
  }
  const depth = nestingDepth(text);
  if (depth > MAX_BODY_DEPTH) {
    return { response: contract(status, `body nested ${depth} levels deep (at most ${MAX_BODY_DEPTH})`) };
  }
  // Parsed first, scrubbed after: the key is taken out of strings, never out of the middle of a number.
  const shown = scrubber.json(text);
  if (shown !== text) {
    try {
      json = JSON.parse(shown);
    } catch {
      // Not expected (the scrubber writes whole JSON strings); refused rather than handed on unscrubbed.
      return { response: contract(status, 'body could not be scrubbed of the key as JSON') };
    }
  }
  return { response: { ok: true, httpStatus: status, json, text: shown } };
}

function httpFailure(errorKind: ApiResponse['errorKind'], httpStatus: number, error: string): AnswerResponse {
  return { ok: false, errorKind, error, httpStatus };
}

function contract(httpStatus: number, error: string): AnswerResponse {
  return { ok: false, errorKind: 'contract', error, httpStatus };
}

/**
 * Deepest nesting of arrays and objects in a JSON text that parsed, counted on the text: one pass without
 * recursion or allocation (a walk of the parsed value would hold a stack of every node of a wide body).
 * Stops counting past {@link MAX_BODY_DEPTH}.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x22 /* " */) {
      // Skip the string; a backslash escapes the next character.
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === 0x5c) i++;
        else if (inner === 0x22) break;
      }
    } else if (unit === 0x5b /* [ */ || unit === 0x7b /* { */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > MAX_BODY_DEPTH) return deepest;
      }
    } else if (unit === 0x5d /* ] */ || unit === 0x7d /* } */) {
      depth--;
    }
  }
  return deepest;
}

/** Decodes `\uXXXX` and `\/` escapes, so that an escaped copy of the key is found by a plain search. */
function decodeJsonEscapes(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\\\//g, '/');
}

/** One line of printable ASCII, at most {@link EXCERPT_CHARS} characters. */
export function sanitise(text: string): string {
  return clip(oneLine(text));
}

/** Printable ASCII on one line: other characters become single spaces. */
function oneLine(text: string): string {
  return text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** At most {@link EXCERPT_CHARS} characters. */
function clip(text: string): string {
  return text.length > EXCERPT_CHARS ? text.slice(0, EXCERPT_CHARS - 3) + '...' : text;
}

/**
 * Where a redirect points, without naming it: only whether it stays on the API's origin. Another origin's
 * host may be the key, its path and query may carry tokens.
 */
function redirectTarget(location: string | string[] | undefined, base: string): string {
  if (typeof location !== 'string') return 'no usable Location';
  let origin: string;
  try {
    origin = new URL(location, base).origin;
  } catch {
    return 'no usable Location';
  }
  if (origin === 'null') return 'no usable Location';
  return origin === base ? 'to the same origin' : 'to another origin';
}

/** `Retry-After` as delta-seconds or an HTTP-date, in ms from `nowMs`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
