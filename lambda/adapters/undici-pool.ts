import type { Pool as UndiciPool } from 'undici';
import request from 'undici/lib/api/api-request.js';
import PoolModule from 'undici/lib/dispatcher/pool.js';

/**
 * undici's connection pool with its `request` method, without the rest of undici. undici's index also loads
 * fetch, WebSocket, EventSource, caches, mocks and proxy agents: more than half of its size in the Lambda
 * bundle and of its cold import; the monitor needs the pool and `request` only. undici 7 has no `exports`
 * map, so these modules are reachable; the version is pinned exactly and the API client tests run against
 * this class, so a moved file fails the build, not a poll.
 */
class LeanPool extends (PoolModule as typeof UndiciPool) {}
// What undici's index does for every dispatcher (`Object.assign(Dispatcher.prototype, api)`), for this class only.
Object.defineProperty(LeanPool.prototype, 'request', { value: request, writable: true, configurable: true });

export const Pool: typeof UndiciPool = LeanPool;
