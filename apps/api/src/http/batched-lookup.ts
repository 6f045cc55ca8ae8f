import DataLoader from 'dataloader';

/** The most keys one statement reads: a burst larger than this is read in several statements. */
const MAX_BATCH = 256;

/**
 * A read made per request (the key of every keyed call, the flow of every creation), gathered
 * across the requests of one turn of the event loop into one statement: under load, concurrent
 * requests share a round trip to the database instead of each paying its own, and a lone
 * request waits for nothing more than the end of the turn (setImmediate). Nothing is cached:
 * every load reaches the database, so a revocation or a new flow version applies to the next
 * request, on every instance.
 *
 * `read` returns the rows found for the keys; `keyOfRow` names the key each row answers.
 */
export function batchedLookup<K, V>(
  read: (keys: readonly K[]) => Promise<V[]>,
  keyOf: (key: K) => string,
  keyOfRow: (row: V) => string,
): DataLoader<K, V | null> {
  return new DataLoader<K, V | null>(
    async (keys) => {
      const rows = new Map((await read(keys)).map((row) => [keyOfRow(row), row]));
      return keys.map((k) => rows.get(keyOf(k)) ?? null);
    },
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (run) => setImmediate(run) },
  );
}
