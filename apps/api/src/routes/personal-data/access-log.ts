import { Type } from '@sinclair/typebox';
import { accessEntries, findCase, operatorsByIds, type JournalRow } from '@idv/db';
import { ACCESS_ACTIONS, ACCESS_ACTION_LIST, type AccessAction } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { VALIDATION_ERRORS, errorResponses, page } from '../../schemas/common.ts';
import { INTEGRATION_ROUTE_ERRORS } from '../operators/errors.ts';
import { CaseParams } from '../cases/get.ts';
import { AccessLogQuery, AccessLogSchema } from './schemas.ts';

/** What an entry names: paths requested or revealed, or pieces downloaded (never values). */
function whatOf(detail: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof detail.field_path === 'string') out.push(detail.field_path);
  if (typeof detail.piece_id === 'string') out.push(detail.piece_id);
  if (out.length === 0 && typeof detail.via === 'string') {
    const byScope: Record<string, string[]> = {
      review: ['declared', 'entered', 'document', 'corrected', 'answers'],
      identity: ['document'],
      questionnaire: ['answers'],
      applicant_data: ['entered', 'declared'],
      data: ['declared', 'entered', 'answers', 'document'],
    };
    out.push(...(byScope[detail.via] ?? []));
  }
  return out;
}

export function registerAccessLog(app: App, ctx: AppContext): void {
  app.get(
    '/v1/cases/:case_id/access-log',
    {
      schema: {
        operationId: 'getCaseAccessLog',
        tags: ['cases'],
        summary: "Get a case's access log",
        description:
          'Who consulted, unmasked or downloaded what of this case and when, newest first: the client’s right of oversight, including the provider’s ' +
          'support staff. Client-level (no operator header)',
        params: CaseParams,
        querystring: AccessLogQuery,
        response: { 200: Type.Ref(AccessLogSchema), ...errorResponses(...INTEGRATION_ROUTE_ERRORS, ...VALIDATION_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const { tenant } = authOf(req);
      const row = await findCase(ctx.db, tenant, req.params.case_id);
      if (!row) throw new ApiError('resource_not_found', 'No such case.', 'case_id');
      const limit = req.query.limit ?? 50;
      const rows = await accessEntries(ctx.db, tenant, row.id, ACCESS_ACTION_LIST, limit, req.query.cursor);
      const operatorIds = [...new Set(rows.filter((r) => r.actor.startsWith('op:')).map((r) => r.actor.slice(3)))];
      const operators = await operatorsByIds(ctx.db, tenant, operatorIds);
      return page(rows, limit, (entry: JournalRow) => {
        const detail = entry.detail ?? {};
        const [type, id] = entry.actor.includes(':') ? (entry.actor.split(':', 2) as [string, string]) : ['system', entry.actor];
        const op = type === 'op' ? operators.get(id) : undefined;
        const role = typeof detail.role === 'string' ? detail.role : (op?.role ?? null);
        const grant = typeof detail.support_grant_id === 'string' ? detail.support_grant_id : null;
        return {
          id: entry.id,
          object: 'access_log_entry' as const,
          case_id: entry.caseId,
          kind: ACCESS_ACTIONS[entry.action as AccessAction],
          action: entry.action,
          via: typeof detail.via === 'string' ? detail.via : null,
          what: whatOf(detail),
          actor: {
            type: type === 'op' ? ('operator' as const) : type === 'key' ? ('key' as const) : ('system' as const),
            id,
            name: op?.name ?? null,
            role: type === 'op' ? role : null,
            provider_support: role === 'support' || grant !== null,
            support_grant_id: grant,
          },
          at: entry.at.toISOString(),
        };
      });
    },
  );
}
