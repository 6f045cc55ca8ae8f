import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { caseKeys } from '../schema.ts';

export type CaseKeyRow = typeof caseKeys.$inferSelect;

const KEY_CLASSES = ['data', 'biometric'] as const;

export async function findCaseKey(db: Executor, caseId: string, keyClass: 'data' | 'biometric'): Promise<CaseKeyRow | null> {
  const [row] = await db.select().from(caseKeys).where(and(eq(caseKeys.caseId, caseId), eq(caseKeys.keyClass, keyClass)));
  return row ?? null;
}

/** Inserts the key unless one exists already (two writers racing keep the first); returns the stored row. */
export async function insertCaseKey(db: Executor, caseId: string, keyClass: 'data' | 'biometric', wrapped: string, now: Date): Promise<CaseKeyRow> {
  await db.insert(caseKeys).values({ caseId, keyClass, wrapped, createdAt: now }).onConflictDoNothing();
  return (await findCaseKey(db, caseId, keyClass))!;
}

/**
 * Crypto-shredding: forgets the wrapped keys of a case and leaves a tombstone for every class it
 * had no key of yet, so no personal data can be sealed for the case afterwards (a key is never
 * created over a tombstone). Returns how many existing keys were destroyed.
 */
export async function destroyCaseKeys(db: Executor, caseId: string, now: Date): Promise<number> {
  const rows = await db
    .update(caseKeys)
    .set({ wrapped: null, destroyedAt: now })
    .where(and(eq(caseKeys.caseId, caseId), isNull(caseKeys.destroyedAt)))
    .returning({ keyClass: caseKeys.keyClass });
  await db
    .insert(caseKeys)
    .values(KEY_CLASSES.map((keyClass) => ({ caseId, keyClass, wrapped: null, createdAt: now, destroyedAt: now })))
    .onConflictDoNothing();
  return rows.length;
}

/** True when the keys of the case were destroyed (erasure): nothing sealed for it opens any more. */
export async function caseKeysDestroyed(db: Executor, caseId: string): Promise<boolean> {
  const [row] = await db
    .select({ caseId: caseKeys.caseId })
    .from(caseKeys)
    .where(and(eq(caseKeys.caseId, caseId), isNotNull(caseKeys.destroyedAt)))
    .limit(1);
  return row !== undefined;
}

/** Stores a key made in memory for a new case (after the case row, in the same transaction). */
export async function storeCaseKey(db: Executor, row: typeof caseKeys.$inferInsert): Promise<void> {
  await db.insert(caseKeys).values(row);
}
