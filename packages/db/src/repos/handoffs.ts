import { aliasedTable, and, count, eq, gt, isNull } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { handoffs, sessions } from '../schema.ts';

export type HandoffRow = typeof handoffs.$inferSelect;

/** A handoff as the desktop follows it: the row and the expiry of the phone's session, once opened. */
export interface FollowedHandoff {
  handoff: HandoffRow;
  phoneSessionExpiresAt: Date | null;
}

export async function insertHandoff(tx: Executor, row: typeof handoffs.$inferInsert): Promise<HandoffRow> {
  const [inserted] = await tx.insert(handoffs).values(row).returning();
  return inserted;
}

/** How many handoffs a desktop session has asked for (they are bounded per session). */
export async function countHandoffsOfSession(db: Executor, sessionId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(handoffs).where(eq(handoffs.sessionId, sessionId));
  return Number(row?.n ?? 0);
}

/** A new code replaces the session's codes not opened yet: only the code on the screen works. */
export async function supersedeWaitingHandoffs(tx: Executor, sessionId: string, now: Date): Promise<void> {
  await tx
    .update(handoffs)
    .set({ supersededAt: now })
    .where(and(eq(handoffs.sessionId, sessionId), isNull(handoffs.openedAt), isNull(handoffs.supersededAt), gt(handoffs.expiresAt, now)));
}

const phoneSessions = aliasedTable(sessions, 'phone_sessions');

/** One handoff of a desktop session (another session's is not found), with the phone session's expiry. */
export async function findHandoffOfSession(db: Executor, sessionId: string, id: string): Promise<FollowedHandoff | null> {
  const [row] = await db
    .select({ handoff: handoffs, phoneSessionExpiresAt: phoneSessions.expiresAt })
    .from(handoffs)
    .leftJoin(phoneSessions, eq(phoneSessions.id, handoffs.phoneSessionId))
    .where(and(eq(handoffs.sessionId, sessionId), eq(handoffs.id, id)));
  return row ?? null;
}

/** The handoff of a short code, by the sha256 of the normalised code. */
export async function findHandoffByCodeHash(db: Executor, codeHash: string): Promise<HandoffRow | null> {
  const [row] = await db.select().from(handoffs).where(eq(handoffs.codeHash, codeHash));
  return row ?? null;
}

/**
 * Claims the code for one opening: only the first of concurrent openings finds it unopened (the
 * row lock makes the second wait, then see it opened). Returns null when it was already opened.
 */
export async function claimHandoff(tx: Executor, id: string, now: Date): Promise<HandoffRow | null> {
  const [row] = await tx.update(handoffs).set({ openedAt: now }).where(and(eq(handoffs.id, id), isNull(handoffs.openedAt))).returning();
  return row ?? null;
}

export async function setHandoffPhoneSession(tx: Executor, id: string, phoneSessionId: string): Promise<void> {
  await tx.update(handoffs).set({ phoneSessionId }).where(eq(handoffs.id, id));
}
