import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { caseKeys } from '../schema.ts';

export type CaseKeyRow = typeof caseKeys.$inferSelect;

export async function findCaseKey(db: Executor, caseId: string, keyClass: 'data' | 'biometric'): Promise<CaseKeyRow | null> {
  const [row] = await db.select().from(caseKeys).where(and(eq(caseKeys.caseId, caseId), eq(caseKeys.keyClass, keyClass)));
  return row ?? null;
}

/** Inserts the key unless one exists already (two writers racing keep the first); returns the stored row. */
export async function insertCaseKey(db: Executor, caseId: string, keyClass: 'data' | 'biometric', wrapped: string, now: Date): Promise<CaseKeyRow> {
  await db.insert(caseKeys).values({ caseId, keyClass, wrapped, createdAt: now }).onConflictDoNothing();
  return (await findCaseKey(db, caseId, keyClass))!;
}

/** Crypto-shredding: forgets the wrapped keys of a case; returns how many were destroyed. */
export async function destroyCaseKeys(db: Executor, caseId: string, now: Date): Promise<number> {
  const rows = await db
    .update(caseKeys)
    .set({ wrapped: null, destroyedAt: now })
    .where(and(eq(caseKeys.caseId, caseId), isNull(caseKeys.destroyedAt)))
    .returning({ keyClass: caseKeys.keyClass });
  return rows.length;
}
