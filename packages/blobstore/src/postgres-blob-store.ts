import { sql } from 'drizzle-orm';
import { driverOf, queryRows, type Db, type Executor } from '@idv/db';
import { checkId, checkSize, type BlobStore } from './blob-store.ts';

/** Bytes per chunk row: no row, and no statement parameter, is ever the size of a whole image. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks per INSERT statement (1 MiB of bytes): few round trips, no huge statement. */
const CHUNKS_PER_STATEMENT = 4;

/**
 * Blobs in the database itself (BLOB_STORE=postgres): a `blobs` row per blob, its bytes in
 * `blob_chunks` rows of 256 KiB, with the file store's semantics: a put is one transaction (old or
 * new blob, never half; the last put to commit wins), a get is one statement (one snapshot, in the
 * caller's transaction when given), a delete cascades to the chunks. Bytes cross as binary
 * parameters on node-postgres and as hexadecimal text on PGlite, whose bytea codec is slow.
 */
export class PostgresBlobStore implements BlobStore {
  private readonly binary: boolean;

  constructor(private readonly db: Db) {
    this.binary = driverOf(db) === 'postgres';
  }

  async put(id: string, bytes: Buffer): Promise<void> {
    checkId(id);
    checkSize(bytes);
    const chunkCount = Math.ceil(bytes.length / CHUNK_BYTES);
    await this.db.transaction(async (tx) => {
      await tx.execute(sql`
        INSERT INTO blobs (id, size_bytes, chunk_count, written_at) VALUES (${id}, ${bytes.length}, ${chunkCount}, now())
        ON CONFLICT (id) DO UPDATE SET size_bytes = EXCLUDED.size_bytes, chunk_count = EXCLUDED.chunk_count, written_at = EXCLUDED.written_at`);
      // A new statement, so it sees the chunks of a put that committed while this one waited for the row.
      await tx.execute(sql`DELETE FROM blob_chunks WHERE blob_id = ${id}`);
      for (let first = 0; first < chunkCount; first += CHUNKS_PER_STATEMENT) {
        const rows = [];
        for (let seq = first; seq < Math.min(first + CHUNKS_PER_STATEMENT, chunkCount); seq++) {
          const chunk = bytes.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES);
          rows.push(this.binary ? sql`(${id}, ${seq}, ${chunk})` : sql`(${id}, ${seq}, decode(${chunk.toString('hex')}, 'hex'))`);
        }
        await tx.execute(sql`INSERT INTO blob_chunks (blob_id, seq, data) VALUES ${sql.join(rows, sql`, `)}`);
      }
    });
  }

  async get(id: string, within?: Executor): Promise<Buffer | null> {
    checkId(id);
    const data = this.binary ? sql`c.data` : sql`encode(c.data, 'hex')`;
    const rows = await queryRows<{ size_bytes: number; data: Buffer | string | null }>(
      within ?? this.db,
      sql`SELECT b.size_bytes, ${data} AS data
          FROM blobs b LEFT JOIN blob_chunks c ON c.blob_id = b.id
          WHERE b.id = ${id} ORDER BY c.seq`,
    );
    if (rows.length === 0) return null;
    const size = Number(rows[0].size_bytes);
    const out = Buffer.allocUnsafe(size);
    let offset = 0;
    for (const row of rows) {
      if (row.data === null) continue; // an empty blob: no chunk
      const chunk = typeof row.data === 'string' ? Buffer.from(row.data, 'hex') : row.data;
      if (offset + chunk.length > size) throw new Error(`blob ${id} is damaged: its chunks exceed its size`);
      offset += chunk.copy(out, offset);
    }
    if (offset !== size) throw new Error(`blob ${id} is damaged: ${offset} of ${size} bytes`);
    return out;
  }

  async delete(id: string): Promise<void> {
    checkId(id);
    await this.db.execute(sql`DELETE FROM blobs WHERE id = ${id}`);
  }
}
