/**
 * Where image bytes live, already sealed by the caller (the store never sees clear bytes and holds
 * no key). Two stores implement it: files under DATA_DIR (the default) and the database itself
 * (BLOB_STORE=postgres); an object store (S3 and compatibles) would implement the same three calls
 * with PutObject, GetObject and DeleteObject on the same ids.
 */
import type { Executor } from '@idv/db';

export interface BlobStore {
  /** Writes the blob durably and atomically (a crash leaves the old blob or the new one); a second put of the same id replaces it. */
  put(id: string, bytes: Buffer): Promise<void>;
  /**
   * The blob, or null when there is none (never written, or deleted). `within`: the caller's open
   * transaction, if any. The database store reads through it: on the embedded database the
   * transaction holds the only connection, so a read beside it would wait for it forever. Other
   * stores ignore it.
   */
  get(id: string, within?: Executor): Promise<Buffer | null>;
  /** Removes the blob; deleting a missing blob is not an error. */
  delete(id: string): Promise<void>;
}

/**
 * The largest blob a store accepts. Images are refused by the API beyond 10 MB (IMAGE_LIMITS), and
 * sealing adds a few dozen bytes; anything near this is a bug upstream, refused before it fills a
 * disk or a table.
 */
export const MAX_BLOB_BYTES = 32 * 1024 * 1024;

const ID = /^[a-z][a-z0-9_]{2,63}$/;

export function checkId(id: string): string {
  if (!ID.test(id)) throw new Error('a blob id is 3 to 64 lower-case letters, digits or underscores');
  return id;
}

export function checkSize(bytes: Buffer): Buffer {
  if (bytes.length > MAX_BLOB_BYTES) throw new Error(`a blob may be at most ${MAX_BLOB_BYTES} bytes (got ${bytes.length})`);
  return bytes;
}
