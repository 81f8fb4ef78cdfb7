declare module 'undici/lib/dispatcher/pool.js' {
  /** undici's Pool class (CommonJS `module.exports`); typed through `typeof import('undici').Pool`. */
  const Pool: unknown;
  export default Pool;
}

declare module 'undici/lib/api/api-request.js' {
  /** undici's `Dispatcher.prototype.request`. */
  const request: unknown;
  export default request;
}

declare module 'undici/lib/dispatcher/client.js' {
  /** undici's Client class (CommonJS `module.exports`); typed through `typeof import('undici').Client`. */
  const Client: unknown;
  export default Client;
}
