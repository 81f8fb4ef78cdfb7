declare module 'dynalite' {
  import type { Server } from 'node:http';

  /** Options of dynalite 4 (see its readme). */
  export interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    verbose?: boolean;
    debug?: boolean;
    ssl?: boolean;
  }

  /** Creates a DynamoDB-compatible HTTP server (not yet listening). */
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}
