import { Type } from '@sinclair/typebox';
import { appendJournal, decisionsOfCase, listPieces, revisionsOfCase, tasksOfCase } from '@idv/db';
import { mayShowDecisions } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { presentCase } from '../../presenters/case.ts';
import { errorResponses } from '../../schemas/common.ts';
import { accessDetail, caseForOperator } from '../../services/case-access.ts';
import { caseScreenParts, presentDecisions, presentRevisions } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { presentTaskItem } from '../../presenters/review.ts';
import { CaseRecordSchema } from '../reviews/schemas.ts';
import { CaseParams } from './get.ts';

export function registerCaseRecord(app: App, ctx: AppContext): void {
  app.get(
    '/v1/cases/:case_id/record',
    {
      config: { operator: { ability: 'readCase' } },
      schema: {
        operationId: 'getCaseRecord',
        tags: ['reviews'],
        summary: "Get a case's record",
        description:
          'The case record (Op; journaled as a consultation): state, decisions, reviews, revisions, masked identity. Decided cases remain readable. ' +
          'A support account reads only a case opened to it by a support grant in force',
        params: CaseParams,
        response: { 200: Type.Ref(CaseRecordSchema), ...errorResponses(...OPERATOR_ROUTE_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const { operator, tenant, actor } = operatorOf(req);
      const now = ctx.now();
      return ctx.db.transaction(async (tx) => {
        // Within the clearance (the case's country, and the sensitivity of every review it had), or a support grant in force.
        const { row, grant } = await caseForOperator(tx, tenant, operator, req.params.case_id, now);
        const tasks = await tasksOfCase(tx, tenant, row.id);
        await appendJournal(tx, tenant, { caseId: row.id, actor, action: 'case.consulted', detail: { via: 'record', ...accessDetail(operator, grant) }, at: now });
        const decisions = await decisionsOfCase(tx, tenant, row.id);
        const hiddenTasks = new Set(
          tasks
            .filter((t) => t.status !== 'closed' && !mayShowDecisions(t.doubleValidation, decisions.some((d) => d.taskId === t.id && d.actor === actor)))
            .map((t) => t.id),
        );
        return {
          object: 'case_record' as const,
          case: presentCase(row, await listPieces(tx, row.id)),
          reviews: tasks.map((t) => presentTaskItem(t, now)),
          decisions: await presentDecisions(tx, ctx, decisions.filter((d) => !hiddenTasks.has(d.taskId))),
          revisions: await presentRevisions(tx, ctx, await revisionsOfCase(tx, tenant, row.id)),
          ...(await caseScreenParts(tx, ctx, tenant, row)),
        };
      });
    },
  );
}
