import { and, desc, eq, getTableName, gt, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { ALL_COUNTRIES, newId, type CaseJournalAction, type CaseState, type CaseStatus } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { caseJournal, cases, idempotencyKeys, reviewTasks } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';
import { doneEntriesUpsert, doneEntryRecord, type DoneEntry } from './idempotency.ts';
import { columnList, recordOf, textStatement } from './prepared.ts';

export type CaseRow = typeof cases.$inferSelect;

/** `json_populate_recordset` over parameter `$n`: the rows of `table` given as JSON (recordOf), numbered from 1. */
const rowsOf = (table: PgTable, n: number, alias: string) =>
  `json_populate_recordset(NULL::"${getTableName(table)}", $${n}::json) WITH ORDINALITY AS "${alias}"`;

/**
 * The creations of concurrent requests in one statement (a group commit): the idempotency entries
 * first ($1), then each case ($2, matched to its entry by position) and its journal entry ($3)
 * only where that entry was written. RETURNING the entries written.
 */
const createCasesStatement = textStatement(
  'idv_cases_create',
  `WITH "ei" AS (SELECT * FROM ${rowsOf(idempotencyKeys, 1, 'i')}),
    "e" AS (${doneEntriesUpsert('ei')}),
    "c" AS (INSERT INTO "cases" (${columnList(cases)})
      SELECT ${columnList(cases, 'r')} FROM ${rowsOf(cases, 2, 'r')}
      JOIN "ei" ON "ei"."ordinality" = "r"."ordinality"
      JOIN "e" ON "e"."api_key_id" = "ei"."api_key_id" AND "e"."key" = "ei"."key"
      RETURNING "id"),
    "j" AS (INSERT INTO "case_journal" (${columnList(caseJournal)})
      SELECT ${columnList(caseJournal, 'jr')} FROM ${rowsOf(caseJournal, 3, 'jr')}
      JOIN "c" ON "c"."id" = "jr"."case_id"
      RETURNING "id")
  SELECT "api_key_id", "key" FROM "e"`,
);

/** A new case, the journal entry of its creation, and the stored response of the request that creates it. */
export interface CaseCreation {
  row: CaseRow;
  journal: { actor: string; action: CaseJournalAction; detail: Record<string, unknown> };
  entry: DoneEntry;
}

/**
 * New cases, each with its journal entry and the stored response of the idempotent request that
 * creates it, in one statement: each entry first, and its case and journal entry only if the
 * entry was written (false, nothing of it written, when a live entry of that Idempotency-Key
 * decides instead). Rows are written exactly as given (defaults included), so the caller can
 * present them without reading them back. Two creations of one Idempotency-Key, or of one
 * signature, fail the whole statement, nothing written: the caller writes them one by one.
 */
export async function insertCasesWithResponses(db: Executor, creations: readonly CaseCreation[]): Promise<boolean[]> {
  const journalRows = creations.map(({ row, journal }) => ({
    id: newId('jrn', row.createdAt.getTime()),
    clientId: row.clientId,
    environment: row.environment,
    caseId: row.id,
    actor: journal.actor,
    action: journal.action,
    detail: journal.detail,
    at: row.createdAt,
  }) satisfies typeof caseJournal.$inferSelect);
  const written = await createCasesStatement(db, [
    JSON.stringify(creations.map((c) => doneEntryRecord(c.entry))),
    JSON.stringify(creations.map((c) => recordOf(cases, c.row))),
    JSON.stringify(journalRows.map((j) => recordOf(caseJournal, j))),
  ]);
  const keys = new Set(written.map((w) => `${w.api_key_id} ${w.key}`));
  return creations.map((c) => keys.has(`${c.entry.apiKeyId} ${c.entry.key}`));
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
  /** The case's own position (`resubmission_requested`, `approved`…), finer than its status. */
  state?: CaseState;
  flowName?: string;
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

/**
 * The cases an operator's clearance covers, as a case read by its id: the case's country, and no
 * review of the case above their sensitivity (the sensitivity is the task's, a case has none).
 */
export function caseClearanceWhere(clearance: { countries: readonly string[]; maxSensitivityRank: number }): SQL[] {
  const where: SQL[] = [];
  if (!clearance.countries.includes(ALL_COUNTRIES)) {
    where.push(clearance.countries.length ? inArray(cases.country, [...clearance.countries]) : sql`false`);
  }
  where.push(sql`NOT EXISTS (SELECT 1 FROM ${reviewTasks} WHERE ${reviewTasks.caseId} = ${cases.id} AND ${reviewTasks.sensitivityRank} > ${clearance.maxSensitivityRank})`);
  return where;
}

/** Newest first; returns up to limit + 1 rows so the caller can tell whether more follow. */
export async function listCases(db: Executor, tenant: Tenant, f: CaseFilters): Promise<CaseRow[]> {
  return db.select().from(cases).where(and(...caseFilterWhere(tenant, f))).orderBy(desc(cases.id)).limit(f.limit + 1);
}

/**
 * Every case the filters select, newest first, one page after the other (keyset on the id, so a
 * long export holds no cursor open between pages); `f.limit` is the page size.
 */
export async function* everyCase(db: Executor, tenant: Tenant, f: Omit<CaseFilters, 'cursor'>): AsyncGenerator<CaseRow[]> {
  let cursor: string | undefined;
  for (;;) {
    const rows = await listCases(db, tenant, { ...f, cursor });
    const page = rows.slice(0, f.limit);
    if (page.length > 0) yield page;
    if (rows.length <= f.limit) return;
    cursor = page[page.length - 1].id;
  }
}

function caseFilterWhere(tenant: Tenant, f: CaseFilters): SQL[] {
  const where: SQL[] = [tenantFilter(cases, tenant)];
  if (f.externalRef !== undefined) where.push(eq(cases.externalRef, f.externalRef));
  if (f.q !== undefined) {
    where.push(or(sql`starts_with(${cases.externalRef}, ${f.q})`, sql`starts_with(${cases.id}, ${f.q})`)!);
  }
  if (f.status) where.push(eq(cases.status, f.status));
  if (f.state) where.push(eq(cases.state, f.state));
  if (f.flowName) where.push(eq(cases.flowName, f.flowName));
  if (f.country) where.push(eq(cases.country, f.country));
  if (f.createdAfter) where.push(gt(cases.createdAt, f.createdAfter));
  if (f.createdBefore) where.push(lt(cases.createdAt, f.createdBefore));
  if (f.cursor) where.push(lt(cases.id, f.cursor));
  if (f.clearance) where.push(...caseClearanceWhere(f.clearance));
  return where;
}
