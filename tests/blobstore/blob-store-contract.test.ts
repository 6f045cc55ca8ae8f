import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { CHUNK_BYTES, FileBlobStore, MAX_BLOB_BYTES, PostgresBlobStore, openBlobStore, type BlobStore } from '@idv/blobstore';
import { ConfigError, loadConfig } from '@idv/config';
import { queryRows, type Database } from '@idv/db';
import { TEST_DB, freshDatabase } from '../helpers/database.ts';

/**
 * One contract for every blob store: what the pieces, the erasure and the retention rely on. It runs
 * against the file store and the database store, on the database of the run (PGlite or PostgreSQL).
 */

let n = 0;
const newId = () => `pc_contract_${Date.now().toString(36)}_${(n++).toString(36)}`;

function contract(name: string, open: () => Promise<{ store: BlobStore; close: () => Promise<void> }>, extra?: (store: () => BlobStore) => void): void {
  describe(`${name} honours the blob store contract`, () => {
    let store: BlobStore;
    let close: () => Promise<void>;
    before(async () => ({ store, close } = await open()));
    after(() => close());

    test('a blob put is got back byte for byte; a missing one is null; ids are checked', async () => {
      const id = newId();
      const bytes = randomBytes(1000);
      await store.put(id, bytes);
      assert.deepEqual(await store.get(id), bytes);
      assert.equal(await store.get(newId()), null);
      await store.put(`${id}_empty`, Buffer.alloc(0));
      assert.deepEqual(await store.get(`${id}_empty`), Buffer.alloc(0), 'an empty blob is not a missing one');
      await assert.rejects(store.put('../etc/passwd', bytes), /blob id/);
      await assert.rejects(store.get('A'), /blob id/);
    });

    test('a second put of the same id replaces the blob whole, longer or shorter', async () => {
      const id = newId();
      const long = randomBytes(3 * CHUNK_BYTES + 11);
      const short = randomBytes(17);
      await store.put(id, long);
      await store.put(id, short);
      assert.deepEqual(await store.get(id), short);
      await store.put(id, long);
      assert.deepEqual(await store.get(id), long);
    });

    test('delete removes the blob; deleting a missing blob is fine', async () => {
      const id = newId();
      await store.put(id, randomBytes(CHUNK_BYTES + 1));
      await store.delete(id);
      assert.equal(await store.get(id), null);
      await store.delete(id);
      await store.delete(newId());
    });

    test('a large blob (10 MiB and a few bytes, many chunks) round-trips; an absurd size is refused and nothing stored', async () => {
      const id = newId();
      const big = randomBytes(10 * 1024 * 1024 + 7);
      await store.put(id, big);
      assert.ok((await store.get(id))!.equals(big));
      const absurd = newId();
      await assert.rejects(store.put(absurd, Buffer.alloc(MAX_BLOB_BYTES + 1)), /at most/);
      assert.equal(await store.get(absurd), null);
    });

    test('concurrent puts of one id: every put succeeds and the blob is one of them, whole', async () => {
      const id = newId();
      const versions = Array.from({ length: 6 }, (_, i) => randomBytes(2 * CHUNK_BYTES + 100 * i));
      await Promise.all(versions.map((v) => store.put(id, v)));
      const got = await store.get(id);
      assert.ok(got && versions.some((v) => v.equals(got)), 'the blob is exactly one of the versions put');
      // Reads while puts replace the blob never see a mix of two versions either.
      const reads = await Promise.all([...versions.map((v) => store.put(id, v).then(() => null)), ...versions.map(() => store.get(id))]);
      for (const r of reads) if (r) assert.ok(versions.some((v) => v.equals(r)), 'a read sees one version, whole');
    });

    extra?.(() => store);
  });
}

contract('FileBlobStore', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'idv-blobs-'));
  return { store: new FileBlobStore(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});

let database: Database;
contract(
  `PostgresBlobStore on ${TEST_DB}`,
  async () => {
    const fresh = await freshDatabase();
    database = fresh.database;
    return { store: new PostgresBlobStore(fresh.database.db), close: fresh.drop };
  },
  (store) => {
    const rowsOf = async (id: string) =>
      (await queryRows<{ n: number }>(database.db, sql`SELECT (SELECT count(*) FROM blobs WHERE id = ${id}) + (SELECT count(*) FROM blob_chunks WHERE blob_id = ${id}) AS n`))[0];

    test('chunks of at most 256 KiB; a shorter replacement leaves no old chunk behind; delete leaves no row', async () => {
      const id = newId();
      await store().put(id, randomBytes(5 * CHUNK_BYTES));
      const sizes = await queryRows<{ seq: number; size: number }>(database.db, sql`SELECT seq, length(data) AS size FROM blob_chunks WHERE blob_id = ${id} ORDER BY seq`);
      assert.deepEqual(sizes.map((c) => [Number(c.seq), Number(c.size)]), [0, 1, 2, 3, 4].map((s) => [s, CHUNK_BYTES]));
      await store().put(id, randomBytes(10));
      assert.equal(Number((await rowsOf(id)).n), 2, 'the blob row and one chunk');
      await store().delete(id);
      assert.equal(Number((await rowsOf(id)).n), 0, 'the bytes are deleted from the database, not hidden');
    });

    test("a read inside the caller's transaction goes through it (the embedded database has one connection: beside it, it would wait forever)", { timeout: 10_000 }, async () => {
      const id = newId();
      const bytes = randomBytes(CHUNK_BYTES + 3);
      await store().put(id, bytes);
      const got = await database.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT 1`);
        return store().get(id, tx);
      });
      assert.deepEqual(got, bytes);
    });
  },
);

test('BLOB_STORE: file by default, postgres on request, anything else refused at start', () => {
  const file = openBlobStore(loadConfig({ DATA_DIR: '/srv/idv' }), database.db);
  assert.ok(file instanceof FileBlobStore && file.dir === '/srv/idv/blobs');
  assert.ok(openBlobStore(loadConfig({ BLOB_STORE: 'postgres' }), database.db) instanceof PostgresBlobStore);
  assert.throws(() => loadConfig({ BLOB_STORE: 's3' }), (err) => err instanceof ConfigError && err.problems.some((p) => p.startsWith('BLOB_STORE must be file or postgres')));
});
