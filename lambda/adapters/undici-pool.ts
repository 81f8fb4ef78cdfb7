import type { Dispatcher, Client as UndiciClient, Pool as UndiciPool } from 'undici';
import request from 'undici/lib/api/api-request.js';
import ClientModule from 'undici/lib/dispatcher/client.js';
import PoolModule from 'undici/lib/dispatcher/pool.js';

/**
 * undici's connection pool with its `request` method, without the rest of undici. undici's index also loads
 * fetch, WebSocket, EventSource, caches, mocks and proxy agents: more than half of its size in the Lambda
 * bundle and of its cold import; the monitor needs the pool and `request` only. undici 7 has no `exports`
 * map, so these modules are reachable; the version is pinned exactly and the API client tests run against
 * this class, so a moved file fails the build, not a poll.
 *
 * The pool is also the client's concurrency limit: with `connections` = N it runs at most N requests at once
 * (one per connection, no pipelining) and queues the rest, first in first out. A request can carry a
 * {@link QueueWatch} under the {@link QUEUE_WATCH} option to learn when it leaves that queue (its time-out
 * starts then, not while it waits) and when its connection is done with it.
 *
 * A connection whose answer is complete takes the next queued request at once (see {@link resumeAtOnce}).
 */

/** Told when a request leaves the pool's queue for a connection, and when that connection is done with it. */
export interface QueueWatch {
  /** The request was handed to a connection (which connects if it must, then sends it). Called at most once. */
  readonly onStart: () => void;
  /** The answer arrived whole, or the request failed: the connection is free for the next one. */
  readonly onEnd: () => void;
}

/** The request option that carries a {@link QueueWatch}. */
export const QUEUE_WATCH = Symbol('shieldwatch.queueWatch');

/** The request options this pool reads: undici's, and an optional {@link QueueWatch}. */
export type WatchedRequestOptions = Dispatcher.RequestOptions & { readonly [QUEUE_WATCH]?: QueueWatch };

type Callback = ((...args: unknown[]) => unknown) | undefined;

/**
 * The client's own `resume` (undici keeps it under a private symbol, `Symbol('resume')`), found on the first
 * client; undefined if a later undici drops it, and then connections are reused as undici does by itself.
 */
let resumeKey: symbol | null | undefined;
function resumeOf(client: object): (() => void) | undefined {
  resumeKey ??= Object.getOwnPropertySymbols(client).find((key) => key.description === 'resume') ?? null;
  const resume = resumeKey === null ? undefined : (client as Record<symbol, unknown>)[resumeKey];
  return typeof resume === 'function' ? (resume as () => void) : undefined;
}

/**
 * Hands a connection whose answer just completed its next request without waiting a turn of the event loop.
 * undici (pipelining 1) resumes such a client from a `setImmediate`, and the pool's hand-over then schedules
 * the idle-socket check (another `setImmediate`, undici's guard against bytes, FIN or RST already pending on
 * the socket) from inside the check phase: the next request waited for a whole further turn of the loop, with
 * every other answer read and processed in it (4-8 ms a request at concurrency 10, 0.4-0.8 s of a 1,000-network
 * cycle at 100 ms, docs/design/performance.md). Resumed in a microtask, the hand-over and the idle-socket check
 * run in the same turn: the check still runs after the poll phase, before the request is written. undici's own
 * resume finds nothing left to do.
 */
function resumeAtOnce(client: object): void {
  const resume = resumeOf(client);
  if (resume !== undefined) queueMicrotask(resume);
}

/** undici's pool hands each request to one client exactly once: that hand-over is when it leaves the queue. */
class WatchedClient extends (ClientModule as typeof UndiciClient) {
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const watch = (options as WatchedRequestOptions)[QUEUE_WATCH];
    if (watch !== undefined) {
      // `request` gives a handler of undici's callback style (onComplete / onError): wrapped on the instance.
      const callbacks = handler as unknown as Record<'onComplete' | 'onError', Callback>;
      let ended = false;
      for (const name of ['onComplete', 'onError'] as const) {
        const original = callbacks[name];
        const client = this;
        callbacks[name] = function (this: unknown, ...args: unknown[]) {
          if (!ended) {
            ended = true;
            watch.onEnd();
            if (name === 'onComplete') resumeAtOnce(client);
          }
          return original?.apply(this, args);
        };
      }
      watch.onStart();
    }
    return super.dispatch(options, handler);
  }
}

class LeanPool extends (PoolModule as typeof UndiciPool) {
  constructor(origin: string | URL, options: UndiciPool.Options = {}) {
    super(origin, {
      factory: (clientOrigin, clientOptions) => new WatchedClient(clientOrigin, clientOptions),
      ...options,
    });
  }
}
// What undici's index does for every dispatcher (`Object.assign(Dispatcher.prototype, api)`), for this class only.
Object.defineProperty(LeanPool.prototype, 'request', { value: request, writable: true, configurable: true });

export const Pool: typeof UndiciPool = LeanPool;
