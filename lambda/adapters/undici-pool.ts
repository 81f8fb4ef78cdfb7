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
        callbacks[name] = function (this: unknown, ...args: unknown[]) {
          if (!ended) {
            ended = true;
            watch.onEnd();
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
