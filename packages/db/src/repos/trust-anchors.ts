import { and, asc, count, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../connect.ts';
import { trustAnchors } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export type TrustAnchorRow = typeof trustAnchors.$inferSelect;

/**
 * What wallet verification needs of an anchor: its kind and certificate. Built-in anchors (the
 * sandbox test issuer) have the same shape, so a caller can concatenate them with a client's own.
 */
export type TrustAnchorCertificate = Pick<TrustAnchorRow, 'kind' | 'certificatePem'>;

/** The tenant's anchors, oldest first (the order they were added; at most 100 per tenant by the API's limit). */
export async function listTrustAnchors(db: Executor, tenant: Tenant): Promise<TrustAnchorRow[]> {
  return db.select().from(trustAnchors).where(tenantFilter(trustAnchors, tenant)).orderBy(asc(trustAnchors.createdAt), asc(trustAnchors.id));
}

/** The anchor, or null when the tenant has none with this id (another client's is none). */
export async function findTrustAnchor(db: Executor, tenant: Tenant, id: string): Promise<TrustAnchorRow | null> {
  const [row] = await db.select().from(trustAnchors).where(and(tenantFilter(trustAnchors, tenant), eq(trustAnchors.id, id)));
  return row ?? null;
}

/** The tenant's anchor for this certificate (SHA-256 of the DER, hex), or null. */
export async function findTrustAnchorByFingerprint(db: Executor, tenant: Tenant, fingerprint: string): Promise<TrustAnchorRow | null> {
  const [row] = await db.select().from(trustAnchors).where(and(tenantFilter(trustAnchors, tenant), eq(trustAnchors.fingerprint, fingerprint)));
  return row ?? null;
}

/**
 * Serialises the tenant's anchor additions until the transaction ends (a transaction-level
 * advisory lock), so that the count read before an insert stays true: two concurrent uploads
 * cannot both pass the limit.
 */
export async function lockTrustAnchors(tx: Executor, tenant: Tenant): Promise<void> {
  await queryRows(tx, sql`SELECT pg_advisory_xact_lock(hashtextextended(${`trust_anchors:${tenant.clientId}:${tenant.environment}`}, 0))::text AS locked`);
}

export async function countTrustAnchors(db: Executor, tenant: Tenant): Promise<number> {
  const [row] = await db.select({ n: count() }).from(trustAnchors).where(tenantFilter(trustAnchors, tenant));
  return Number(row.n);
}

/**
 * Inserts the anchor; null when the tenant already has this certificate (the unique index on
 * client, environment and fingerprint decides, so two concurrent uploads cannot both win).
 */
export async function insertTrustAnchor(tx: Executor, row: typeof trustAnchors.$inferInsert): Promise<TrustAnchorRow | null> {
  const [inserted] = await tx.insert(trustAnchors).values(row).onConflictDoNothing().returning();
  return inserted ?? null;
}

/** Deletes the tenant's anchor and returns it; null when there was none. */
export async function deleteTrustAnchor(tx: Executor, tenant: Tenant, id: string): Promise<TrustAnchorRow | null> {
  const [deleted] = await tx.delete(trustAnchors).where(and(tenantFilter(trustAnchors, tenant), eq(trustAnchors.id, id))).returning();
  return deleted ?? null;
}
