import { Type } from '@sinclair/typebox';
import { updateTask } from '@idv/db';
import { lockDeadline, lockPosition } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { errorResponses } from '../../schemas/common.ts';
import { lockRefusal, taskForOperator } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { TaskLockSchema, TaskParams } from './schemas.ts';

export function registerExtendLock(app: App, ctx: AppContext): void {
  app.post(
    '/v1/reviews/:task_id/lock',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'extendReviewLock',
        tags: ['reviews'],
        summary: "Extend a task's lock",
        description: 'Extend the lock this operator holds; returns the new deadline. 409 lock_expired once lost after thirty minutes of inactivity',
        params: TaskParams,
        response: {
          200: Type.Ref(TaskLockSchema),
          ...errorResponses(...OPERATOR_ROUTE_ERRORS, 'resource_not_found', 'task_closed', 'lock_expired', 'lock_not_held', 'task_locked'),
        },
      },
    },
    async (req) => {
      const { operator, tenant } = operatorOf(req);
      const now = ctx.now();
      return ctx.db.transaction(async (tx) => {
        const task = await taskForOperator(tx, tenant, operator, req.params.task_id, true);
        if (task.status === 'closed') throw new ApiError('task_closed');
        const position = lockPosition(task, operator.id, now);
        if (position !== 'held') throw lockRefusal(position, task);
        const extended = await updateTask(tx, tenant, task.id, { lockExpiresAt: lockDeadline(now), updatedAt: now });
        return { object: 'task_lock' as const, task_id: task.id, operator_id: operator.id, expires_at: extended.lockExpiresAt!.toISOString() };
      });
    },
  );
}
