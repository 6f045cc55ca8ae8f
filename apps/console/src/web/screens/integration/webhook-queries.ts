import { queryOptions } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';

/** The event catalogue (GET /v1/webhook-events): fixed for a given service version. */
export const webhookEventsQuery = queryOptions({
  queryKey: ['webhook-events'],
  queryFn: () => ok(api.GET('/v1/webhook-events')),
  staleTime: Infinity,
});

/**
 * The endpoints of this environment with their recent deliveries (at most 16, so one page of 20).
 * Read afresh whenever shown: their health changes with every delivery.
 */
export const webhookEndpointsQuery = (cursor?: string) =>
  queryOptions({
    queryKey: ['webhook-endpoints', cursor ?? null],
    staleTime: 0,
    queryFn: () => ok(api.GET('/v1/webhook-endpoints', { params: { query: { limit: 20, starting_after: cursor } } })),
  });
