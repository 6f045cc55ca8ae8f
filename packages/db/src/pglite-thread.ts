/**
 * The embedded database's own thread (started by pglite-remote.ts). PGlite runs PostgreSQL as
 * WebAssembly inside the process that calls it, synchronously: on the API's thread, every
 * statement would stop the event loop for its whole run (a case creation spends about half its
 * CPU there), and a service on PGlite would use one core. Here PGlite answers the calls of the
 * main thread, which meanwhile parses, checks, seals and answers other requests. Queries outside
 * a transaction run as named statements (pglite-statements.ts).
 *
 * Messages in: a query or exec (optionally inside an open transaction), begin and end of a
 * transaction, listen and unlisten, dump (the data directory as a tarball), close. Each is
 * answered by its id with a value or an error (a plain copy of the database error's fields: error
 * objects lose them between threads).
 * Notifications are posted as they come.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type QueryOptions, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { QueryShape, ThreadReply, ThreadRequest, ThreadStart } from './pglite-protocol.ts';
import { StatementCache, preparable } from './pglite-statements.ts';

const port = parentPort!;
const { dataDir, snapshot, wasmModule } = workerData as ThreadStart;
// The WebAssembly compiled by the main thread once for the process (see pglite-remote.ts), and
// pgvector (the face vector index, migration 0015), as PostgreSQL has it installed.
const shared = { pgliteWasmModule: wasmModule, extensions: { vector } };
const client = dataDir
  ? new PGlite(dataDir, shared)
  : snapshot
    ? new PGlite({ loadDataDir: new Blob([readFileSync(snapshot)]), ...shared })
    : new PGlite(shared);
const statements = new StatementCache(client);

/**
 * One operation at a time outside transactions, and none while a transaction is open (it holds
 * the gate from begin to end): named statements go through PGlite's protocol API, which does not
 * take PGlite's own lock, so nothing else may run meanwhile.
 */
let tail: Promise<void> = Promise.resolve();
function acquire(): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const ready = tail.then(() => release);
  tail = tail.then(() => held);
  return ready;
}
async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
  const release = await acquire();
  try {
    return await fn();
  } finally {
    release();
  }
}

interface OpenTransaction {
  tx: Transaction;
  end: (commit: boolean) => void;
  /** Settles when PGlite has committed or rolled back. */
  done: Promise<void>;
}
const transactions = new Map<number, OpenTransaction>();
const listeners = new Map<number, () => Promise<void>>();
/** Identity parsers by the type lists the main thread sends (drizzle's, always the same few). */
const rawParsers = new Map<string, QueryOptions['parsers']>();

/** A rollback asked for by the main thread: not an error of the transaction. */
class RolledBack extends Error {}

function optionsOf(m: QueryShape): QueryOptions | undefined {
  if (!m.rowMode && !m.rawTypes) return undefined;
  const key = m.rawTypes?.join(',') ?? '';
  let parsers = rawParsers.get(key);
  if (!parsers) {
    parsers = Object.fromEntries((m.rawTypes ?? []).map((t) => [t, (v: string) => v]));
    rawParsers.set(key, parsers);
  }
  return { rowMode: m.rowMode, ...(m.rawTypes ? { parsers } : {}) };
}

function runner(tx: number | undefined): Pick<Transaction, 'query' | 'exec'> {
  if (tx === undefined) return client;
  const open = transactions.get(tx);
  if (!open) throw new Error('the transaction is no longer open');
  return open.tx;
}

async function handle(m: ThreadRequest): Promise<unknown> {
  switch (m.t) {
    case 'query': {
      if (m.tx !== undefined) return runner(m.tx).query(m.text, m.params, optionsOf(m));
      const options = optionsOf(m);
      return exclusive(() => (preparable(options) ? statements.run(m.text, m.params ?? [], options) : client.query(m.text, m.params, options)));
    }
    case 'exec':
      return m.tx !== undefined ? runner(m.tx).exec(m.text) : exclusive(() => client.exec(m.text));
    case 'begin': {
      const release = await acquire();
      let end!: (commit: boolean) => void;
      const decided = new Promise<boolean>((resolve) => (end = resolve));
      let begun!: () => void;
      const started = new Promise<void>((resolve) => (begun = resolve));
      const done = client
        .transaction(async (tx) => {
          transactions.set(m.id, { tx, end, done });
          begun();
          if (!(await decided)) throw new RolledBack();
        })
        .then(
          () => undefined,
          (err) => {
            if (!(err instanceof RolledBack)) throw err;
          },
        )
        .finally(() => {
          transactions.delete(m.id);
          release();
        });
      // Its failure is answered to 'end' (or to this 'begin'), never left unhandled on the thread.
      done.catch(() => {});
      // BEGIN itself may fail (the database closed): then the transaction never starts.
      await Promise.race([started, done]);
      return m.id;
    }
    case 'end': {
      const open = transactions.get(m.tx);
      if (!open) throw new Error('the transaction is no longer open');
      open.end(m.commit);
      await open.done;
      return null;
    }
    case 'listen': {
      const unlisten = await exclusive(() => client.listen(m.channel, () => port.postMessage({ t: 'notify', listener: m.id } satisfies ThreadReply)));
      listeners.set(m.id, unlisten);
      return m.id;
    }
    case 'unlisten': {
      const unlisten = listeners.get(m.listener);
      listeners.delete(m.listener);
      if (unlisten) await exclusive(unlisten);
      return null;
    }
    case 'dump':
      // The data directory as an uncompressed tarball (loading it back is then a plain copy).
      return exclusive(async () => new Uint8Array(await (await client.dumpDataDir('none')).arrayBuffer()));
    case 'close':
      // Not behind the gate: a transaction left open must not keep the database from closing.
      await client.close();
      return null;
  }
}

/** The error's own fields that survive the trip (PGlite's DatabaseError: code, detail, constraint…). */
function plainError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const out: Record<string, unknown> = { name: err.name, message: err.message };
  for (const [k, v] of Object.entries(err)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
  return out;
}

// Ready when the database is (no top-level await: the thread's entry requires this module). A
// failure to open is thrown on the thread: the main thread sees it as the thread's error.
void client.waitReady.then(() => port.postMessage({ t: 'ready' } satisfies ThreadReply));

port.on('message', (m: ThreadRequest) => {
  handle(m).then(
    (value) => port.postMessage({ t: 'reply', id: m.id, value } satisfies ThreadReply),
    (err) => port.postMessage({ t: 'reply', id: m.id, error: plainError(err) } satisfies ThreadReply),
  );
});
