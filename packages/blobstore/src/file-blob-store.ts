import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { checkId, checkSize, type BlobStore } from './blob-store.ts';

/**
 * Blobs as files under one directory, fanned out by the id's last two characters (ids are
 * time-sortable, so their end is the random part). A put writes a temporary file, syncs it and
 * renames it into place: a crash leaves the old blob or the new one, never half of one. Every API
 * and worker process must see the same directory (one machine, or a shared file system).
 */
export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  private pathOf(id: string): { folder: string; file: string } {
    const folder = join(this.dir, checkId(id).slice(-2));
    return { folder, file: join(folder, id) };
  }

  async put(id: string, bytes: Buffer): Promise<void> {
    const { folder, file } = this.pathOf(id);
    checkSize(bytes);
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
