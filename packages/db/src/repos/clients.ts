import { eq } from 'drizzle-orm';
import { newId } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { clients } from '../schema.ts';

export async function createClient(db: Executor, name: string, now: Date) {
  const [row] = await db.insert(clients).values({ id: newId('cli', now.getTime()), name, createdAt: now }).returning();
  return row;
}

export async function findClient(db: Executor, id: string) {
  const [row] = await db.select().from(clients).where(eq(clients.id, id));
  return row ?? null;
}

export async function listClients(db: Executor) {
  return db.select().from(clients).orderBy(clients.id);
}
