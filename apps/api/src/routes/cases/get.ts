import { Type } from '@sinclair/typebox';
import { findCase, listPieces, type CaseRow } from '@idv/db';
import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { presentCase, presentResults } from '../../presenters/case.ts';
import { CaseResultsSchema, CaseSchema } from '../../schemas/case.ts';
import { errorResponses } from '../../schemas/common.ts';
import { INTEGRATION_ROUTE_ERRORS } from '../operators/errors.ts';

export const CaseParams = Type.Object({ case_id: Type.String({ maxLength: 64 }) });

/** The case of the path, within the caller's tenant; another client's case is simply not found. */
async function caseOfPath(ctx: AppContext, req: FastifyRequest, caseId: string): Promise<CaseRow> {
  const row = await findCase(ctx.db, authOf(req).tenant, caseId);
  if (!row) throw new ApiError('resource_not_found', 'No such case.', 'case_id');
  return row;
}

export function registerGetCase(app: App, ctx: AppContext): void {
  app.get(
    '/v1/cases/:case_id',
    {
      schema: {
        operationId: 'getCase',
        tags: ['cases'],
        summary: 'Get a case',
        description: 'State, checks and their verdicts, duplicates, pieces and decision of a case',
        params: CaseParams,
        response: { 200: Type.Ref(CaseSchema), ...errorResponses(...INTEGRATION_ROUTE_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const row = await caseOfPath(ctx, req, req.params.case_id);
      return presentCase(row, await listPieces(ctx.db, row.id));
    },
  );

  app.get(
    '/v1/cases/:case_id/results',
    {
      schema: {
        operationId: 'getCaseResults',
        tags: ['cases'],
        summary: "Get a case's results",
        description: 'Results without personal data: state, decision, resubmission, checks, duplicates, pieces',
        params: CaseParams,
        response: { 200: Type.Ref(CaseResultsSchema), ...errorResponses(...INTEGRATION_ROUTE_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const row = await caseOfPath(ctx, req, req.params.case_id);
      return { object: 'case_results' as const, case_id: row.id, ...presentResults(row, await listPieces(ctx.db, row.id)) };
    },
  );
}
