import { listSubscriptions, type Tenant } from '@idv/db';
import { USAGE_SERVICES, parsePeriod, quotaExcess, subscriptionOfMonth, type UsageService } from '@idv/domain';
import type { AppContext } from '../../context.ts';
import { presentTerms } from '../../presenters/contract.ts';

export interface UsageDetail {
  offer: string | null;
  quota: number | null;
  over_quota: 'block' | 'allow' | 'notify' | null;
  excess: number;
}

/**
 * The `detail` of GET /v1/usage: for each service, the terms subscribed for the month and the
 * units beyond the quota (counted, under allow and notify; in production only, where quotas apply).
 */
export async function usageDetail(
  ctx: AppContext,
  tenant: Tenant,
  period: string,
  totals: Record<UsageService, number>,
): Promise<Record<UsageService, UsageDetail>> {
  const { start, end } = parsePeriod(period)!;
  const rows = await listSubscriptions(ctx.db, tenant.clientId);
  const now = ctx.now();
  const detail = (service: UsageService): UsageDetail => {
    const sub = subscriptionOfMonth(rows.filter((r) => r.service === service), start, end, now);
    if (!sub) return { offer: null, quota: null, over_quota: null, excess: 0 };
    const terms = { offer: sub.offer, quota: sub.monthlyQuota, overQuota: sub.overQuota };
    return { ...presentTerms(terms), excess: tenant.environment === 'prod' ? quotaExcess(terms, totals[service]) : 0 };
  };
  return Object.fromEntries(USAGE_SERVICES.map((s) => [s, detail(s)])) as Record<UsageService, UsageDetail>;
}
