import { createHmac } from 'node:crypto';
import type { BlobStore } from '@idv/blobstore';
import type { Executor, PieceRow } from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import type { CaseVault } from './case-vault.ts';

/**
 * Piece bytes are sealed under the case key of their class and written to the blob store; the
 * database keeps the blob id and a keyed fingerprint (HMAC-SHA256 under a key derived from the
 * master key), which tells two identical uploads apart from different ones without letting
 * anyone holding the database confirm a guess of the image.
 */
export class PieceBlobs {
  private readonly fingerprintKey: { keyId: string; key: Buffer };

  constructor(
    private readonly blobs: BlobStore,
    private readonly vault: CaseVault,
    keyring: MasterKeyring,
  ) {
    this.fingerprintKey = keyring.derive('piece-content-hmac');
  }

  fingerprint(bytes: Buffer): string {
    return `v1.${this.fingerprintKey.keyId}.${createHmac('sha256', this.fingerprintKey.key).update(bytes).digest('hex')}`;
  }

  /** Seals and writes the bytes; false when the case has been erased (no key: nothing may be stored). */
  async put(tx: Executor, caseId: string, pieceId: string, keyClass: 'data' | 'biometric', bytes: Buffer, now: Date): Promise<boolean> {
    const key = await this.vault.key(tx, caseId, keyClass, now);
    if (!key) return false;
    await this.blobs.put(pieceId, key.seal(bytes, `piece:${pieceId}`));
    return true;
  }

  /** The clear bytes of a piece, or null when its blob or its case key is gone. */
  async read(db: Executor, piece: PieceRow): Promise<Buffer | null> {
    if (piece.deletedAt) return null;
    const key = await this.vault.existingKey(db, piece.caseId, piece.keyClass);
    const sealed = key && (await this.blobs.get(piece.blobId, db));
    return sealed ? key.open(sealed, `piece:${piece.id}`) : null;
  }

  delete(blobId: string): Promise<void> {
    return this.blobs.delete(blobId);
  }
}

/** What a piece store is made of (the API's context holds all three). */
export interface PieceStoreParts {
  blobs: BlobStore;
  vault: CaseVault;
  keyring: MasterKeyring;
}

const perContext = new WeakMap<PieceStoreParts, PieceBlobs>();

/** The piece store of an app (one per context: the fingerprint key is derived once). */
export function pieceBlobs(ctx: PieceStoreParts): PieceBlobs {
  let blobs = perContext.get(ctx);
  if (!blobs) {
    blobs = new PieceBlobs(ctx.blobs, ctx.vault, ctx.keyring);
    perContext.set(ctx, blobs);
  }
  return blobs;
}
