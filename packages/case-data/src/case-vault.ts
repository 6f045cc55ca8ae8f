import { caseKeysDestroyed, destroyCaseKeys, findCaseKey, insertCaseKey, storeCaseKey, type Executor } from '@idv/db';
import { CaseKey, newCaseKey, type KeyClass, type KeyWrapper } from '@idv/vault';
import { ApiError } from '@idv/domain';

/**
 * Personal data of a case is sealed under that case's own data keys: `data` for what is read,
 * declared, entered or written about the person, `biometric` for portraits, selfies and face
 * templates. Keys are created on first use and destroyed at erasure, after which `open*` answers
 * null: the data is gone everywhere, backups included.
 */
export class CaseVault {
  constructor(private readonly wrapper: KeyWrapper) {}

  /** The case's key of that class, created if it has none; null once erased. */
  async key(tx: Executor, caseId: string, keyClass: KeyClass, now: Date): Promise<CaseKey | null> {
    let row = await findCaseKey(tx, caseId, keyClass);
    if (!row) {
      const { wrapped } = await newCaseKey(this.wrapper, caseId, keyClass);
      row = await insertCaseKey(tx, caseId, keyClass, wrapped, now);
    }
    if (!row.wrapped) return null;
    return CaseKey.unwrap(this.wrapper, caseId, { keyClass, wrapped: row.wrapped });
  }

  /** The existing key, without creating one; null when absent or erased. */
  async existingKey(db: Executor, caseId: string, keyClass: KeyClass): Promise<CaseKey | null> {
    const row = await findCaseKey(db, caseId, keyClass);
    return row?.wrapped ? CaseKey.unwrap(this.wrapper, caseId, { keyClass, wrapped: row.wrapped }) : null;
  }

  /** Seals a JSON value for a case; refuses (throws) on an erased case, which must receive no new data. */
  async sealJson(tx: Executor, caseId: string, keyClass: KeyClass, purpose: string, value: unknown, now: Date): Promise<string> {
    const key = await this.key(tx, caseId, keyClass, now);
    if (!key) throw new ApiError('case_erased', 'The personal data of this case has been erased: it receives no new personal data.');
    return key.sealJson(value, purpose);
  }

  async openJson<T>(db: Executor, caseId: string, keyClass: KeyClass, purpose: string, sealed: string): Promise<T | null> {
    const key = await this.existingKey(db, caseId, keyClass);
    return key ? key.openJson<T>(sealed, purpose) : null;
  }

  /**
   * A key for a case being created in the same transaction: made in memory now (so values can be
   * sealed before the case row exists) and stored by `store` once the case row is written.
   */
  async newKey(caseId: string, keyClass: KeyClass, now: Date): Promise<{ key: CaseKey; store: (tx: Executor) => Promise<void> }> {
    const wrapped = await newCaseKey(this.wrapper, caseId, keyClass);
    const key = await CaseKey.unwrap(this.wrapper, caseId, wrapped);
    return { key, store: (tx) => storeCaseKey(tx, { caseId, keyClass, wrapped: wrapped.wrapped, createdAt: now }) };
  }

  /** True once the case's keys were destroyed by erasure. */
  isErased(db: Executor, caseId: string): Promise<boolean> {
    return caseKeysDestroyed(db, caseId);
  }

  /**
   * Destroys every key of the case (crypto-shredding) and leaves tombstones, so the case never
   * receives a key again; returns how many keys were destroyed.
   */
  destroy(tx: Executor, caseId: string, now: Date): Promise<number> {
    return destroyCaseKeys(tx, caseId, now);
  }
}
