import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, ok } from '../api/client.ts';
import type { MetricsWindow } from '../screens/oversight/search-params.ts';

/** The start of the last `days` days, rounded down to the minute. */
const windowStart = (days: MetricsWindow) => new Date(Math.floor((Date.now() - days * 86_400_000) / 60_000) * 60_000).toISOString();

/**
 * GET /v1/reviews/metrics over the last `days` days, for the metrics screen and its route's loader
 * (in the entry, so that the call starts at navigation beside the screen's chunk, not after it).
 * The start is rounded down to the minute; the key is the window, so the screen finds what the
 * loader started.
 */
export const reviewMetricsQuery = (days: MetricsWindow) => {
  const since = windowStart(days);
  return queryOptions({
    queryKey: ['review-metrics', days],
    queryFn: () => ok(api.GET('/v1/reviews/metrics', { params: { query: { since } } })),
    placeholderData: keepPreviousData,
  });
};

/** GET /v1/reviews/analytics over the same window as the metrics (the metrics screen reads both). */
export const decisionAnalyticsQuery = (days: MetricsWindow) => {
  const since = windowStart(days);
  return queryOptions({
    queryKey: ['decision-analytics', days],
    queryFn: () => ok(api.GET('/v1/reviews/analytics', { params: { query: { since } } })),
    placeholderData: keepPreviousData,
  });
};

/** The usage screen's four reads, started by its route's loader at navigation. */
export const usageQueries = (period: string) => ({
  usage: queryOptions({ queryKey: ['usage', period], queryFn: () => ok(api.GET('/v1/usage', { params: { query: { period } } })), placeholderData: keepPreviousData }),
  daily: queryOptions({
    queryKey: ['usage-daily', period],
    queryFn: () => ok(api.GET('/v1/usage/daily', { params: { query: { period } } })),
    placeholderData: keepPreviousData,
  }),
  contract: queryOptions({ queryKey: ['contract'], queryFn: () => ok(api.GET('/v1/contract')) }),
  calls: queryOptions({ queryKey: ['api-usage'], queryFn: () => ok(api.GET('/v1/api-usage', { params: { query: { days: 30 } } })) }),
});
