/** The messages between the main thread (pglite-remote.ts) and the database's (pglite-thread.ts). */

export interface ThreadStart {
  /** PGlite's data directory; null for an in-memory database. */
  dataDir: string | null;
  /**
   * For an in-memory database: a tarball of a data directory (PGlite's dumpDataDir) to start from,
   * instead of initialising an empty one (seconds of CPU at each start; see connect.ts's snapshot).
   */
  snapshot?: string;
  /** PGlite's WebAssembly, compiled once by the process (pglite-remote.ts). */
  wasmModule: WebAssembly.Module;
}

/** How a query's rows are shaped, as sent (parsers cannot cross threads; see pglite-remote.ts). */
export interface QueryShape {
  /** Row objects or arrays, as PGlite's QueryOptions.rowMode. */
  rowMode?: 'array' | 'object';
  /** Types whose values come back as the server's text (the caller's parsers are all identity). */
  rawTypes?: number[];
}

export type ThreadRequest =
  | ({ t: 'query'; id: number; text: string; params: unknown[]; tx?: number } & QueryShape)
  | { t: 'exec'; id: number; text: string; tx?: number }
  | { t: 'begin'; id: number }
  | { t: 'end'; id: number; tx: number; commit: boolean }
  | { t: 'listen'; id: number; channel: string }
  | { t: 'unlisten'; id: number; listener: number }
  | { t: 'dump'; id: number }
  | { t: 'close'; id: number };

export type ThreadReply =
  | { t: 'ready' }
  | { t: 'reply'; id: number; value?: unknown; error?: Record<string, unknown> }
  /** A NOTIFY on the channel of the listener with this id (the id of its 'listen'). */
  | { t: 'notify'; listener: number };
