import { periodOf, type UsageService } from '@idv/domain';
import type { QuotaInForce } from '@idv/db';
import { ApiError } from './api-error.ts';

/** The refusal of a blocking quota, naming the quota, its offer and the month (no personal data). */
export function quotaExceeded(service: UsageService, terms: QuotaInForce, used: number, now: Date): ApiError {
  return new ApiError(
    'quota_exceeded',
    `The ${service} quota of ${terms.quota} per month (offer ${terms.offer}) is used up for ${periodOf(now)}: ${used} used. ` +
      'No case can be opened in production until the next month or a larger quota.',
  );
}
