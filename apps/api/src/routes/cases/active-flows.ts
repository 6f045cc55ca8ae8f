import { findActiveFlow, type Db, type FlowRow, type Tenant } from '@idv/db';

/**
 * The active flow per (client, environment, flow name), remembered by this process for the
 * one-statement case creation, which needs the flow (its lifetime gives the case's expires_at)
 * before its statement runs. The statement itself writes only while the flow remembered is still
 * the active one, and otherwise says so: the caller then asks again with `refresh`. A flow row
 * never changes but for its status, so a remembered row is exact or retired, never altered.
 * Only found flows are remembered: an unknown name is read each time (and refused elsewhere).
 */
const byDb = new WeakMap<Db, Map<string, FlowRow>>();
const MAX = 10_000;

export async function activeFlowOf(db: Db, tenant: Tenant, name: string, refresh: boolean): Promise<FlowRow | null> {
  let flows = byDb.get(db);
  if (!flows) byDb.set(db, (flows = new Map()));
  const id = `${tenant.clientId}\u0000${tenant.environment}\u0000${name}`;
  const known = refresh ? undefined : flows.get(id);
  if (known) return known;
  const flow = await findActiveFlow(db, tenant, name);
  flows.delete(id);
  if (flow) {
    if (flows.size >= MAX) flows.delete(flows.keys().next().value!);
    flows.set(id, flow);
  }
  return flow;
}
