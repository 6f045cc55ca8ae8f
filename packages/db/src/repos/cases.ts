import { and, desc, eq, gt, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import { ALL_COUNTRIES, newId, type CaseStatus } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { caseJournal, cases, reviewTasks } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';
import { encodeRow, perHandle, rowPlaceholders } from './prepared.ts';

export type CaseRow = typeof cases.$inferSelect;

const createCaseStatement = perHandle((db) => {
  const c = db.$with('c').as(db.insert(cases).values(rowPlaceholders(cases, 'c_')).returning({ id: cases.id }));
  const j = db.$with('j').as(db.insert(caseJournal).values(rowPlaceholders(caseJournal, 'j_')).returning({ id: caseJournal.id }));
  return db.with(c, j).select({ id: c.id }).from(c).prepare('idv_case_create');
});

/**
 * A new case and its journal entry in one statement. The row is written exactly as given
 * (defaults included), so the caller can present it without reading it back.
 */
export async function insertCaseWithJournal(
  tx: Executor,
  row: CaseRow,
  journal: { actor: string; action: string; detail: Record<string, unknown> },
): Promise<void> {
  const entry = {
    id: newId('jrn', row.createdAt.getTime()),
    clientId: row.clientId,
    environment: row.environment,
    caseId: row.id,
    actor: journal.actor,
    action: journal.action,
    detail: journal.detail,
    at: row.createdAt,
  } satisfies typeof caseJournal.$inferSelect;
  await createCaseStatement(tx).execute({ ...encodeRow(cases, 'c_', row), ...encodeRow(caseJournal, 'j_', entry) });
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
  /**
   * Case search by an operator (console): only cases within their clearance, as a case read by
   * its id (the case's country, and no review of the case above their sensitivity).
   */
  clearance?: { countries: readonly string[]; maxSensitivityRank: number };
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
  if (f.clearance) {
    if (!f.clearance.countries.includes(ALL_COUNTRIES)) {
      where.push(f.clearance.countries.length ? inArray(cases.country, [...f.clearance.countries]) : sql`false`);
    }
    where.push(
      sql`NOT EXISTS (SELECT 1 FROM ${reviewTasks} WHERE ${reviewTasks.caseId} = ${cases.id} AND ${reviewTasks.sensitivityRank} > ${f.clearance.maxSensitivityRank})`,
    );
  }
  return db.select().from(cases).where(and(...where)).orderBy(desc(cases.id)).limit(f.limit + 1);
}
