import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { StatementBatcher } from '../../packages/db/src/pg-batch.ts';
import { createPostgresDatabase } from '../helpers/database.ts';

/**
 * Group commit of a hot statement on PostgreSQL (packages/db/src/pg-batch.ts). These open the
 * PostgreSQL server whatever TEST_DB says, and run with the suite's PostgreSQL run only
 * (scripts/test.mjs).
 */
describe('statements batched into shared commits on PostgreSQL', () => {
  let pool: pg.Pool;
  let dropDb: () => Promise<void>;
  let n = 0;
  const insert = (connections: number) =>
    new StatementBatcher(
      pool,
      {
        name: `batch_probe_insert_${++n}`,
        text: 'INSERT INTO batch_probe (id, k) VALUES ($1::int, $2::text) RETURNING id, k, pg_current_xact_id()::text AS tx',
      },
      { connections, maxBatch: 32 },
    );
  const stored = async (ids: number[]) =>
    (await pool.query('SELECT id FROM batch_probe WHERE id = ANY($1::int[]) ORDER BY id', [ids])).rows.map((r) => r.id as number);

  before(async () => {
    const created = await createPostgresDatabase();
    dropDb = created.dropDb;
    pool = new pg.Pool({ connectionString: created.url, max: 4 });
    await pool.query('CREATE TABLE batch_probe (id int PRIMARY KEY, k text NOT NULL)');
  });
  after(async () => {
    await pool.end();
    await dropDb();
  });

  test('executions waiting for a connection share one commit, and each gets its own rows', async () => {
    const batcher = insert(1);
    const ids = Array.from({ length: 40 }, (_, i) => 1000 + i);
    const results = await Promise.all(ids.map((id) => batcher.run([id, `k${id}`], `k${id}`)));
    results.forEach((rows, i) => assert.deepEqual({ id: rows[0].id, k: rows[0].k }, { id: ids[i], k: `k${ids[i]}` }));
    const transactions = new Set(results.map((rows) => rows[0].tx));
    // The first runs alone; the 39 that queued behind it go in one or two more.
    assert.ok(transactions.size <= 3, `${transactions.size} transactions for 40 executions`);
    assert.deepEqual(await stored(ids), ids);
  });

  test('an execution at a quiet moment runs at once, alone', async () => {
    const batcher = insert(2);
    const a = await batcher.run([2000, 'a'], 'a');
    const b = await batcher.run([2001, 'b'], 'b');
    assert.notEqual(a[0].tx, b[0].tx);
  });

  test('a result is handed out only once its commit is visible to everyone', async () => {
    const batcher = insert(1);
    const ids = Array.from({ length: 20 }, (_, i) => 3000 + i);
    const seen = await Promise.all(
      ids.map(async (id) => {
        await batcher.run([id, `k${id}`], `k${id}`);
        // Another connection: it sees only what is committed.
        return (await stored([id])).length;
      }),
    );
    assert.deepEqual(seen, ids.map(() => 1));
  });

  test('a failing execution fails alone: the rest of its batch is stored once, in order', async () => {
    await pool.query('INSERT INTO batch_probe (id, k) VALUES (4010, $1)', ['taken']);
    const batcher = insert(1);
    const ids = Array.from({ length: 20 }, (_, i) => 4000 + i);
    const outcomes = await Promise.allSettled(ids.map((id) => batcher.run([id, `k${id}`], `k${id}`)));
    outcomes.forEach((o, i) => {
      if (ids[i] === 4010) {
        assert.equal(o.status, 'rejected');
        assert.equal(((o as PromiseRejectedResult).reason as { code?: string }).code, '23505');
      } else {
        assert.equal(o.status, 'fulfilled', `execution ${ids[i]}`);
      }
    });
    assert.deepEqual(await stored(ids), ids);
    const { rows } = await pool.query("SELECT k FROM batch_probe WHERE id = 4010");
    assert.deepEqual(rows, [{ k: 'taken' }]);
  });

  test('executions with the same key never share a batch', async () => {
    const batcher = insert(1);
    const ids = Array.from({ length: 30 }, (_, i) => 5000 + i);
    // Every third one under the key "same"; the rest under keys of their own.
    const keyOf = (i: number) => (i % 3 === 0 ? 'same' : `k${i}`);
    const results = await Promise.all(ids.map((id, i) => batcher.run([id, keyOf(i)], keyOf(i))));
    const sameTx = results.filter((_, i) => keyOf(i) === 'same').map((rows) => rows[0].tx);
    assert.equal(new Set(sameTx).size, sameTx.length, 'two executions under one key committed together');
    assert.ok(new Set(results.map((rows) => rows[0].tx)).size < ids.length, 'nothing was batched at all');
    assert.deepEqual(await stored(ids), ids);
  });

  test('a batch whose connection the server ends runs again alone: every execution stored, once', async () => {
    const batcher = new StatementBatcher(
      pool,
      { name: 'batch_probe_slow_insert', text: 'INSERT INTO batch_probe (id, k) SELECT $1::int, $2::text FROM pg_sleep($3::float8) RETURNING id' },
      { connections: 1, maxBatch: 32 },
    );
    const ids = Array.from({ length: 6 }, (_, i) => 7000 + i);
    // The first runs alone; the five queued behind it go as one batch of about a second.
    const running = Promise.allSettled(ids.map((id, i) => batcher.run([id, `k${id}`, i === 0 ? 0 : 0.2], `k${id}`)));
    let ended = 0;
    for (let tries = 0; tries < 100 && ended === 0; tries++) {
      await new Promise((r) => setTimeout(r, 20));
      const { rows } = await pool.query(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%batch_probe%pg_sleep%' AND state = 'active'`,
      );
      ended = rows.filter((r) => r.ok).length;
    }
    assert.equal(ended, 1, 'the batch was caught running');
    const outcomes = await running;
    assert.deepEqual(outcomes.map((o) => (o.status === 'fulfilled' ? o.value[0].id : String(o.reason))), ids);
    assert.deepEqual(await stored(ids), ids);
  });

  test('a value the driver cannot send fails its own execution, not its batch', async () => {
    const batcher = insert(1);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const ids = Array.from({ length: 10 }, (_, i) => 6000 + i);
    const outcomes = await Promise.allSettled(ids.map((id) => batcher.run([id, id === 6005 ? circular : `k${id}`], `k${id}`)));
    assert.deepEqual(outcomes.map((o) => o.status), ids.map((id) => (id === 6005 ? 'rejected' : 'fulfilled')));
    assert.deepEqual(await stored(ids), ids.filter((id) => id !== 6005));
  });

  test('parameters and rows go through the driver as a single query would (null, numbers, JSON)', async () => {
    const batcher = new StatementBatcher(
      pool,
      { name: 'batch_probe_types', text: 'SELECT $1::int AS n, $2::text AS t, $3::jsonb AS j, $4::timestamptz AS at' },
      { connections: 1, maxBatch: 32 },
    );
    const at = new Date('2026-01-02T03:04:05.678Z');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => batcher.run([i, i % 2 ? null : `t${i}`, JSON.stringify({ i }), at], `t${i}`)),
    );
    results.forEach((rows, i) => assert.deepEqual(rows, [{ n: i, t: i % 2 ? null : `t${i}`, j: { i }, at }]));
  });
});
