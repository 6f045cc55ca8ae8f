import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { apiKeys } from '../schema.ts';
import { perHandle, raw } from './prepared.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKey(db: Executor, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [inserted] = await db.insert(apiKeys).values(row).returning();
  return inserted;
}

const bySecretHashes = perHandle((db) =>
  db
    .select()
    .from(apiKeys)
    .where(sql`${apiKeys.secretHash} = ANY(${raw('hashes')}::text[])`)
    .prepare('idv_api_keys_by_hashes'),
);

/**
 * The keys of these secret hashes, in one statement: the keys of concurrent requests are read
 * together (http/batched-lookup.ts). Read on every request (no cache), so a revocation applies to
 * the next request on every instance.
 */
export async function findApiKeysBySecretHashes(db: Executor, hashes: readonly string[]): Promise<ApiKeyRow[]> {
  return bySecretHashes(db).execute({ hashes: [...hashes] });
}

/** Newest first; `startingAfter` is the id of the last key of the previous page. */
export async function listApiKeys(db: Executor, tenant: Tenant, limit: number, startingAfter?: string) {
  const where = startingAfter
    ? and(tenantFilter(apiKeys, tenant), lt(apiKeys.id, startingAfter))
    : tenantFilter(apiKeys, tenant);
  return db.select().from(apiKeys).where(where).orderBy(desc(apiKeys.id)).limit(limit + 1);
}

export async function findApiKey(db: Executor, tenant: Tenant, id: string): Promise<ApiKeyRow | null> {
  const [row] = await db.select().from(apiKeys).where(and(tenantFilter(apiKeys, tenant), eq(apiKeys.id, id)));
  return row ?? null;
}

/** Marks the key revoked (keeps the first revocation time); returns false when no such key. */
export async function revokeApiKey(db: Executor, tenant: Tenant, id: string, at: Date): Promise<boolean> {
  const key = await findApiKey(db, tenant, id);
  if (!key) return false;
  if (!key.revokedAt) await db.update(apiKeys).set({ revokedAt: at }).where(eq(apiKeys.id, id));
  return true;
}
