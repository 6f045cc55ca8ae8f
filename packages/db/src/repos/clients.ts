import { eq, sql } from 'drizzle-orm';
import { newId } from '@idv/domain';
import type { Executor, Tx } from '../connect.ts';
import { clients } from '../schema.ts';

export async function createClient(db: Executor, name: string, now: Date) {
  const [row] = await db.insert(clients).values({ id: newId('cli', now.getTime()), name, createdAt: now }).returning();
  return row;
}

/**
 * Whether any client exists, read under a transaction-level advisory lock on `lock` (any constant),
 * so that of two instances starting on one empty database only one sees none.
 */
export async function anyClientUnderLock(tx: Tx, lock: number): Promise<boolean> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${lock})`);
  const [row] = await tx.select({ id: clients.id }).from(clients).limit(1);
  return row !== undefined;
}

export async function findClient(db: Executor, id: string) {
  const [row] = await db.select().from(clients).where(eq(clients.id, id));
  return row ?? null;
}

export async function listClients(db: Executor) {
  return db.select().from(clients).orderBy(clients.id);
}
