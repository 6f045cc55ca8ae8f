import pg from 'pg';

// The driver's own mapping of a JS value to a parameter (dates, buffers, arrays, JSON), as its
// own queries bind them; pg exposes its utils on the module but not in its types.
const prepareValue = (pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils.prepareValue;
if (typeof prepareValue !== 'function') throw new Error('pg.utils.prepareValue is missing: this pg version is not supported by pg-batch.ts');

/**
 * Group commit for one hot named statement on PostgreSQL: executions that arrive while the
 * connections allowed to it are busy wait, and the next free connection sends them together, as
 * ONE round trip and ONE commit (Bind/Execute for each, a single Sync: the extended protocol's
 * implicit transaction). Under load a commit, its write-ahead-log flush and a round trip are then
 * shared by several creations instead of paid by each; an execution arriving at a quiet moment
 * runs at once, alone, so nothing waits for company.
 *
 * What each caller sees is what it would see alone, in order:
 * - a result is handed out only after the batch's commit (nothing is acknowledged that a crash
 *   could lose);
 * - executions sharing a `key` never share a batch (two creations under one Idempotency-Key must
 *   meet as concurrent twins, not as one transaction seeing its own first write);
 * - an error from PostgreSQL in a batch means the batch did not commit: a statement refused
 *   (PostgreSQL discards the rest until Sync and rolls back) or the connection ended by the
 *   server (FATAL, before the commit). Every execution of that batch then runs again alone, so
 *   only a faulty one fails;
 * - a connection lost without a word from PostgreSQL fails every execution of its batch, as it
 *   would fail a single statement: whether the commit happened is unknown, and only the caller
 *   (by its idempotency key) can tell.
 */
export interface BatchOptions {
  /** At most this many batches in flight, each on a pool connection (the rest of the pool serves everything else). */
  connections: number;
  /** At most this many executions in one batch (one Bind message each, up to 64 KiB). */
  maxBatch: number;
}

interface Pending {
  values: unknown[];
  key: string;
  resolve: (rows: Record<string, unknown>[]) => void;
  reject: (err: unknown) => void;
}

/** A named statement's name and text, shared by every execution of it. */
export interface NamedStatement {
  name: string;
  text: string;
}

/**
 * One execution of a named statement on the pool, alone: parsed and planned once per connection.
 * The driver copies a query's config (every own property, with its descriptor) before running
 * it: with name and text on a shared prototype, only `values` is copied per call.
 */
export async function queryNamed(pool: pg.Pool, statement: NamedStatement, values: unknown[]): Promise<Record<string, unknown>[]> {
  const config = Object.create(statement) as pg.QueryConfig;
  config.values = values;
  return (await pool.query(config)).rows;
}

export class StatementBatcher {
  private readonly queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly statement: NamedStatement,
    private readonly options: BatchOptions,
  ) {}

  /** Runs the statement with `values`; resolves with its rows once committed. */
  run(values: unknown[], key: string): Promise<Record<string, unknown>[]> {
    return new Promise((resolve, reject) => {
      // Mapped to parameters now: a value the driver cannot send fails its own execution here,
      // never a batch half written to the connection.
      this.queue.push({ values: values.map(prepareValue), key, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.connections && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** The oldest executions, up to maxBatch, no two with the same key (later twins keep their place). */
  private take(): Pending[] {
    const batch: Pending[] = [];
    const keys = new Set<string>();
    for (let i = 0; i < this.queue.length && batch.length < this.options.maxBatch; ) {
      const p = this.queue[i];
      if (keys.has(p.key)) {
        i++;
        continue;
      }
      keys.add(p.key);
      batch.push(p);
      this.queue.splice(i, 1);
    }
    return batch;
  }

  private async send(batch: Pending[]): Promise<void> {
    if (batch.length === 1) return this.alone(batch[0]);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    let results: Record<string, unknown>[][];
    try {
      results = await runBatch(client, new BatchQuery(this.statement, batch.map((p) => p.values)));
      if (results.length !== batch.length) throw new Error(`${this.statement.name}: ${results.length} results for a batch of ${batch.length}`);
    } catch (err) {
      // Not reused: PostgreSQL may have ended the connection (FATAL), and a batch failing is rare.
      client.release(err as Error);
      if (!(err instanceof pg.DatabaseError)) {
        for (const p of batch) p.reject(err);
        return;
      }
      // PostgreSQL refused a statement, or ended the connection, before the commit: each again alone, in order.
      for (const p of batch) await this.alone(p);
      return;
    }
    client.release();
    batch.forEach((p, i) => p.resolve(results[i]));
  }

  private async alone(p: Pending): Promise<void> {
    try {
      p.resolve(await queryNamed(this.pool, this.statement, p.values));
    } catch (err) {
      p.reject(err);
    }
  }
}

function runBatch(client: pg.PoolClient, query: BatchQuery): Promise<Record<string, unknown>[][]> {
  return new Promise((resolve, reject) => {
    query.callback = (err, results) => (err ? reject(err) : resolve(results!));
    // A submittable is queued like any query; the client answers through its callback.
    client.query(query as unknown as pg.QueryConfig);
  });
}

type Connection = {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { cork?: () => void; uncork?: () => void };
  parse(m: { text: string; name: string }): void;
  bind(m: { portal: string; statement: string; values: unknown[] }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(m: { portal: string; rows: number }): void;
  sync(): void;
};
type Field = { name: string; dataTypeID: number; format: string };

/**
 * The driver's "submittable" protocol (as pg-cursor uses it): the client hands the connection to
 * `submit` and the backend's messages to the handlers, then calls `callback` once. The rows of
 * each Execute end at its CommandComplete; all of them are answered at ReadyForQuery, after the
 * Sync's commit.
 */
class BatchQuery {
  callback?: (err: Error | null, results?: Record<string, unknown>[][]) => void;
  private settled = false;
  private fields: Field[] = [];
  private parsers: ((text: string) => unknown)[] = [];
  private readonly results: Record<string, unknown>[][] = [[]];
  private parseFailure: Error | null = null;

  /** The client reads the statement's name (and text) off the active query as it parses. */
  readonly name: string;
  readonly text: string;

  constructor(statement: NamedStatement, private readonly valueSets: unknown[][]) {
    this.name = statement.name;
    this.text = statement.text;
  }

  submit(connection: Connection): Error | null {
    connection.stream.cork?.();
    try {
      if (connection.parsedStatements[this.name] === undefined && connection.submittedNamedStatements[this.name] === undefined) {
        connection.parse({ text: this.text, name: this.name });
        connection.submittedNamedStatements[this.name] = this.text;
      }
      this.valueSets.forEach((values, i) => {
        connection.bind({ portal: '', statement: this.name, values }); // mapped by run()
        // The row's shape is the same for every execution: described once.
        if (i === 0) connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    this.fields = msg.fields;
    this.parsers = msg.fields.map((f) => pg.types.getTypeParser(f.dataTypeID, 'text') as (text: string) => unknown);
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    try {
      const row: Record<string, unknown> = {};
      msg.fields.forEach((value, i) => (row[this.fields[i].name] = value === null ? null : this.parsers[i](value)));
      this.results[this.results.length - 1].push(row);
    } catch (err) {
      this.parseFailure ??= err as Error;
    }
  }

  handleCommandComplete(): void {
    this.results.push([]);
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleError(err: Error): void {
    this.settle(err);
  }

  handleReadyForQuery(): void {
    if (this.parseFailure) return this.settle(this.parseFailure);
    this.results.pop(); // the empty list opened by the last CommandComplete
    this.settle(null, this.results);
  }

  /** Answers once: a connection lost after an error must not answer the batch twice. */
  private settle(err: Error | null, results?: Record<string, unknown>[][]): void {
    if (this.settled) return;
    this.settled = true;
    this.callback?.(err, results);
  }

  handleCopyInResponse(connection: { sendCopyFail(msg: string): void }): void {
    connection.sendCopyFail('not supported');
  }

  handleCopyData(): void {}
}
