import type { Static } from '@sinclair/typebox';
import type { CaseFilters } from '@idv/db';
import type { FastifyRequest } from 'fastify';
import type { CaseExportQuerySchema } from '../../schemas/case.ts';
import { clearanceOf } from '../../services/review.ts';

/**
 * The filters of the case list and of its CSV export, from the query: the same words select the
 * same cases in both. With the console credential the operator's clearance narrows them.
 */
export function caseFiltersOf(q: Static<typeof CaseExportQuerySchema>, req: FastifyRequest): Omit<CaseFilters, 'limit' | 'cursor'> {
  return {
    externalRef: q.external_ref,
    q: q.q,
    status: q.status,
    state: q.state,
    flowName: q.flow_name,
    country: q.country,
    createdAfter: q.created_after ? new Date(q.created_after) : undefined,
    createdBefore: q.created_before ? new Date(q.created_before) : undefined,
    clearance: req.operator ? clearanceOf(req.operator) : undefined,
  };
}
