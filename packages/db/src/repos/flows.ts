import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { newId, type CheckReport, type FlowDefinition } from '@idv/domain';
import { queryRows, type Executor } from '../connect.ts';
import { cases, flows, journeys } from '../schema.ts';
import { perHandle, raw } from './prepared.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export type FlowRow = typeof flows.$inferSelect;

/**
 * Serialises the changes of one flow name until the transaction ends: two versions created at once
 * would otherwise both read the same next number, and two activations both retire and both activate.
 */
async function lockFlowName(tx: Executor, tenant: Tenant, name: string): Promise<void> {
  await queryRows(tx, sql`SELECT pg_advisory_xact_lock(hashtextextended(${`flow:${tenant.clientId}:${tenant.environment}:${name}`}, 0))::text AS locked`);
}

/** Adds the next version of a flow (as a draft), optionally activating it; run it inside a transaction. */
export async function createFlowVersion(
  tx: Executor,
  tenant: Tenant,
  name: string,
  definition: FlowDefinition,
  now: Date,
  activate: boolean,
): Promise<FlowRow> {
  await lockFlowName(tx, tenant, name);
  const [{ next }] = await tx
    .select({ next: sql<number>`coalesce(max(${flows.version}), 0) + 1` })
    .from(flows)
    .where(and(tenantFilter(flows, tenant), eq(flows.name, name)));
  const [row] = await tx
    .insert(flows)
    .values({ id: newId('flw', now.getTime()), ...tenant, name, version: Number(next), definition, status: 'draft', createdAt: now })
    .returning();
  return activate ? activateFlowVersion(tx, tenant, name, row.version, now) : row;
}

/** Retires the active version (if any) and activates the named one; run it inside a transaction. */
export async function activateFlowVersion(tx: Executor, tenant: Tenant, name: string, version: number, now: Date): Promise<FlowRow> {
  await lockFlowName(tx, tenant, name);
  const same = and(tenantFilter(flows, tenant), eq(flows.name, name));
  await tx.update(flows).set({ status: 'retired' }).where(and(same, eq(flows.status, 'active')));
  const [row] = await tx
    .update(flows)
    .set({ status: 'active', activatedAt: now })
    .where(and(same, eq(flows.version, version)))
    .returning();
  if (!row) throw new Error(`flow ${name} has no version ${version}`);
  return row;
}

const activeFlows = perHandle((db) =>
  db
    .select()
    .from(flows)
    .where(
      and(
        eq(flows.status, 'active'),
        sql`(${flows.clientId}, ${flows.environment}, ${flows.name}) IN
          (SELECT * FROM unnest(${raw('clientIds')}::text[], ${raw('environments')}::text[], ${raw('names')}::text[]))`,
      ),
    )
    .prepare('idv_flows_active'),
);

/** The activated flows of these (tenant, name) pairs, in one statement (the creations of concurrent requests read together). */
export async function findActiveFlows(db: Executor, wanted: readonly { tenant: Tenant; name: string }[]): Promise<FlowRow[]> {
  return activeFlows(db).execute({
    clientIds: wanted.map((w) => w.tenant.clientId),
    environments: wanted.map((w) => w.tenant.environment),
    names: wanted.map((w) => w.name),
  });
}

export async function findActiveFlow(db: Executor, tenant: Tenant, name: string): Promise<FlowRow | null> {
  const [row] = await findActiveFlows(db, [{ tenant, name }]);
  return row ?? null;
}

export async function findFlowById(db: Executor, id: string): Promise<FlowRow | null> {
  const [row] = await db.select().from(flows).where(eq(flows.id, id));
  return row ?? null;
}

export interface FlowSummary {
  name: string;
  activeVersion: number | null;
  latestVersion: number;
  versions: number;
  updatedAt: Date;
}

/** One line per flow name (no definitions): its active and latest version, how many, when last changed. */
export async function listFlowSummaries(db: Executor, tenant: Tenant): Promise<FlowSummary[]> {
  const rows = await db
    .select({
      name: flows.name,
      activeVersion: sql<number | null>`max(${flows.version}) FILTER (WHERE ${flows.status} = 'active')`,
      latestVersion: sql<number>`max(${flows.version})`,
      versions: sql<number>`count(*)`,
      updatedAtMs: sql<number>`(extract(epoch from greatest(max(${flows.createdAt}), max(${flows.activatedAt}))) * 1000)::float8`,
    })
    .from(flows)
    .where(tenantFilter(flows, tenant))
    .groupBy(flows.name)
    .orderBy(flows.name);
  return rows.map((r) => ({
    name: r.name,
    activeVersion: r.activeVersion === null ? null : Number(r.activeVersion),
    latestVersion: Number(r.latestVersion),
    versions: Number(r.versions),
    updatedAt: new Date(Number(r.updatedAtMs)),
  }));
}

export async function listFlows(db: Executor, tenant: Tenant) {
  return db.select().from(flows).where(tenantFilter(flows, tenant)).orderBy(flows.name, desc(flows.version));
}

/** Every version of one flow name, newest first (definitions included). */
export async function listFlowVersions(db: Executor, tenant: Tenant, name: string): Promise<FlowRow[]> {
  return db.select().from(flows).where(and(tenantFilter(flows, tenant), eq(flows.name, name))).orderBy(desc(flows.version));
}

export async function findFlowVersion(db: Executor, tenant: Tenant, name: string, version: number): Promise<FlowRow | null> {
  const [row] = await db.select().from(flows).where(and(tenantFilter(flows, tenant), eq(flows.name, name), eq(flows.version, version)));
  return row ?? null;
}

/** Versions by row id, within the tenant (the dry run reads the versions its cases ran under). */
export async function findFlowsByIds(db: Executor, tenant: Tenant, ids: readonly string[]): Promise<FlowRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(flows).where(and(tenantFilter(flows, tenant), inArray(flows.id, [...ids])));
}

export interface DecidedCaseReports {
  id: string;
  flowId: string;
  reports: CheckReport[];
  /** The journey round the reports were made for (1 without a resubmission). */
  round: number;
}

/**
 * The stored check reports of the newest `limit` cases of a flow name that the checks decided (in
 * review or decided), for the dry run: ids, the version each ran under, the reports (verdicts and
 * measures, no personal data) and the journey round. No image and no sealed column is read.
 */
export async function listDecidedCaseReports(db: Executor, tenant: Tenant, flowName: string, limit: number): Promise<DecidedCaseReports[]> {
  const rows = await db
    .select({ id: cases.id, flowId: cases.flowId, reports: cases.checks, round: journeys.round })
    .from(cases)
    .leftJoin(journeys, eq(journeys.caseId, cases.id))
    .where(
      and(
        tenantFilter(cases, tenant),
        inArray(cases.status, ['review', 'decided']),
        eq(cases.flowName, flowName),
        sql`jsonb_array_length(${cases.checks}) > 0`,
      ),
    )
    .orderBy(desc(cases.id))
    .limit(limit);
  return rows.map((r) => ({ id: r.id, flowId: r.flowId, reports: r.reports as CheckReport[], round: r.round ?? 1 }));
}
