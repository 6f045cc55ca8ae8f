import { Type } from '@sinclair/typebox';
import { appendJournal, decisionsOfTask, updateTask } from '@idv/db';
import { lockDeadline, lockPosition, mayWorkOnTask } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { errorResponses } from '../../schemas/common.ts';
import { presentTask, taskForOperator } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { ReviewTaskSchema, TaskParams } from './schemas.ts';

export function registerClaimReview(app: App, ctx: AppContext): void {
  app.post(
    '/v1/reviews/:task_id/claim',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'claimReview',
        tags: ['reviews'],
        summary: 'Claim a task',
        description: 'Take the lock of a task (thirty minutes of inactivity) and open its case; of two operators racing, exactly one wins',
        params: TaskParams,
        response: {
          200: Type.Ref(ReviewTaskSchema),
          ...errorResponses(...OPERATOR_ROUTE_ERRORS, 'resource_not_found', 'task_closed', 'task_locked', 'double_validation_same_operator'),
        },
      },
    },
    async (req) => {
      const { operator, tenant, actor } = operatorOf(req);
      const now = ctx.now();
      return ctx.db.transaction(async (tx) => {
        // The row lock serialises claims: the second claimant sees the first one's lock.
        const task = await taskForOperator(tx, tenant, operator, req.params.task_id, true);
        if (task.status === 'closed') throw new ApiError('task_closed');
        const decisions = await decisionsOfTask(tx, tenant, task.id);
        const refusal = mayWorkOnTask(operator.role, task, decisions.some((d) => d.actor === actor));
        if (refusal === 'same_operator_twice') throw new ApiError('double_validation_same_operator');
        if (refusal) throw new ApiError('operator_role_insufficient', 'The operators disagreed: a supervisor or an administrator decides this task.');
        if (lockPosition(task, operator.id, now) === 'other') {
          throw new ApiError('task_locked', `Another operator holds the lock until ${task.lockExpiresAt?.toISOString()} at the latest.`);
        }
        const claimed = await updateTask(tx, tenant, task.id, { lockedBy: operator.id, lockExpiresAt: lockDeadline(now), updatedAt: now });
        await appendJournal(tx, tenant, { caseId: task.caseId, actor, action: 'review.claimed', detail: { task_id: task.id }, at: now });
        return presentTask(tx, ctx, claimed, decisions, actor, now);
      });
    },
  );
}
