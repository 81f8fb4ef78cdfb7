/**
 * The protection API client: three GET endpoints, on one keep-alive undici pool whose queue is the
 * concurrency limit (`undici-pool.ts`), with retries and time-outs. Reading an answer is `answer-body.ts`,
 * what it means `core/detect/answer.ts`, naming a transport failure `transport-errors.ts`.
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
import { fullJitterMs } from '../core/backoff.ts';
import type { AnswerResponse, ClassifiedAnswer } from '../core/detect/answer.ts';
import type { ApiFailureKind, ApiResponse } from '../core/types.ts';
import type { ProtectionApi, RequestContext } from '../ports.ts';
import { readAnswer } from './answer-body.ts';
import { type KeyRedactor, redactorFor } from './key-redaction.ts';
import { abortReason, describeError } from './transport-errors.ts';
import { Pool, QUEUE_WATCH, type WatchedRequestOptions } from './undici-pool.ts';

export { MAX_BODY_DEPTH } from '../core/detect/answer.ts';
export type { RequestContext } from '../ports.ts';
export { MIN_STRUCTURAL_SCRUB_KEY_LENGTH } from './answer-body.ts';

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
  /** Most requests on a connection at the same time (out of the pool's queue, answer not yet in). */
  maxInFlight: number;
  /** TCP connections the dispatcher opened (its `connect` events). */
  connections: number;
}

/** Default User-Agent: names the monitor so the API's operators can tell who is polling. */
export const DEFAULT_USER_AGENT = `shieldwatch/${packageJson.version}`;

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

/** Why an attempt's signal fired; set just before aborting so the error can say which limit was hit. */
type AbortCause = 'timeout' | 'deadline' | 'signal';

interface AttemptResult extends ClassifiedAnswer {
  /** True when nothing was sent (aborted or out of time before the attempt began). */
  readonly notSent?: boolean;
}

const RETRYABLE: ReadonlySet<ApiFailureKind> = new Set<ApiFailureKind>([
  'transport',
  'server',
  'rate_limited',
]);

/**
 * Client of the protection API. One instance per process (it owns the connection pool); safe to share
 * between concurrent cycles. Its fields are `#private`, not TypeScript `private` as elsewhere: they hold the
 * API key, which runtime privacy keeps out of `util.inspect` and `JSON.stringify` of the client.
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
    this.#ownsDispatcher = dispatcher === undefined;
    this.#dispatcher =
      dispatcher ??
      new Pool(this.#origin, {
        // The pool's queue is the concurrency limit: at most `concurrency` requests on the wire, the rest wait.
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
      const result = await this.#attempt(path, key, redactor, signal, deadlineMs, () => {
        startedAt ??= Date.now();
      });
      if (result.notSent) {
        // Nothing was sent this time: the attempt before, if any, is the news (its status and error).
        const latencyMs = startedAt === undefined ? 0 : Date.now() - startedAt;
        return done({ ...(last ?? result).response, latencyMs, attempts });
      }
      attempts++;
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
    return done({ ...last.response, latencyMs: Date.now() - (startedAt ?? Date.now()), attempts });
  }

  #redactor(key: string): KeyRedactor {
    if (this.#redactorFor?.key !== key) this.#redactorFor = { key, redactor: redactorFor(key) };
    return this.#redactorFor.redactor;
  }

  /** Full jitter from an exponential ceiling; a server's `Retry-After` wins but is capped too. */
  #backoff(retryIndex: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, this.#retryMaxDelayMs);
    return fullJitterMs(retryIndex, this.#retryBaseDelayMs, this.#retryMaxDelayMs);
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

  /**
   * One attempt. The request waits in the pool's queue for a connection; its time-out starts when it leaves
   * the queue (`onStart`). The caller's signal or the deadline stops it while queued: then nothing is sent.
   */
  async #attempt(
    path: string,
    key: string,
    redactor: KeyRedactor,
    outer: AbortSignal | undefined,
    deadlineMs: number | undefined,
    onStart: () => void,
  ): Promise<AttemptResult> {
    const scrub = (text: string): string => redactor.text(text);
    if (outer?.aborted) return notSent('aborted before the request was sent');
    if (deadlineMs !== undefined && Date.now() >= deadlineMs) {
      return notSent('deadline reached before the request was sent');
    }

    // One controller per attempt, fed by the caller's signal through a listener (no AbortSignal.any: each
    // queued request would hold a combined signal, which costs memory with a thousand of them waiting).
    const controller = new AbortController();
    let cause: AbortCause | undefined;
    let timer: NodeJS.Timeout | undefined;
    let startedAt = 0;
    let inFlight = false;
    let left: 'sent' | 'gave up' | undefined;
    let giveUp: (message: string) => void = () => {};
    const gaveUp = new Promise<string>((resolve) => {
      giveUp = resolve;
    });
    const stopQueued = (message: string): void => {
      if (left !== undefined) return;
      left = 'gave up';
      // Still queued: the pool drops it unsent when its turn comes.
      controller.abort();
      giveUp(message);
    };
    const onOuterAbort = (): void => {
      if (left === undefined) stopQueued('aborted before the request was sent');
      else controller.abort();
    };
    const queueTimer =
      deadlineMs === undefined
        ? undefined
        : setTimeout(stopQueued, deadlineMs - Date.now(), 'deadline reached before the request was sent');
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    const leaveQueue = (): void => clearTimeout(queueTimer);
    const start = (): void => {
      if (left !== undefined) return;
      left = 'sent';
      leaveQueue();
      startedAt = Date.now();
      onStart();
      this.stats.requests++;
      inFlight = true;
      this.#inFlight++;
      if (this.#inFlight > this.stats.maxInFlight) this.stats.maxInFlight = this.#inFlight;
      let limitMs = this.#timeoutMs;
      let limitCause: AbortCause = 'timeout';
      if (deadlineMs !== undefined && deadlineMs - startedAt < limitMs) {
        limitMs = Math.max(0, deadlineMs - startedAt);
        limitCause = 'deadline';
      }
      timer = setTimeout(() => {
        cause = limitCause;
        controller.abort();
      }, limitMs);
    };
    const end = (): void => {
      if (!inFlight) return;
      inFlight = false;
      this.#inFlight--;
    };
    const abortMessage = (): string => {
      if (cause === 'timeout') return `timed out after ${this.#timeoutMs} ms`;
      if (cause === 'deadline') return `deadline reached after ${Date.now() - startedAt} ms`;
      return `${abortReason(outer)} after ${Date.now() - startedAt} ms`;
    };
    const options: WatchedRequestOptions = {
      origin: this.#origin,
      path,
      method: 'GET',
      headers: this.#headers(key),
      signal: controller.signal,
      [QUEUE_WATCH]: { onStart: start, onEnd: end },
    };

    try {
      const sending = this.#dispatcher.request(options);
      // A dispatcher passed in queues (or not) by itself: the attempt starts now.
      if (!this.#ownsDispatcher) start();
      const first = await Promise.race([
        sending.then(
          (data) => ({ data }),
          (error: unknown) => ({ error }),
        ),
        gaveUp.then((message) => ({ message })),
      ]);
      if ('message' in first) {
        sending.catch(() => {});
        return notSent(first.message);
      }
      if ('error' in first) {
        if (outer?.aborted && cause === undefined) cause = 'signal';
        return {
          response: transportFailure(
            cause !== undefined ? abortMessage() : scrub(describeError(first.error)),
          ),
        };
      }
      return await this.#read(first.data, redactor, abortMessage, () => {
        if (outer?.aborted && cause === undefined) cause = 'signal';
        return cause !== undefined;
      });
    } finally {
      leaveQueue();
      outer?.removeEventListener('abort', onOuterAbort);
      clearTimeout(timer);
      end();
    }
  }

  async #read(
    data: Dispatcher.ResponseData,
    redactor: KeyRedactor,
    abortMessage: () => string,
    stopped: () => boolean,
  ): Promise<AttemptResult> {
    try {
      return await readAnswer(data, { origin: this.#origin, maxBodyBytes: this.#maxBodyBytes, redactor });
    } catch (err) {
      const what = stopped() ? abortMessage() : redactor.text(describeError(err));
      return {
        response: { ...transportFailure(`${what} while reading the body`), httpStatus: data.statusCode },
      };
    }
  }
}

function failure(errorKind: ApiFailureKind, error: string, latencyMs: number, attempts: number): ApiResponse {
  return { ok: false, errorKind, error, latencyMs, attempts };
}

/** Nothing was sent: stopped while queued, or before. */
function notSent(error: string): AttemptResult {
  return { response: transportFailure(error), notSent: true };
}

function transportFailure(error: string): AnswerResponse {
  return { ok: false, errorKind: 'transport', error };
}
