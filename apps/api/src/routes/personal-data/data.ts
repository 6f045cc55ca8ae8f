import { Type } from '@sinclair/typebox';
import { appendJournal, findCase } from '@idv/db';
import { identityGap } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { INTEGRATION_ROUTE_ERRORS } from '../operators/errors.ts';
import { readIdentities } from '@idv/case-data';
import { CaseParams } from '../cases/get.ts';
import { CaseDataSchema } from './schemas.ts';

const strings = (v: Record<string, unknown> | null): Record<string, string> | null =>
  v ? Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string') as [string, string][]) : null;

export function registerCaseData(app: App, ctx: AppContext): void {
  app.get(
    '/v1/cases/:case_id/data',
    {
      config: { permission: 'personal_data' },
      schema: {
        operationId: 'getCaseData',
        tags: ['cases'],
        summary: "Get a case's personal data",
        description:
          'Personal data of a case (key permission personal_data): what the client declared, what the person entered, questionnaire answers, the identity ' +
          'read from the document and its agreement with the machine-readable zone, and the declared-vs-read gap. Journaled as a consultation before it ' +
          'is read; never cached (Cache-Control: no-store)',
        params: CaseParams,
        response: { 200: Type.Ref(CaseDataSchema), ...errorResponses(...INTEGRATION_ROUTE_ERRORS, 'permission_denied', 'resource_not_found') },
      },
    },
    async (req, reply) => {
      const { key, tenant } = authOf(req);
      const now = ctx.now();
      reply.header('cache-control', 'no-store');
      return ctx.db.transaction(async (tx) => {
        const row = await findCase(tx, tenant, req.params.case_id);
        if (!row) throw new ApiError('resource_not_found', 'No such case.', 'case_id');
        // The consultation is journaled first, in the transaction that reads.
        await appendJournal(tx, tenant, { caseId: row.id, actor: `key:${key.id}`, action: 'personal_data.consulted', detail: { via: 'data' }, at: now });
        const id = await readIdentities(tx, ctx, row);
        return {
          object: 'case_data' as const,
          case_id: row.id,
          erased: id.erased,
          declared: strings(id.declared),
          entered: strings(id.entered),
          questionnaire: id.questionnaireScore || id.answers ? { answers: id.answers, points: id.questionnaireScore?.points ?? 0, flags: id.questionnaireScore?.flags ?? [] } : null,
          document: id.reading
            ? { identity: strings(id.read), zone_agreement: id.reading.zoneAgreement, read_at: id.reading.readAt.toISOString() }
            : null,
          gap: identityGap({ name: 'declared', values: id.declared }, { name: 'document', values: id.read }),
        };
      });
    },
  );
}
