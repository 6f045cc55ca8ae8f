import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '@idv/db';

/** The rows of `db.execute` (typed unknown by drizzle's generic database type). */
const rowsOf = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;

/**
 * The embedded database runs on a thread of its own (packages/db/src/pglite-remote.ts). These
 * open PGlite whatever TEST_DB says, and run once (scripts/test.mjs).
 */
describe('the embedded database on its own thread', () => {
  let database: Database;
  before(async () => {
    database = await openDatabase({ kind: 'pglite', memory: true });
    await database.db.execute(sql`CREATE TABLE thread_probe (id text PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`);
  });
  after(() => database.close());

  test('a long statement does not stop the event loop of the thread that asked', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    await database.db.execute(sql`SELECT count(*) FROM generate_series(1, 1000000)`);
    const ms = performance.now() - started;
    clearInterval(timer);
    assert.ok(ms > 100, `the statement should take a while to prove anything (took ${ms.toFixed(0)} ms)`);
    // On the same thread, no timer could fire until the statement returned.
    assert.ok(ticks >= ms / 5 / 4, `${ticks} ticks of 5 ms during ${ms.toFixed(0)} ms`);
  });

  test("a database error keeps PostgreSQL's fields (code, constraint, detail)", async () => {
    await database.db.execute(sql`INSERT INTO thread_probe (id) VALUES ('dup')`);
    const err = await database.db.execute(sql`INSERT INTO thread_probe (id) VALUES ('dup')`).then(
      () => null,
      (e: unknown) => e as Record<string, unknown>,
    );
    assert.ok(err instanceof Error);
    // drizzle wraps the driver's error; PGlite's fields are on the cause.
    const cause = ((err as { cause?: Record<string, unknown> }).cause ?? err) as Record<string, unknown>;
    assert.equal(cause.code, '23505');
    assert.equal(cause.constraint, 'thread_probe_pkey');
    assert.match(String(cause.detail), /\(id\)=\(dup\) already exists/);
  });

  test('a transaction commits when its callback returns, and rolls back when it throws', async () => {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO thread_probe (id) VALUES ('kept')`);
    });
    await assert.rejects(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO thread_probe (id) VALUES ('dropped')`);
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    const rows = await database.db.execute(sql`SELECT id FROM thread_probe WHERE id IN ('kept', 'dropped') ORDER BY id`);
    assert.deepEqual(rowsOf(rows), [{ id: 'kept' }]);
  });

  test('a statement outside an open transaction waits for it to end (one connection, in order)', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = database.db.transaction(async (t) => {
      await t.execute(sql`INSERT INTO thread_probe (id) VALUES ('in-tx')`);
      await held;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outside = database.db.execute(sql`SELECT count(*)::int AS n FROM thread_probe WHERE id = 'in-tx'`);
    let answered = false;
    void outside.then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(answered, false, 'answered while the transaction was still open');
    release();
    await tx;
    assert.deepEqual(rowsOf(await outside), [{ n: 1 }]);
  });

  test('each listener hears each NOTIFY once, at commit, until it stops listening', async () => {
    let a = 0;
    let b = 0;
    const stopA = await database.listen('thread_probe_channel', () => a++);
    const stopB = await database.listen('thread_probe_channel', () => b++);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`NOTIFY thread_probe_channel`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(a + b, 0, 'heard before the commit');
    });
    await database.db.execute(sql`SELECT 1`);
    assert.deepEqual([a, b], [1, 1]);
    await stopA();
    await database.db.execute(sql`NOTIFY thread_probe_channel`);
    assert.deepEqual([a, b], [1, 2]);
    await stopB();
  });

  test('timestamps and JSON come back as the driver gives them', async () => {
    const rows = await database.db.execute(sql`SELECT now() AS at, '{"a":[1,2]}'::jsonb AS j, 12345678901234::bigint AS big`);
    const row = rowsOf(rows)[0]!;
    assert.equal(typeof row.at, 'string', 'drizzle reads timestamps as text and maps them itself');
    assert.deepEqual(row.j, { a: [1, 2] });
    assert.equal(String(row.big), '12345678901234');
  });
});

describe('the embedded database in a data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'idv-thread-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('keeps what was written across a close and a reopen', async () => {
    const first = await openDatabase({ kind: 'pglite', dataDir: dir });
    await first.db.execute(sql`CREATE TABLE kept (v text)`);
    await first.db.execute(sql`INSERT INTO kept VALUES ('still here')`);
    await first.close();
    await assert.rejects(first.db.execute(sql`SELECT 1`), (err: Error) => /embedded database is closed/.test(String((err.cause as Error | undefined)?.message)));
    const second = await openDatabase({ kind: 'pglite', dataDir: dir });
    try {
      assert.deepEqual(rowsOf(await second.db.execute(sql`SELECT v FROM kept`)), [{ v: 'still here' }]);
    } finally {
      await second.close();
    }
  });
});
