import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { journeyAppearance } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

/** The appearance without the logo's bytes (what the API and the journey's state show). */
export interface AppearanceRow {
  displayName: string | null;
  primaryColor: string;
  backgroundColor: string;
  logo: { type: string; sha256: string; bytes: number } | null;
  updatedBy: string;
  updatedAt: Date;
}

export interface LogoBytes {
  type: string;
  sha256: string;
  data: Buffer;
}

const columns = {
  displayName: journeyAppearance.displayName,
  primaryColor: journeyAppearance.primaryColor,
  backgroundColor: journeyAppearance.backgroundColor,
  logoType: journeyAppearance.logoType,
  logoSha256: journeyAppearance.logoSha256,
  updatedBy: journeyAppearance.updatedBy,
  updatedAt: journeyAppearance.updatedAt,
};

/** The tenant's appearance; null when never set (the journey's own look). */
export async function findAppearance(db: Executor, tenant: Tenant): Promise<AppearanceRow | null> {
  const [row] = await db
    .select({ ...columns, logoBytes: sqlLength() })
    .from(journeyAppearance)
    .where(tenantFilter(journeyAppearance, tenant));
  if (!row) return null;
  const { logoType, logoSha256, logoBytes, ...rest } = row;
  return { ...rest, logo: logoType && logoSha256 ? { type: logoType, sha256: logoSha256, bytes: Number(logoBytes ?? 0) } : null };
}

/**
 * Replaces the appearance. `logo`: the new logo, null to remove it, undefined to keep the current
 * one (which an update of the colours alone should not have to send again).
 */
export async function saveAppearance(
  tx: Executor,
  tenant: Tenant,
  value: { displayName: string | null; primaryColor: string; backgroundColor: string; logo: LogoBytes | null | undefined },
  actor: string,
  now: Date,
): Promise<AppearanceRow> {
  const logoColumns = value.logo === undefined ? {} : { logo: value.logo?.data ?? null, logoType: value.logo?.type ?? null, logoSha256: value.logo?.sha256 ?? null };
  const set = { displayName: value.displayName, primaryColor: value.primaryColor, backgroundColor: value.backgroundColor, ...logoColumns, updatedBy: actor, updatedAt: now };
  await tx
    .insert(journeyAppearance)
    .values({ ...tenant, ...set })
    .onConflictDoUpdate({ target: [journeyAppearance.clientId, journeyAppearance.environment], set });
  return (await findAppearance(tx, tenant))!;
}

/** The logo's bytes when `sha256` is the tenant's current logo (an old address finds nothing). */
export async function findAppearanceLogo(db: Executor, tenant: Tenant, sha256: string): Promise<LogoBytes | null> {
  const [row] = await db
    .select({ data: journeyAppearance.logo, type: journeyAppearance.logoType, sha256: journeyAppearance.logoSha256 })
    .from(journeyAppearance)
    .where(and(tenantFilter(journeyAppearance, tenant), eq(journeyAppearance.logoSha256, sha256)));
  return row?.data && row.type && row.sha256 ? { data: Buffer.from(row.data), type: row.type, sha256: row.sha256 } : null;
}

function sqlLength() {
  return sql<number | null>`octet_length(${journeyAppearance.logo})`;
}
