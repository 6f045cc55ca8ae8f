import type { Tenant } from '@idv/db';
import { USAGE_SERVICES, type UsageService } from '@idv/domain';
import type { AppContext } from '../../context.ts';

export interface UsageDetail {
  quota: number | null;
  over_quota: string | null;
  offer: string | null;
}

/**
 * The `detail` of GET /v1/usage: what the contract says for each service in the period. Nothing
 * is subscribed until contracts exist: every field null.
 */
export async function usageDetail(_ctx: AppContext, _tenant: Tenant, _period: string): Promise<Record<UsageService, UsageDetail>> {
  return Object.fromEntries(USAGE_SERVICES.map((s) => [s, { quota: null, over_quota: null, offer: null }])) as Record<UsageService, UsageDetail>;
}
