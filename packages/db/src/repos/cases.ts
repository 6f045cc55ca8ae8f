import { and, desc, eq, getTableColumns, getTableName, gt, inArray, lt, or, sql, type Column, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { ALL_COUNTRIES, newId, type CaseStatus } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { caseJournal, cases, reviewTasks } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';
import { DONE_ENTRY_PARAMS, DONE_ENTRY_UPSERT, doneEntryValues, type DoneEntry } from './idempotency.ts';
import { encodeValues, textStatement } from './prepared.ts';

export type CaseRow = typeof cases.$inferSelect;

/** `INSERT INTO table (every column) SELECT $first::type, … FROM source`: a row written only if `source` has one. */
function insertFrom(table: PgTable, first: number, source: string): string {
  const columns = Object.values(getTableColumns(table) as Record<string, Column>);
  return `INSERT INTO "${getTableName(table)}" (${columns.map((c) => `"${c.name}"`).join(', ')})
    SELECT ${columns.map((c, i) => `$${first + i}::${c.getSQLType()}`).join(', ')} FROM "${source}"`;
}

const CASE_FIRST = DONE_ENTRY_PARAMS + 1;
const JOURNAL_FIRST = CASE_FIRST + Object.keys(getTableColumns(cases)).length;
const createCaseStatement = textStatement(
  'idv_case_create',
  `WITH "e" AS (${DONE_ENTRY_UPSERT}),
    "c" AS (${insertFrom(cases, CASE_FIRST, 'e')} RETURNING id),
    "j" AS (${insertFrom(caseJournal, JOURNAL_FIRST, 'c')} RETURNING id)
  SELECT count(*)::int AS n FROM "e"`,
);

/**
 * A new case, its journal entry and the stored response of the idempotent request that creates
 * it, in one statement: the entry first, and the case and its journal entry only if the entry was
 * written (false, nothing written, when a live entry of that Idempotency-Key decides instead). The
 * row is written exactly as given (defaults included), so the caller can present it without
 * reading it back.
 */
export async function insertCaseWithResponse(
  db: Executor,
  row: CaseRow,
  journal: { actor: string; action: string; detail: Record<string, unknown> },
  entry: DoneEntry,
): Promise<boolean> {
  const journalRow = {
    id: newId('jrn', row.createdAt.getTime()),
    clientId: row.clientId,
    environment: row.environment,
    caseId: row.id,
    actor: journal.actor,
    action: journal.action,
    detail: journal.detail,
    at: row.createdAt,
  } satisfies typeof caseJournal.$inferSelect;
  const [written] = await createCaseStatement(db, [...doneEntryValues(entry), ...encodeValues(cases, row), ...encodeValues(caseJournal, journalRow)]);
  return Number(written.n) > 0;
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
