/**
 * The protection API client: three GET endpoints, on one keep-alive undici pool.
 *
 * Every method resolves to an {@link ApiResponse}; nothing here throws or rejects. The API is undocumented
 * beyond its paths, so every answer is treated as untrusted: bodies are size-capped while they stream,
 * redirects are never followed (the key must not travel to another origin), bodies are decoded strictly,
 * and the key (any fragment of it, in any echo form: see `key-redaction.ts`) is scrubbed from everything
 * handed back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import packageJson from '../../package.json' with { type: 'json' };
import { type AnswerResponse, type ClassifiedAnswer, classifyAnswer } from '../core/answer.ts';
import type { ApiResponse, FailureKind } from '../core/types.ts';
import type { ProtectionApi, RequestContext } from '../ports.ts';
import { type KeyRedactor, MIN_FRAGMENT_LENGTH, REDACTED, redactorFor } from './key-redaction.ts';
import { abortReason, describeError } from './transport-errors.ts';
import { Pool } from './undici-pool.ts';

export { MAX_BODY_DEPTH } from '../core/answer.ts';
export type { RequestContext } from '../ports.ts';

/** How to reach the API and how hard to try. */
export interface ProtectionApiOptions {
  /** Base URL; may carry a path prefix, with or without a trailing slash. Query and fragment are ignored. */
  readonly baseUrl: string;
  /** Resolved once per call (attempts of one call share the key); the caller caches it. */
  readonly apiKey: () => Promise<string>;
  /** One attempt's time-out, covering connect, headers and body. */
  readonly timeoutMs: number;
  /** A larger body is refused without being read whole. */
  readonly maxBodyBytes: number;
  /** Most requests in flight at once; also the pool's connection count. */
  readonly concurrency: number;
  /**
   * Extra attempts after a transport failure, a 5xx or a 429.
   * @default 2
   */
  readonly retries?: number;
  /**
   * Base of the exponential backoff (full jitter).
   * @default 200
   */
  readonly retryBaseDelayMs?: number;
  /**
   * Longest wait between attempts, also the cap on `Retry-After`.
   * @default 5000
   */
  readonly retryMaxDelayMs?: number;
  /**
   * User-Agent header.
   * @default `shieldwatch/<package version>`
   */
  readonly userAgent?: string;
}

/** Counters for benchmarks and tests. */
export interface ProtectionApiStats {
  /** Attempts sent to the dispatcher (retries included). */
  requests: number;
  /** Most requests that held a concurrency slot at the same time. */
  maxInFlight: number;
  /** TCP connections the dispatcher opened (its `connect` events). */
  connections: number;
}

/** Default User-Agent: names the monitor so the API's operators can tell who is polling. */
export const DEFAULT_USER_AGENT = `shieldwatch/${packageJson.version}`;

/** How much of a non-2xx body is kept for the error excerpt. */
const EXCERPT_READ_BYTES = 4 * 1024;
/**
 * A non-2xx body up to this size is drained so the connection can be reused; a larger one is cut off,
 * which costs the connection but never the memory.
 */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/**
 * Keys shorter than {@link MIN_FRAGMENT_LENGTH} (whose fragments are not scrubbed: they would match ordinary
 * data) but at least this long are looked for whole in the parsed body's strings and names (where escapes
 * are decoded); shorter ones would match ordinary data. The config loader refuses keys shorter than this.
 */
export const MIN_STRUCTURAL_SCRUB_KEY_LENGTH = 4;
/** Invalid UTF-8 in a 2xx body is a contract failure: replacement characters would make different texts equal. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The path of one network's real-time endpoint: the id is always exactly one path segment.
 *
 * `encodeURIComponent` leaves `.` alone, so an id made only of dots is encoded as `%2E` per dot: a
 * server or proxy that removes dot segments would otherwise turn `..` into a step up the path.
 * @throws RangeError for an empty id, which would name a different path (`/api/networks//realtime`).
 */
export function networkPath(networkId: string): string {
  if (networkId.length === 0) throw new RangeError('network id is empty');
  const segment = /^\.+$/.test(networkId) ? '%2E'.repeat(networkId.length) : encodeURIComponent(networkId);
  return '/api/networks/' + segment + '/realtime';
}

type SlotOutcome = 'acquired' | 'deadline' | 'aborted';

interface Waiter {
  settled: boolean;
  readonly resolve: (outcome: SlotOutcome) => void;
}

/** FIFO semaphore whose waiters give up at a deadline or on abort, so nothing waits past the cycle. */
class Slots {
  #free: number;
  readonly #queue: Waiter[] = [];
  #head = 0;

  constructor(size: number) {
    this.#free = size;
  }

  acquire(
    deadlineMs: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<SlotOutcome> | SlotOutcome {
    if (signal?.aborted) return 'aborted';
    if (deadlineMs !== undefined && Date.now() >= deadlineMs) return 'deadline';
    if (this.#free > 0 && this.#head === this.#queue.length) {
      this.#free--;
      return 'acquired';
    }
    return new Promise<SlotOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: SlotOutcome): void => {
        if (waiter.settled) return;
        waiter.settled = true;
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onAbort = (): void => settle('aborted');
      const waiter: Waiter = { settled: false, resolve: settle };
      if (deadlineMs !== undefined) timer = setTimeout(settle, deadlineMs - Date.now(), 'deadline');
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  release(): void {
    while (this.#head < this.#queue.length) {
      const waiter = this.#queue[this.#head]!;
      this.#head++;
      this.#compact();
      if (!waiter.settled) {
        // The slot passes straight to the waiter, so #free stays as it is.
        waiter.resolve('acquired');
        return;
      }
    }
    this.#free++;
  }

  #compact(): void {
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
  }
}

/** Why an attempt's signal fired; set just before aborting so the error can say which limit was hit. */
type AbortCause = 'timeout' | 'deadline' | 'signal';

interface AttemptResult extends ClassifiedAnswer {
  /** True when nothing was sent (aborted or out of time before the attempt began). */
  readonly notSent?: boolean;
}

const RETRYABLE: ReadonlySet<FailureKind> = new Set<FailureKind>(['transport', 'server', 'rate_limited']);

/**
 * Client of the protection API. One instance per process (it owns the connection pool); safe to share
 * between concurrent cycles.
 */
export class ProtectionApiClient implements ProtectionApi {
  /** Counters for benchmarks and tests; updated in place. */
  readonly stats: ProtectionApiStats = { requests: 0, maxInFlight: 0, connections: 0 };

  readonly #origin: string;
  readonly #prefix: string;
  readonly #apiKey: () => Promise<string>;
  readonly #timeoutMs: number;
  readonly #maxBodyBytes: number;
  readonly #retries: number;
  readonly #retryBaseDelayMs: number;
  readonly #retryMaxDelayMs: number;
  readonly #userAgent: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #slots: Slots;
  readonly #onConnect = (): void => {
    this.stats.connections++;
  };
  #inFlight = 0;
  #headersFor: { key: string; headers: Record<string, string> } | undefined;
  #redactorFor: { key: string; redactor: KeyRedactor } | undefined;

  /**
   * @param dispatcher for tests; by default one undici `Pool` for the base origin with `concurrency`
   *   keep-alive connections. A dispatcher passed in is not closed by {@link close}.
   * @throws TypeError when `baseUrl` is not a URL (the config loader checks it first).
   */
  constructor(options: ProtectionApiOptions, dispatcher?: Dispatcher) {
    const base = new URL(options.baseUrl);
    this.#origin = base.origin;
    this.#prefix = base.pathname.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs;
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#retries = options.retries ?? 2;
    this.#retryBaseDelayMs = options.retryBaseDelayMs ?? 200;
    this.#retryMaxDelayMs = options.retryMaxDelayMs ?? 5000;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    const concurrency = Math.max(1, Math.floor(options.concurrency) || 1);
    this.#slots = new Slots(concurrency);
    this.#ownsDispatcher = dispatcher === undefined;
    this.#dispatcher =
      dispatcher ??
      new Pool(this.#origin, {
        connections: concurrency,
        // Our own per-attempt timer is the real limit; these only back it up.
        connectTimeout: options.timeoutMs + 1000,
        headersTimeout: options.timeoutMs + 1000,
        bodyTimeout: options.timeoutMs + 1000,
      });
    this.#dispatcher.on('connect', this.#onConnect);
  }

  /** `GET {base}/api/user`: the owner of the key. */
  getUser(ctx?: RequestContext): Promise<ApiResponse> {
    return this.#get('/api/user', ctx);
  }

  /** `GET {base}/api/filter/status`. */
  getFilterStatus(ctx?: RequestContext): Promise<ApiResponse> {
    return this.#get('/api/filter/status', ctx);
  }

  /** `GET {base}/api/networks/{id}/realtime`; an empty id is refused without sending anything. */
  getNetworkRealtime(networkId: string, ctx?: RequestContext): Promise<ApiResponse> {
    if (networkId.length === 0) {
      return Promise.resolve({
        ok: false,
        errorKind: 'client',
        error: 'network id is empty',
        latencyMs: 0,
        attempts: 0,
      });
    }
    return this.#get(networkPath(networkId), ctx);
  }

  /** Closes the pool built by the constructor (waiting for requests in flight); a dispatcher passed in is left open. */
  async close(): Promise<void> {
    this.#dispatcher.off('connect', this.#onConnect);
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #get(apiPath: string, ctx: RequestContext = {}): Promise<ApiResponse> {
    const { signal, deadlineMs } = ctx;
    let key: string;
    try {
      key = await this.#apiKey();
    } catch (err) {
      // No key means no request; the caller resolves (and caches) it first, so this is rare.
      return failure('transport', `could not resolve the API key: ${describeError(err)}`, 0, 0);
    }
    const redactor = this.#redactor(key);
    const scrub = (text: string): string => redactor.text(text);
    // Every error text leaves through here, whichever attempt and branch made it.
    const done = (response: ApiResponse): ApiResponse =>
      response.error === undefined ? response : { ...response, error: scrub(response.error) };
    const path = this.#prefix + apiPath;
    let attempts = 0;
    let startedAt: number | undefined;
    let last: AttemptResult | undefined;

    for (;;) {
      const outcome = await this.#slots.acquire(deadlineMs, signal);
      if (outcome !== 'acquired') {
        const latencyMs = startedAt === undefined ? 0 : Date.now() - startedAt;
        if (last !== undefined) return done({ ...last.response, latencyMs, attempts });
        const error =
          outcome === 'deadline'
            ? 'deadline reached before the request was sent'
            : 'aborted before the request was sent';
        return done(failure('transport', error, latencyMs, attempts));
      }
      this.#inFlight++;
      if (this.#inFlight > this.stats.maxInFlight) this.stats.maxInFlight = this.#inFlight;
      startedAt ??= Date.now();
      let result: AttemptResult;
      try {
        result = await this.#attempt(path, key, scrub, signal, deadlineMs);
      } finally {
        this.#inFlight--;
        this.#slots.release();
      }
      // A retry that could not be sent reports the attempt that was: its status and error are the news.
      if (result.notSent && last !== undefined) break;
      if (!result.notSent) attempts++;
      last = result;

      const kind = last.response.errorKind;
      if (kind === undefined || !RETRYABLE.has(kind) || attempts > this.#retries) break;
      const delayMs = this.#backoff(attempts - 1, last.retryAfterMs);
      if (signal?.aborted || (deadlineMs !== undefined && Date.now() + delayMs >= deadlineMs)) break;
      try {
        await sleep(delayMs, undefined, { signal });
      } catch {
        break; // aborted while waiting to retry
      }
    }
    return done({ ...last.response, latencyMs: Date.now() - startedAt, attempts });
  }

  #redactor(key: string): KeyRedactor {
    if (this.#redactorFor?.key !== key) this.#redactorFor = { key, redactor: redactorFor(key) };
    return this.#redactorFor.redactor;
  }

  /** Full jitter from an exponential ceiling; a server's `Retry-After` wins but is capped too. */
  #backoff(retryIndex: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, this.#retryMaxDelayMs);
    const ceiling = Math.min(this.#retryMaxDelayMs, this.#retryBaseDelayMs * 2 ** retryIndex);
    return Math.random() * ceiling;
  }

  #headers(key: string): Record<string, string> {
    if (this.#headersFor?.key !== key) {
      this.#headersFor = {
        key,
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json',
          'user-agent': this.#userAgent,
        },
      };
    }
    return this.#headersFor.headers;
  }

  async #attempt(
    path: string,
    key: string,
    scrub: (text: string) => string,
    outer: AbortSignal | undefined,
    deadlineMs: number | undefined,
  ): Promise<AttemptResult> {
    let limitMs = this.#timeoutMs;
    let limitCause: AbortCause = 'timeout';
    if (deadlineMs !== undefined && deadlineMs - Date.now() < limitMs) {
      limitMs = Math.max(0, deadlineMs - Date.now());
      limitCause = 'deadline';
    }
    if (outer?.aborted) return { response: transportFailure(abortReason(outer)), notSent: true };
    if (limitMs <= 0) {
      return { response: transportFailure('deadline reached before the request was sent'), notSent: true };
    }

    const controller = new AbortController();
    let cause: AbortCause | undefined;
    const timer = setTimeout(() => {
      cause = limitCause;
      controller.abort();
    }, limitMs);
    const signal = outer === undefined ? controller.signal : AbortSignal.any([controller.signal, outer]);
    const startedAt = Date.now();
    const abortMessage = (): string => {
      if (cause === 'timeout') return `timed out after ${this.#timeoutMs} ms`;
      if (cause === 'deadline') return `deadline reached after ${Date.now() - startedAt} ms`;
      return `${abortReason(outer)} after ${Date.now() - startedAt} ms`;
    };

    let data: Dispatcher.ResponseData;
    try {
      this.stats.requests++;
      data = await this.#dispatcher.request({
        origin: this.#origin,
        path,
        method: 'GET',
        headers: this.#headers(key),
        signal,
      });
    } catch (err) {
      clearTimeout(timer);
      if (outer?.aborted && cause === undefined) cause = 'signal';
      return { response: transportFailure(cause !== undefined ? abortMessage() : scrub(describeError(err))) };
    }

    try {
      return await this.#readAnswer(data, scrub, key);
    } catch (err) {
      if (outer?.aborted && cause === undefined) cause = 'signal';
      const what = cause !== undefined ? abortMessage() : scrub(describeError(err));
      return {
        response: { ...transportFailure(`${what} while reading the body`), httpStatus: data.statusCode },
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async #readAnswer(
    data: Dispatcher.ResponseData,
    scrub: (text: string) => string,
    key: string,
  ): Promise<AttemptResult> {
    const { statusCode: status, headers, body } = data;
    const announced = contentLength(headers['content-length']);
    const answer = {
      status,
      origin: this.#origin,
      contentType: headers['content-type'],
      retryAfter: headers['retry-after'],
      location: headers['location'],
    };

    if (status >= 200 && status < 300) {
      if (announced !== undefined && announced > this.#maxBodyBytes) {
        body.destroy();
        return contractFailure(status, `body larger than ${this.#maxBodyBytes} bytes`, announced);
      }
      const read = await readCapped(body, this.#maxBodyBytes);
      if (read === undefined) {
        return contractFailure(status, `body larger than ${this.#maxBodyBytes} bytes`, announced);
      }
      const bodyBytes = read.length;
      let text: string;
      try {
        // Also removes a leading byte order mark.
        text = STRICT_UTF8.decode(read);
      } catch {
        return contractFailure(status, 'body is not valid UTF-8', bodyBytes);
      }
      // Escaped, percent-encoded and other-case copies and fragments included: they are found in the text.
      if (key.length >= MIN_FRAGMENT_LENGTH) text = scrub(text);
      const { response } = classifyAnswer({ ...answer, text, nowMs: Date.now() }, scrub);
      // A short key's fragments are not scrubbed, but the key itself may come back JSON-escaped (\u0073...,
      // \/): look for it whole in the parsed strings.
      if (response.ok && key.length >= MIN_STRUCTURAL_SCRUB_KEY_LENGTH && key.length < MIN_FRAGMENT_LENGTH) {
        const scrubbed = scrubParsed(response.json, key);
        if (scrubbed.changed) {
          return {
            response: { ...response, json: scrubbed.value, text: JSON.stringify(scrubbed.value), bodyBytes },
          };
        }
      }
      return { response: { ...response, bodyBytes } };
    }

    if (status >= 300 && status < 400) {
      // The body of a redirect may repeat the target with its query: it is drained, never quoted.
      await drain(body, announced);
      return withBytes(classifyAnswer({ ...answer, text: '', nowMs: Date.now() }), announced);
    }

    const raw = await readExcerpt(body, announced);
    // Raw: the classifier scrubs the key before it cuts the excerpt.
    return withBytes(
      classifyAnswer({ ...answer, text: raw.excerpt, nowMs: Date.now() }, scrub),
      announced ?? raw.bytesRead,
    );
  }
}

function failure(errorKind: FailureKind, error: string, latencyMs: number, attempts: number): ApiResponse {
  return { ok: false, errorKind, error, latencyMs, attempts };
}

function transportFailure(error: string): AnswerResponse {
  return { ok: false, errorKind: 'transport', error };
}

/** Adds what is known of the body size to a non-2xx failure. */
function withBytes(classified: ClassifiedAnswer, bodyBytes: number | undefined): AttemptResult {
  return bodyBytes === undefined
    ? classified
    : { ...classified, response: { ...classified.response, bodyBytes } };
}

/** A 2xx whose bytes cannot be used (too large, not UTF-8): decided before there is a text to classify. */
function contractFailure(httpStatus: number, error: string, bodyBytes: number | undefined): AttemptResult {
  const response: AnswerResponse = { ok: false, errorKind: 'contract', error, httpStatus };
  return { response: bodyBytes === undefined ? response : { ...response, bodyBytes } };
}

/** Reads the whole body if it fits in `max` bytes; otherwise stops (destroying the stream) and returns undefined. */
async function readCapped(body: AsyncIterable<Buffer>, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    // Leaving the loop destroys the stream, so the rest of an oversized body is never read.
    if (total > max) return undefined;
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * Keeps the first few KB of an error body for the message; drains a small rest, cuts off a large one.
 * `bytesRead` is set only when the whole body was read.
 */
async function readExcerpt(
  body: Dispatcher.ResponseData['body'],
  announced: number | undefined,
): Promise<{ excerpt: string; bytesRead?: number }> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  let complete = false;
  try {
    if (announced !== undefined && announced > DRAIN_LIMIT_BYTES) {
      for await (const chunk of body) {
        kept.push(chunk);
        keptBytes += chunk.length;
        if (keptBytes >= EXCERPT_READ_BYTES) break;
      }
    } else {
      for await (const chunk of body) {
        total += chunk.length;
        if (keptBytes < EXCERPT_READ_BYTES) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
        if (total > DRAIN_LIMIT_BYTES) break;
      }
      complete = total <= DRAIN_LIMIT_BYTES;
    }
  } catch {
    // The status already says what happened; a broken error body only loses the excerpt.
    complete = false;
  }
  // Raw: the caller scrubs the key before cutting, so no fragment of it survives the cut.
  const excerpt = Buffer.concat(kept, keptBytes).subarray(0, EXCERPT_READ_BYTES).toString('utf8');
  return complete ? { excerpt, bytesRead: total } : { excerpt };
}

/** Discards a small body so the connection stays usable; a large or unannounced-and-long one is cut off. */
async function drain(body: Dispatcher.ResponseData['body'], announced: number | undefined): Promise<void> {
  if (announced !== undefined && announced > DRAIN_LIMIT_BYTES) {
    body.destroy();
    return;
  }
  try {
    await body.dump({ limit: DRAIN_LIMIT_BYTES });
  } catch {
    // Nothing to report: the answer is already decided by its status.
  }
}

/** Replaces the key in every string and property name of a parsed body (depth already bounded). */
function scrubParsed(value: unknown, key: string): { value: unknown; changed: boolean } {
  let changed = false;
  const clean = (text: string) => {
    if (!text.includes(key)) return text;
    changed = true;
    return text.replaceAll(key, REDACTED);
  };
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return clean(item);
    if (Array.isArray(item)) return item.map(walk);
    if (typeof item === 'object' && item !== null) {
      const out: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(item)) {
        Object.defineProperty(out, clean(name), {
          value: walk(child),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return item;
  };
  const result = walk(value);
  return { value: changed ? result : value, changed };
}

function contentLength(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}
