import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { journeys, pieces, sessions } from '../schema.ts';
import type { Tenant } from './tenant.ts';

export type JourneyRow = typeof journeys.$inferSelect;
export type PieceRow = typeof pieces.$inferSelect;
export type SessionByToken = typeof sessions.$inferSelect;

/** The session of a journey token (by the sha256 of the token); the token is the only credential. */
export async function findSessionByTokenHash(db: Executor, tokenHash: string): Promise<SessionByToken | null> {
  const [row] = await db.select().from(sessions).where(eq(sessions.tokenHash, tokenHash));
  return row ?? null;
}

export async function findJourney(db: Executor, caseId: string): Promise<JourneyRow | null> {
  const [row] = await db.select().from(journeys).where(eq(journeys.caseId, caseId));
  return row ?? null;
}

/** The journey of a case, created at the first call of the person. */
export async function ensureJourney(tx: Executor, tenant: Tenant, caseId: string, now: Date): Promise<JourneyRow> {
  await tx.insert(journeys).values({ caseId, ...tenant, updatedAt: now }).onConflictDoNothing();
  return (await findJourney(tx, caseId))!;
}

export async function updateJourney(tx: Executor, caseId: string, patch: Partial<typeof journeys.$inferInsert>, now: Date): Promise<JourneyRow> {
  const [row] = await tx.update(journeys).set({ ...patch, updatedAt: now }).where(eq(journeys.caseId, caseId)).returning();
  return row;
}

/** Every piece of a case, oldest first (superseded and deleted ones included). */
export async function listPieces(db: Executor, caseId: string): Promise<PieceRow[]> {
  return db.select().from(pieces).where(eq(pieces.caseId, caseId)).orderBy(asc(pieces.id));
}

/** Pieces of several cases in one query (case lists). */
export async function listPiecesOfCases(db: Executor, caseIds: string[]): Promise<PieceRow[]> {
  if (caseIds.length === 0) return [];
  return db.select().from(pieces).where(inArray(pieces.caseId, caseIds)).orderBy(asc(pieces.id));
}

export async function countPieceUploads(db: Executor, caseId: string, kind: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(pieces)
    .where(and(eq(pieces.caseId, caseId), eq(pieces.kind, kind)));
  return Number(row?.n ?? 0);
}

export async function insertPiece(tx: Executor, row: typeof pieces.$inferInsert): Promise<PieceRow> {
  const [inserted] = await tx.insert(pieces).values(row).returning();
  return inserted;
}

/** Where the checks found the face on a piece (a document's front); null where they found none. */
export async function setPieceFaceBox(tx: Executor, id: string, box: PieceRow['faceBox']): Promise<void> {
  await tx.update(pieces).set({ faceBox: box }).where(eq(pieces.id, id));
}

/** Marks a piece replaced by a retake; its blob is deleted by the caller once this commits. */
export async function supersedePiece(tx: Executor, id: string, now: Date): Promise<void> {
  await tx.update(pieces).set({ supersededAt: now, deletedAt: now }).where(eq(pieces.id, id));
}
