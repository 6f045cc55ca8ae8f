import type { SubscriptionRow } from '@idv/db';
import { subscriptionState, type QuotaTerms } from '@idv/domain';

/** The terms in API form: an unlimited quota has no over-quota behaviour. */
export function presentTerms(t: QuotaTerms & { offer: string }) {
  return { offer: t.offer, quota: t.quota, over_quota: t.quota === null ? null : t.overQuota };
}

export function presentSubscription(row: SubscriptionRow, now: Date) {
  return {
    id: row.id,
    service: row.service,
    ...presentTerms({ offer: row.offer, quota: row.monthlyQuota, overQuota: row.overQuota }),
    starts_at: row.startsAt.toISOString(),
    ends_at: row.endsAt?.toISOString() ?? null,
    state: subscriptionState(row, now),
  };
}
