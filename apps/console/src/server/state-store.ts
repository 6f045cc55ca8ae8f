import { createHash, randomBytes } from 'node:crypto';
import { deleteConsoleState, putConsoleState, readConsoleState, resealConsoleState, sweepConsoleState, takeConsoleState, touchConsoleState, type ConsoleStateKind, type Db } from '@idv/db';
import type { MasterKeyring } from '@idv/vault';

export type StateKind = ConsoleStateKind;

/** An opaque id for the browser (256 bits); only its hash is stored. */
export function newOpaqueId(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The console server's state in the database (table console_state), so that several console
 * instances share sessions, sign-ins in progress and pending actions. The row key is the SHA-256
 * of kind and id (the id itself, which the browser holds, is never stored); the content is sealed
 * with the master keyring and bound to that key, so a row copied elsewhere does not open.
 */
export class ConsoleStateStore {
  constructor(
    private readonly db: Db,
    private readonly keyring: MasterKeyring,
  ) {}

  static keyOf(kind: StateKind, id: string): string {
    return createHash('sha256').update(`${kind}:${id}`).digest('hex');
  }

  private aad(kind: StateKind, keyHash: string): string {
    return `console_state:${kind}:${keyHash}`;
  }

  async put<T>(kind: StateKind, id: string, value: T, now: Date, expiresAt: Date): Promise<void> {
    const keyHash = ConsoleStateStore.keyOf(kind, id);
    await putConsoleState(this.db, { keyHash, kind, sealed: this.keyring.seal(JSON.stringify(value), this.aad(kind, keyHash)), createdAt: now, expiresAt });
  }

  async read<T>(kind: StateKind, id: string, now: Date): Promise<T | null> {
    const keyHash = ConsoleStateStore.keyOf(kind, id);
    const row = await readConsoleState(this.db, keyHash, kind, now);
    return row ? (JSON.parse(this.keyring.openText(row.sealed, this.aad(kind, keyHash))) as T) : null;
  }

  /** Like read, with the row's current expiry (a session extended only when it has moved enough). */
  async readWithExpiry<T>(kind: StateKind, id: string, now: Date): Promise<{ value: T; expiresAt: Date } | null> {
    const keyHash = ConsoleStateStore.keyOf(kind, id);
    const row = await readConsoleState(this.db, keyHash, kind, now);
    return row ? { value: JSON.parse(this.keyring.openText(row.sealed, this.aad(kind, keyHash))) as T, expiresAt: row.expiresAt } : null;
  }

  /** Reads once: the row is deleted in the same statement (one-time state, results read once). */
  async take<T>(kind: StateKind, id: string, now: Date): Promise<T | null> {
    const keyHash = ConsoleStateStore.keyOf(kind, id);
    const row = await takeConsoleState(this.db, keyHash, kind, now);
    return row ? (JSON.parse(this.keyring.openText(row.sealed, this.aad(kind, keyHash))) as T) : null;
  }

  /** New content for an existing row (same key, same expiry). */
  async reseal<T>(kind: StateKind, id: string, value: T): Promise<void> {
    const keyHash = ConsoleStateStore.keyOf(kind, id);
    await resealConsoleState(this.db, keyHash, this.keyring.seal(JSON.stringify(value), this.aad(kind, keyHash)));
  }

  touch(kind: StateKind, id: string, expiresAt: Date): Promise<void> {
    return touchConsoleState(this.db, ConsoleStateStore.keyOf(kind, id), expiresAt);
  }

  delete(kind: StateKind, id: string): Promise<void> {
    return deleteConsoleState(this.db, ConsoleStateStore.keyOf(kind, id));
  }

  sweep(now: Date): Promise<number> {
    return sweepConsoleState(this.db, now);
  }
}
