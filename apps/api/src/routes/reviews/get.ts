import { Type } from '@sinclair/typebox';
import { decisionsOfTask } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { errorResponses } from '../../schemas/common.ts';
import { presentTask, taskForOperator } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { ReviewTaskSchema, TaskParams } from './schemas.ts';

export function registerGetReview(app: App, ctx: AppContext): void {
  app.get(
    '/v1/reviews/:task_id',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'getReview',
        tags: ['reviews'],
        summary: 'Get a review task',
        description: 'One task with what this operator may see; under double validation, decisions stays empty until this operator has given their own',
        params: TaskParams,
        response: { 200: Type.Ref(ReviewTaskSchema), ...errorResponses(...OPERATOR_ROUTE_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const { operator, tenant, actor } = operatorOf(req);
      const task = await taskForOperator(ctx.db, tenant, operator, req.params.task_id);
      return presentTask(ctx.db, ctx, task, await decisionsOfTask(ctx.db, tenant, task.id), actor, ctx.now());
    },
  );
}
