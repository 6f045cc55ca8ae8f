import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, ok } from '../api/client.ts';
import type { TaskStatus } from '../domain.ts';

/**
 * The review calls that a screen needs to draw, written once for the screen (useQuery) and for its
 * route's loader (prefetchQuery at navigation): the same key and options, so the screen finds
 * what the loader started instead of calling again.
 */

/** The queue's page size. */
const QUEUE_PAGE = 20;

export const reviewsSummaryQuery = () => queryOptions({ queryKey: ['reviews-summary'], queryFn: () => ok(api.GET('/v1/reviews/summary')) });

export const reviewsPageQuery = (status: TaskStatus | undefined, cursor: string | undefined) =>
  queryOptions({
    queryKey: ['reviews', status ?? 'active', cursor ?? null],
    queryFn: () => ok(api.GET('/v1/reviews', { params: { query: { status, cursor, limit: QUEUE_PAGE } } })),
    placeholderData: keepPreviousData,
  });

export const reviewCaseQuery = (taskId: string) =>
  queryOptions({
    queryKey: ['review-case', taskId],
    queryFn: () => ok(api.GET('/v1/reviews/{task_id}/case', { params: { path: { task_id: taskId } } })),
    // Each read is journaled as a consultation: read again only after an act, never on focus.
    refetchOnWindowFocus: false,
    staleTime: Infinity,
  });
