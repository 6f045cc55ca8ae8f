import { Type } from '@sinclair/typebox';
import { appendJournal, decisionsOfTask, findCase, listPieces } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { presentCase } from '../../presenters/case.ts';
import { errorResponses } from '../../schemas/common.ts';
import { caseScreenParts, presentTask, taskForOperator } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { ReviewCaseSchema, TaskParams } from './schemas.ts';

export function registerReviewCase(app: App, ctx: AppContext): void {
  app.get(
    '/v1/reviews/:task_id/case',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'getReviewCase',
        tags: ['reviews'],
        summary: "Get a task's case",
        description: 'Everything the case screen shows in one call (journaled as one consultation); the subject is masked',
        params: TaskParams,
        response: { 200: Type.Ref(ReviewCaseSchema), ...errorResponses(...OPERATOR_ROUTE_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const { operator, tenant, actor } = operatorOf(req);
      const now = ctx.now();
      // The consultation is journaled in the transaction that reads what it shows.
      return ctx.db.transaction(async (tx) => {
        const task = await taskForOperator(tx, tenant, operator, req.params.task_id);
        const row = (await findCase(tx, tenant, task.caseId))!;
        await appendJournal(tx, tenant, { caseId: row.id, actor, action: 'case.consulted', detail: { via: 'review', task_id: task.id }, at: now });
        const decisions = await decisionsOfTask(tx, tenant, task.id);
        return {
          object: 'review_case' as const,
          task: await presentTask(tx, ctx, task, decisions, actor, now),
          case: presentCase(row, await listPieces(tx, row.id)),
          ...(await caseScreenParts(tx, ctx, tenant, row)),
        };
      });
    },
  );
}
