import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where image bytes live: outside the database, already sealed by the caller (the store never
 * sees clear bytes and holds no key). The filesystem store is the default; an object store
 * (S3 and compatibles) implements the same three calls with PutObject, GetObject and DeleteObject
 * on the same ids, so several instances share one bucket.
 */
export interface BlobStore {
  /** Writes the blob durably; a second put of the same id replaces it. */
  put(id: string, bytes: Buffer): Promise<void>;
  /** The blob, or null when there is none (never written, or deleted). */
  get(id: string): Promise<Buffer | null>;
  /** Removes the blob; deleting a missing blob is not an error. */
  delete(id: string): Promise<void>;
}

const ID = /^[a-z][a-z0-9_]{2,63}$/;

function checkId(id: string): string {
  if (!ID.test(id)) throw new Error('a blob id is 3 to 64 lower-case letters, digits or underscores');
  return id;
}

/**
 * Blobs as files under one directory, fanned out by the id's last two characters (ids are
 * time-sortable, so their end is the random part). A put writes a temporary file, syncs it and
 * renames it into place: a crash leaves the old blob or the new one, never half of one.
 */
export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  private pathOf(id: string): { folder: string; file: string } {
    const folder = join(this.dir, checkId(id).slice(-2));
    return { folder, file: join(folder, id) };
  }

  async put(id: string, bytes: Buffer): Promise<void> {
    const { folder, file } = this.pathOf(id);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async get(id: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(id).file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(id: string): Promise<void> {
    await rm(this.pathOf(id).file, { force: true });
  }
}
