import { and, count, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { faceChallenges } from '../schema.ts';

export type FaceChallengeRow = typeof faceChallenges.$inferSelect;

export async function insertFaceChallenge(tx: Executor, row: typeof faceChallenges.$inferInsert): Promise<void> {
  await tx.insert(faceChallenges).values(row);
}

/** How many challenges a case has asked for (bounded per case). */
export async function countFaceChallenges(db: Executor, caseId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(faceChallenges).where(eq(faceChallenges.caseId, caseId));
  return Number(row?.n ?? 0);
}

/** One challenge of a case (another case's is not found). */
export async function findFaceChallenge(db: Executor, caseId: string, id: string): Promise<FaceChallengeRow | null> {
  const [row] = await db.select().from(faceChallenges).where(and(eq(faceChallenges.caseId, caseId), eq(faceChallenges.id, id)));
  return row ?? null;
}

/**
 * Marks the challenge answered, once: of concurrent answers (on any instance) only the first
 * finds it unanswered (the row lock makes the second wait, then see it answered).
 */
export async function answerFaceChallenge(tx: Executor, id: string, sequence: NonNullable<FaceChallengeRow['sequence']>, now: Date): Promise<boolean> {
  const rows = await tx
    .update(faceChallenges)
    .set({ answeredAt: now, sequence })
    .where(and(eq(faceChallenges.id, id), isNull(faceChallenges.answeredAt)))
    .returning({ id: faceChallenges.id });
  return rows.length === 1;
}

/** The newest answered challenge of a case up to a round: the sequence its checks judge. */
export async function latestAnsweredChallenge(db: Executor, caseId: string, round: number): Promise<FaceChallengeRow | null> {
  const rows = await db
    .select()
    .from(faceChallenges)
    .where(and(eq(faceChallenges.caseId, caseId)))
    .orderBy(desc(faceChallenges.answeredAt));
  return rows.find((r) => r.answeredAt && r.round <= round) ?? null;
}
