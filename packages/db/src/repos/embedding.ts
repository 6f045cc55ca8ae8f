import { and, eq } from 'drizzle-orm';
import { newId, type ClientJournalAction } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { clientJournal, embeddingSettings } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export type EmbeddingRow = typeof embeddingSettings.$inferSelect;
export type ClientJournalRow = typeof clientJournal.$inferSelect;

/** The origins allowed to frame the journey; null when never set (which means none). */
export async function findEmbedding(db: Executor, tenant: Tenant): Promise<EmbeddingRow | null> {
  const [row] = await db.select().from(embeddingSettings).where(tenantFilter(embeddingSettings, tenant));
  return row ?? null;
}

export async function saveEmbedding(tx: Executor, tenant: Tenant, origins: string[], actor: string, now: Date): Promise<EmbeddingRow> {
  const [row] = await tx
    .insert(embeddingSettings)
    .values({ ...tenant, origins, updatedBy: actor, updatedAt: now })
    .onConflictDoUpdate({
      target: [embeddingSettings.clientId, embeddingSettings.environment],
      set: { origins, updatedBy: actor, updatedAt: now },
    })
    .returning();
  return row;
}

/** Client-level journal (settings changes); the caller passes its transaction so the entry commits with the act. */
export async function appendClientJournal(
  tx: Executor,
  tenant: Tenant,
  entry: { actor: string; action: ClientJournalAction; detail?: Record<string, unknown>; at: Date },
): Promise<void> {
  await tx.insert(clientJournal).values({ id: newId('jrn', entry.at.getTime()), ...tenant, ...entry, detail: entry.detail ?? {} });
}

export async function listClientJournal(db: Executor, tenant: Tenant): Promise<ClientJournalRow[]> {
  return db.select().from(clientJournal).where(and(tenantFilter(clientJournal, tenant), eq(clientJournal.clientId, tenant.clientId))).orderBy(clientJournal.id);
}
