/**
 * PGlite on a thread of its own (pglite-thread.ts), seen from the main thread as the part of a
 * PGlite client that drizzle and the service use: query, exec, transaction, listen, close.
 *
 * Why: PGlite runs PostgreSQL synchronously in the thread that calls it. On the API's thread a
 * statement stops every other request for its whole run, and the process uses one core. On its
 * own thread the database works while the API's thread parses, verifies signatures, seals and
 * answers (measured by `npm run bench:api`: docs/ARCHITECTURE.md).
 *
 * What crosses: SQL text, parameters and rows (structured clone keeps Date, Uint8Array, BigInt,
 * JSON values), and errors as their plain fields (code, detail, constraint… as PGlite's
 * DatabaseError has them). Parsers cannot cross (functions): the only ones accepted are identity
 * parsers (drizzle's, which keep timestamps as the server's text), checked on a probe value.
 * Statements still run one at a time, in order, as PGlite runs them: a transaction holds the
 * database until it ends, exactly as before.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results } from '@electric-sql/pglite';
import type { QueryShape, ThreadReply, ThreadRequest, ThreadStart } from './pglite-protocol.ts';

/** A request before its id is given (Omit over each member of the union, not over the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Request = WithoutId<ThreadRequest>;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export interface RemoteTransaction {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
}

const PROBE = '\u0000idv-parser-probe';

/**
 * PGlite's WebAssembly (9 MB), compiled once for the process and handed to each database thread:
 * a process that opens the database more than once (the admin command called in a process, the
 * tests) otherwise compiles it again at every opening, about 0.7 s of CPU each (measured on a
 * 2-core machine, six openings in a row: 12.6 s -> 8.8 s). A thread instantiates the compiled
 * module; the first opening costs the same as before.
 */
let pgliteWasm: Promise<WebAssembly.Module> | null = null;
function compiledPgliteWasm(): Promise<WebAssembly.Module> {
  pgliteWasm ??= (async () => {
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    return WebAssembly.compile(await readFile(join(dist, 'pglite.wasm')));
  })();
  return pgliteWasm;
}

/** The query's shape as sent: rowMode and the types read as text (cached per options object). */
const shapes = new WeakMap<QueryOptions, QueryShape>();
function shapeOf(options: QueryOptions | undefined): QueryShape {
  if (!options) return {};
  let shape = shapes.get(options);
  if (!shape) {
    const { rowMode, parsers, ...rest } = options;
    const unsupported = Object.entries(rest).filter(([, v]) => v !== undefined);
    if (unsupported.length) throw new Error(`query options not supported by the database thread: ${unsupported.map(([k]) => k).join(', ')}`);
    const rawTypes = parsers ? Object.keys(parsers).map(Number) : undefined;
    for (const t of rawTypes ?? []) {
      if ((parsers![t] as (v: string, t: number) => unknown)(PROBE, t) !== PROBE) throw new Error(`only identity parsers can be sent to the database thread (type ${t})`);
    }
    shape = { ...(rowMode ? { rowMode } : {}), ...(rawTypes ? { rawTypes } : {}) };
    shapes.set(options, shape);
  }
  return shape;
}

export class RemotePglite {
  private readonly pending = new Map<number, Pending>();
  /** Callbacks by the listener's id (one LISTEN on the database's thread each). */
  private readonly notify = new Map<number, () => void>();
  private next = 1;
  private failure: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: ThreadReply) => this.onMessage(m));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`the embedded database thread exited (code ${code})`)));
  }

  /** Requests sent to the database's thread and not answered yet (the metrics' pool use). */
  get unanswered(): number {
    return this.pending.size;
  }

  /**
   * Starts the thread and opens the database (a data directory, or memory when null, from a
   * snapshot if given). The thread runs pglite-thread.ts through tsx's require hook
   * (pglite-thread-entry.cjs), or, when PGLITE_THREAD_BUNDLE names a JavaScript build of it (the
   * test runner makes one with the test files' bundles), that build without tsx: tsx's hook in a
   * new thread cost about 0.4 s of CPU and half a second before the database was open, paid at
   * every opening (each test file's database, each start of a service the tests run).
   */
  static async open(dataDir: string | null, snapshot?: string): Promise<RemotePglite> {
    const wasmModule = await compiledPgliteWasm();
    const workerData = { dataDir, snapshot, wasmModule } satisfies ThreadStart;
    const bundle = process.env.PGLITE_THREAD_BUNDLE;
    const worker = bundle
      ? // No node options, so none of tsx's (V8's flags are the process's, and stay).
        new Worker(bundle, { workerData, execArgv: [] })
      : new Worker(new URL('./pglite-thread-entry.cjs', import.meta.url), { workerData });
    const remote = new RemotePglite(worker);
    await new Promise<void>((resolve, reject) => {
      const onReady = (m: ThreadReply) => {
        if (m.t !== 'ready') return;
        worker.off('message', onReady);
        worker.off('error', reject);
        resolve();
      };
      worker.on('message', onReady);
      worker.once('error', reject);
    });
    worker.unref();
    return remote;
  }

  query<T = Record<string, unknown>>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    return this.call({ t: 'query', text, params, ...shapeOf(options) }) as Promise<Results<T>>;
  }

  /** The data directory as a tarball, for `snapshot` (connect.ts). */
  dump(): Promise<Uint8Array> {
    return this.call({ t: 'dump' }) as Promise<Uint8Array>;
  }

  exec(text: string): Promise<Results[]> {
    return this.call({ t: 'exec', text }) as Promise<Results[]>;
  }

  /** As PGlite's: commits when `callback` returns, rolls back (and rethrows) when it throws. */
  async transaction<T>(callback: (tx: RemoteTransaction) => Promise<T>): Promise<T> {
    const tx = (await this.call({ t: 'begin' })) as number;
    const inside: RemoteTransaction = {
      query: <R>(text: string, params: unknown[] = [], options?: QueryOptions) =>
        this.call({ t: 'query', text, params, tx, ...shapeOf(options) }) as Promise<Results<R>>,
      exec: (text: string) => this.call({ t: 'exec', text, tx }) as Promise<Results[]>,
    };
    let result: T;
    try {
      result = await callback(inside);
    } catch (err) {
      await this.call({ t: 'end', tx, commit: false }).catch(() => {});
      throw err;
    }
    await this.call({ t: 'end', tx, commit: true });
    return result;
  }

  /** Calls `onNotify` on each NOTIFY of `channel`; returns the function that stops. */
  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    const listener = (await this.call({ t: 'listen', channel })) as number;
    this.notify.set(listener, onNotify);
    return async () => {
      this.notify.delete(listener);
      await this.call({ t: 'unlisten', listener });
    };
  }

  /** Closes the database, then stops its thread. */
  async close(): Promise<void> {
    if (this.failure) return;
    try {
      await this.call({ t: 'close' });
    } finally {
      this.failure = new Error('the embedded database is closed');
      await this.worker.terminate();
    }
  }

  private call(request: Request): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    // A call waiting for its answer keeps the process alive (the thread is unref'd when idle).
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id } as ThreadRequest);
    });
  }

  private onMessage(m: ThreadReply): void {
    if (m.t === 'notify') {
      this.notify.get(m.listener)?.();
      return;
    }
    if (m.t !== 'reply') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker.unref();
    if (m.error) p.reject(Object.assign(new Error(String(m.error.message)), m.error));
    else p.resolve(m.value);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
