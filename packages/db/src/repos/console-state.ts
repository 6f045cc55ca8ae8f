import { and, eq, gt, lte } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { consoleState } from '../schema.ts';

export type ConsoleStateRow = typeof consoleState.$inferSelect;
export type ConsoleStateKind = ConsoleStateRow['kind'];

/** Rows of the console server's state (see the table); the console seals and opens `sealed`. */
export async function putConsoleState(db: Executor, row: ConsoleStateRow): Promise<void> {
  await db.insert(consoleState).values(row);
}

/** The row when it exists, is of that kind and has not expired. */
export async function readConsoleState(db: Executor, keyHash: string, kind: ConsoleStateKind, now: Date): Promise<ConsoleStateRow | null> {
  const [row] = await db
    .select()
    .from(consoleState)
    .where(and(eq(consoleState.keyHash, keyHash), eq(consoleState.kind, kind), gt(consoleState.expiresAt, now)));
  return row ?? null;
}

/** Reads and deletes in one statement: of two instances taking the same row, one gets it. */
export async function takeConsoleState(db: Executor, keyHash: string, kind: ConsoleStateKind, now: Date): Promise<ConsoleStateRow | null> {
  const [row] = await db
    .delete(consoleState)
    .where(and(eq(consoleState.keyHash, keyHash), eq(consoleState.kind, kind)))
    .returning();
  return row && row.expiresAt > now ? row : null;
}

export async function touchConsoleState(db: Executor, keyHash: string, expiresAt: Date): Promise<void> {
  await db.update(consoleState).set({ expiresAt }).where(eq(consoleState.keyHash, keyHash));
}

/** Replaces the sealed content in place (a session keeps its row while its token is renewed). */
export async function resealConsoleState(db: Executor, keyHash: string, sealed: string): Promise<void> {
  await db.update(consoleState).set({ sealed }).where(eq(consoleState.keyHash, keyHash));
}

export async function deleteConsoleState(db: Executor, keyHash: string): Promise<void> {
  await db.delete(consoleState).where(eq(consoleState.keyHash, keyHash));
}

/** Removes what has expired; returns how many rows. */
export async function sweepConsoleState(db: Executor, now: Date): Promise<number> {
  const gone = await db.delete(consoleState).where(lte(consoleState.expiresAt, now)).returning({ keyHash: consoleState.keyHash });
  return gone.length;
}
