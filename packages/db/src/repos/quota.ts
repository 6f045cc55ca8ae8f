import { sql } from 'drizzle-orm';
import {
  QUOTA_THRESHOLD_PERCENT,
  periodOf,
  quotaBlocks,
  quotaEventsReached,
  type OverQuotaBehaviour,
  type UsageService,
} from '@idv/domain';
import { queryRows, type Executor } from '../connect.ts';
import type { Tenant } from './tenant.ts';
import { monthTotal, recordUsage, type UsageUnit } from './usage.ts';
import { emitEvent } from './webhook-outbox.ts';

/** The terms of the subscription in force for a service at an instant. */
export interface QuotaInForce {
  subscriptionId: string;
  offer: string;
  /** Units per month; null is unlimited. */
  quota: number | null;
  overQuota: OverQuotaBehaviour;
}

interface TermsRow {
  id: string;
  offer: string;
  monthly_quota: string | number | null;
  over_quota: OverQuotaBehaviour;
}

const terms = (r: TermsRow): QuotaInForce => ({
  subscriptionId: r.id,
  offer: r.offer,
  quota: r.monthly_quota === null ? null : Number(r.monthly_quota),
  overQuota: r.over_quota,
});

const inForceAt = (at: Date) =>
  sql`s.starts_at <= ${at.toISOString()}::timestamptz AND (s.ends_at IS NULL OR s.ends_at > ${at.toISOString()}::timestamptz)`;


/**
 * The blocking quota a new unit of `service` at `at` would go beyond, with the month's production
 * units, or null when nothing blocks. The sandbox never counts against a quota: always null there.
 */
export async function blockingQuota(
  db: Executor,
  tenant: Tenant,
  service: UsageService,
  at: Date,
): Promise<{ terms: QuotaInForce; used: number } | null> {
  if (tenant.environment !== 'prod') return null;
  const [row] = await queryRows<TermsRow & { used: string | number }>(
    db,
    sql`SELECT s.id, s.offer, s.monthly_quota, s.over_quota, ${monthTotal(tenant, service, periodOf(at))} AS used
        FROM subscriptions AS s
        WHERE s.client_id = ${tenant.clientId} AND s.service = ${service} AND s.over_quota = 'block'
          AND s.monthly_quota IS NOT NULL AND ${inForceAt(at)}
        LIMIT 1`,
  );
  if (!row) return null;
  const found = { terms: terms(row), used: Number(row.used) };
  return quotaBlocks(found.terms, found.used) ? found : null;
}

/**
 * recordUsage, and the quota events of the month in the same transaction: the unit that brings a
 * production service to 80 % of its quota, then to the quota, emits usage.quota_threshold_reached,
 * then usage.quota_reached, when the subscription in force says block or notify. Each is sent once
 * per client, service and month: a quota_notices row decides, inserted with the event.
 *
 * Exactly once under concurrent acts: the subscription is read with a transaction-level advisory
 * lock on (client, service, month), taken before the unit is recorded, so acts of one service and
 * month count their total one after the other, each seeing every unit committed before it. Without
 * it, two acts each seeing the other's unit uncommitted could both count 79 of 100 and neither
 * send the threshold. Services without such a quota (and the sandbox) take no lock.
 */
export async function recordUsageWithQuota(tx: Executor, unit: UsageUnit): Promise<boolean> {
  if (unit.environment !== 'prod') return recordUsage(tx, unit);
  const period = periodOf(unit.at);
  const [watched] = await queryRows<TermsRow & { locked: unknown }>(
    tx,
    sql`SELECT s.id, s.offer, s.monthly_quota, s.over_quota,
               pg_advisory_xact_lock(hashtextextended(${`quota:${unit.clientId}:${unit.service}:${period}`}, 0))::text AS locked
        FROM subscriptions AS s
        WHERE s.client_id = ${unit.clientId} AND s.service = ${unit.service}
          AND s.monthly_quota IS NOT NULL AND s.over_quota IN ('block', 'notify') AND ${inForceAt(unit.at)}
        LIMIT 1`,
  );
  const added = await recordUsage(tx, unit);
  if (!added || !watched) return added;
  const t = terms(watched);
  const [{ used }] = await queryRows<{ used: string | number }>(tx, sql`SELECT ${monthTotal(unit, unit.service, period)} AS used`);
  for (const kind of quotaEventsReached(t, Number(used))) {
    const [fresh] = await queryRows<{ kind: string }>(
      tx,
      sql`INSERT INTO quota_notices (client_id, environment, service, period, kind, created_at)
          VALUES (${unit.clientId}, ${unit.environment}, ${unit.service}, ${period}, ${kind}, ${unit.at.toISOString()})
          ON CONFLICT DO NOTHING RETURNING kind`,
    );
    if (!fresh) continue;
    const object = { id: t.subscriptionId, type: 'subscription' as const, external_ref: null, flow_name: null };
    const data = { service: unit.service, period, offer: t.offer, quota: t.quota!, over_quota: t.overQuota, used: Number(used) };
    if (kind === 'threshold') {
      await emitEvent(tx, unit, { type: 'usage.quota_threshold_reached', object, data: { ...data, threshold_percent: QUOTA_THRESHOLD_PERCENT } }, unit.at);
    } else {
      await emitEvent(tx, unit, { type: 'usage.quota_reached', object, data }, unit.at);
    }
  }
  return added;
}
