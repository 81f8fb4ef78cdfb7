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
