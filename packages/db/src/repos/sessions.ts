import { and, eq } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { sessions } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export type SessionRow = typeof sessions.$inferSelect;

export async function insertSession(tx: Executor, row: typeof sessions.$inferInsert): Promise<SessionRow> {
  const [inserted] = await tx.insert(sessions).values(row).returning();
  return inserted;
}

export async function findSession(db: Executor, tenant: Tenant, id: string): Promise<SessionRow | null> {
  const [row] = await db.select().from(sessions).where(and(tenantFilter(sessions, tenant), eq(sessions.id, id)));
  return row ?? null;
}
