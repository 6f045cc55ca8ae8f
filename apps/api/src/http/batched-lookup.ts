import DataLoader from 'dataloader';

/** The most calls one statement serves: a burst larger than this runs as several statements. */
const MAX_BATCH = 256;

/**
 * A statement made per request, gathered across the requests of one turn of the event loop into
 * one statement: under load, concurrent requests share a round trip (and, for a write, a commit)
 * instead of each paying its own, and a lone request waits for nothing more than the end of the
 * turn (setImmediate). Nothing is cached: every call reaches the database.
 *
 * `run` answers every item of a batch, in order (an Error for an item that failed alone).
 */
function batched<K, V>(run: (items: readonly K[]) => Promise<(V | Error)[]>): DataLoader<K, V> {
  return new DataLoader<K, V>(run, { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (go) => setImmediate(go) });
}

/**
 * A read per request (the key of every keyed call, the flow of every creation) made as one
 * statement for the requests of a turn (batched): a revocation or a new flow version still
 * applies to the next request, on every instance. `read` returns the rows found for the keys;
 * `keyOfRow` names the key each row answers.
 */
export function batchedLookup<K, V>(
  read: (keys: readonly K[]) => Promise<V[]>,
  keyOf: (key: K) => string,
  keyOfRow: (row: V) => string,
): DataLoader<K, V | null> {
  return batched(async (keys: readonly K[]) => {
    const rows = new Map((await read(keys)).map((row) => [keyOfRow(row), row]));
    return keys.map((k) => rows.get(keyOf(k)) ?? null);
  });
}

/**
 * Writes of concurrent requests as one statement (a group commit). When the statement fails, the
 * writes are made again one by one, so that each gets its own outcome: one of them may have
 * failed the batch alone (a twin Idempotency-Key, a replayed signature), and a statement that
 * fails writes nothing.
 */
export function batchedWrite<K, V>(write: (items: readonly K[]) => Promise<V[]>): DataLoader<K, V> {
  return batched(async (items: readonly K[]) => {
    try {
      return await write(items);
    } catch (err) {
      if (items.length === 1) return [err instanceof Error ? err : new Error(String(err))];
      return Promise.all(items.map((item) => write([item]).then(([v]) => v, (e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
    }
  });
}
