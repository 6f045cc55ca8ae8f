import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Environment } from '../schema.ts';

/** Whose data a query may touch: one client in one environment. Every tenant query takes one. */
export interface Tenant {
  clientId: string;
  environment: Environment;
}

export function tenantFilter(table: { clientId: PgColumn; environment: PgColumn }, tenant: Tenant): SQL {
  return and(eq(table.clientId, tenant.clientId), eq(table.environment, tenant.environment))!;
}
