import { join } from 'node:path';
import type { Db } from '@idv/db';
import type { BlobStore } from './blob-store.ts';
import { FileBlobStore } from './file-blob-store.ts';
import { PostgresBlobStore } from './postgres-blob-store.ts';

export type BlobStoreKind = 'file' | 'postgres';

/**
 * The one place the blob store is chosen (BLOB_STORE), for the API, the worker and `npm start`
 * alike: every process of a deployment must use the same one, or images written by one are not
 * found by another.
 */
export function openBlobStore(settings: { blobStore: BlobStoreKind; dataDir: string }, db: Db): BlobStore {
  return settings.blobStore === 'postgres' ? new PostgresBlobStore(db) : new FileBlobStore(join(settings.dataDir, 'blobs'));
}
