import { Type } from '@sinclair/typebox';
import { listCases, listPiecesOfCases, type PieceRow } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { presentCase } from '../../presenters/case.ts';
import { caseFiltersOf } from './filters.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { CaseListQuerySchema, CaseListSchema } from '../../schemas/case.ts';
import { VALIDATION_ERRORS, errorResponses, page } from '../../schemas/common.ts';

export function registerListCases(app: App, ctx: AppContext): void {
  app.get(
    '/v1/cases',
    {
      // With the console credential: an operator's case search, within their clearance (reviewers and above).
      config: { operator: { ability: 'review', alsoIntegration: true } },
      schema: {
        operationId: 'listCases',
        tags: ['cases'],
        summary: 'List cases',
        description: 'Cases of this client and environment, newest first; with the console credential and X-Service-Operator, only those within the operator’s clearance',
        querystring: CaseListQuerySchema,
        response: { 200: Type.Ref(CaseListSchema), ...errorResponses(...VALIDATION_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const q = req.query;
      const limit = q.limit ?? 20;
      const rows = await listCases(ctx.db, authOf(req).tenant, { ...caseFiltersOf(q, req), cursor: q.cursor, limit });
      const pieces = await listPiecesOfCases(ctx.db, rows.slice(0, limit).map((r) => r.id));
      const byCase = new Map<string, PieceRow[]>();
      for (const p of pieces) byCase.set(p.caseId, [...(byCase.get(p.caseId) ?? []), p]);
      return page(rows, limit, (row) => presentCase(row, byCase.get(row.id)));
    },
  );
}
