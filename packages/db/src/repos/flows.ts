import { and, desc, eq, sql } from 'drizzle-orm';
import { newId, type FlowDefinition } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { flows } from '../schema.ts';
import { perHandle, raw } from './prepared.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export type FlowRow = typeof flows.$inferSelect;

/** Adds the next version of a flow (as a draft), optionally activating it; run it inside a transaction. */
export async function createFlowVersion(
  tx: Executor,
  tenant: Tenant,
  name: string,
  definition: FlowDefinition,
  now: Date,
  activate: boolean,
): Promise<FlowRow> {
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

const activeFlow = perHandle((db) =>
  db
    .select()
    .from(flows)
    .where(
      and(
        eq(flows.clientId, raw('clientId')),
        eq(flows.environment, raw('environment')),
        eq(flows.name, raw('name')),
        eq(flows.status, 'active'),
      ),
    )
    .prepare('idv_flow_active'),
);

export async function findActiveFlow(db: Executor, tenant: Tenant, name: string): Promise<FlowRow | null> {
  const [row] = await activeFlow(db).execute({ clientId: tenant.clientId, environment: tenant.environment, name });
  return row ?? null;
}

export async function findFlowById(db: Executor, id: string): Promise<FlowRow | null> {
  const [row] = await db.select().from(flows).where(eq(flows.id, id));
  return row ?? null;
}

export async function listFlows(db: Executor, tenant: Tenant) {
  return db.select().from(flows).where(tenantFilter(flows, tenant)).orderBy(flows.name, desc(flows.version));
}
