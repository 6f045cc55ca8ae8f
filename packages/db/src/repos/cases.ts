import { and, desc, eq, gt, lt, or, sql, type SQL } from 'drizzle-orm';
import type { CaseStatus } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { cases } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export type CaseRow = typeof cases.$inferSelect;

export async function insertCase(tx: Executor, row: typeof cases.$inferInsert): Promise<CaseRow> {
  const [inserted] = await tx.insert(cases).values(row).returning();
  return inserted;
}

export async function findCase(db: Executor, tenant: Tenant, id: string): Promise<CaseRow | null> {
  const [row] = await db.select().from(cases).where(and(tenantFilter(cases, tenant), eq(cases.id, id)));
  return row ?? null;
}

export interface CaseFilters {
  externalRef?: string;
  /** Prefix of the external reference or of the case id. */
  q?: string;
  status?: CaseStatus;
  country?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  cursor?: string;
  limit: number;
}

/** Newest first; returns up to limit + 1 rows so the caller can tell whether more follow. */
export async function listCases(db: Executor, tenant: Tenant, f: CaseFilters): Promise<CaseRow[]> {
  const where: SQL[] = [tenantFilter(cases, tenant)];
  if (f.externalRef !== undefined) where.push(eq(cases.externalRef, f.externalRef));
  if (f.q !== undefined) {
    where.push(or(sql`starts_with(${cases.externalRef}, ${f.q})`, sql`starts_with(${cases.id}, ${f.q})`)!);
  }
  if (f.status) where.push(eq(cases.status, f.status));
  if (f.country) where.push(eq(cases.country, f.country));
  if (f.createdAfter) where.push(gt(cases.createdAt, f.createdAfter));
  if (f.createdBefore) where.push(lt(cases.createdAt, f.createdBefore));
  if (f.cursor) where.push(lt(cases.id, f.cursor));
  return db.select().from(cases).where(and(...where)).orderBy(desc(cases.id)).limit(f.limit + 1);
}
