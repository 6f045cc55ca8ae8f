import { and, asc, eq, gt, isNotNull, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { operators } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export type OperatorRow = typeof operators.$inferSelect;

export async function insertOperator(tx: Executor, row: typeof operators.$inferInsert): Promise<OperatorRow> {
  const [inserted] = await tx.insert(operators).values(row).returning();
  return inserted;
}

/**
 * An operator already active and attached to an identity provider's subject, as the first resolve
 * of an invitation leaves it: for the demo's bootstrap, benchmarks and tests, which have no
 * administrator to invite with.
 */
export async function insertActiveOperator(
  tx: Executor,
  tenant: Tenant,
  spec: { id: string; name: string; role: OperatorRow['role']; subject: string; countries?: string[]; sensitivity?: OperatorRow['sensitivity']; createdBy: string },
  now: Date,
): Promise<OperatorRow> {
  return insertOperator(tx, {
    ...tenant,
    id: spec.id,
    name: spec.name,
    email: null,
    role: spec.role,
    countries: spec.countries ?? ['*'],
    sensitivity: spec.sensitivity ?? 'restricted',
    status: 'active',
    subject: spec.subject,
    lastConnectionAt: null,
    createdBy: spec.createdBy,
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
  });
}

/** Read on every operator-bound request (no cache): a change of clearance applies to the next request. */
export async function findOperator(db: Executor, tenant: Tenant, id: string): Promise<OperatorRow | null> {
  const [row] = await db.select().from(operators).where(and(tenantFilter(operators, tenant), eq(operators.id, id)));
  return row ?? null;
}

/** Locks the row until the end of the transaction (clearance changes and revocations serialise). */
export async function findOperatorForUpdate(tx: Executor, tenant: Tenant, id: string): Promise<OperatorRow | null> {
  const [row] = await tx.select().from(operators).where(and(tenantFilter(operators, tenant), eq(operators.id, id))).for('update');
  return row ?? null;
}

export async function findOperatorBySubject(tx: Executor, tenant: Tenant, subject: string): Promise<OperatorRow | null> {
  const [row] = await tx
    .select()
    .from(operators)
    .where(and(tenantFilter(operators, tenant), eq(operators.subject, subject)))
    .for('update');
  return row ?? null;
}

export async function findOperatorByInvitation(tx: Executor, tenant: Tenant, invitationHash: string): Promise<OperatorRow | null> {
  const [row] = await tx
    .select()
    .from(operators)
    .where(and(tenantFilter(operators, tenant), eq(operators.invitationHash, invitationHash)))
    .for('update');
  return row ?? null;
}

export async function updateOperator(tx: Executor, tenant: Tenant, id: string, patch: Partial<typeof operators.$inferInsert>): Promise<OperatorRow> {
  const [row] = await tx
    .update(operators)
    .set(patch)
    .where(and(tenantFilter(operators, tenant), eq(operators.id, id)))
    .returning();
  return row;
}

/** Oldest first (the id is the cursor); up to limit + 1 rows so the caller can tell whether more follow. */
export async function listOperators(db: Executor, tenant: Tenant, limit: number, startingAfter?: string): Promise<OperatorRow[]> {
  const where = startingAfter ? and(tenantFilter(operators, tenant), gt(operators.id, startingAfter)) : tenantFilter(operators, tenant);
  return db.select().from(operators).where(where).orderBy(asc(operators.id)).limit(limit + 1);
}

/** Names of the active operators, for the directory (no address, no clearance). */
export async function operatorDirectory(db: Executor, tenant: Tenant, limit: number): Promise<{ id: string; name: string }[]> {
  return db
    .select({ id: operators.id, name: operators.name })
    .from(operators)
    .where(and(tenantFilter(operators, tenant), eq(operators.status, 'active'), isNotNull(operators.subject)))
    .orderBy(sql`lower(${operators.name})`, asc(operators.id))
    .limit(limit);
}
