import { Type } from '@sinclair/typebox';
import { listQueue } from '@idv/db';
import { decodeQueueCursor, encodeQueueCursor } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { clearanceOf } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { presentQueueItem } from '../../presenters/review.ts';
import { ReviewTaskListSchema, TaskStatusSchema } from './schemas.ts';

export function registerListReviews(app: App, ctx: AppContext): void {
  app.get(
    '/v1/reviews',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'listReviews',
        tags: ['reviews'],
        summary: 'List review tasks',
        description:
          'The operator’s queue within their clearance, sorted by risk (highest first) then due date (earliest first); the order cannot be changed. ' +
          'Without status: every task not closed',
        querystring: Type.Object(
          {
            status: Type.Optional(TaskStatusSchema),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'next_cursor of the previous page (opaque)' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(ReviewTaskListSchema), ...errorResponses(...VALIDATION_ERRORS, ...OPERATOR_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { operator, tenant } = operatorOf(req);
      const limit = req.query.limit ?? 20;
      const after = req.query.cursor === undefined ? undefined : decodeQueueCursor(req.query.cursor);
      if (after === null) throw new ApiError('parameter_invalid', 'The query parameter cursor is not a cursor this queue returned.', 'cursor');
      const rows = await listQueue(ctx.db, tenant, { status: req.query.status, clearance: clearanceOf(operator), after, limit });
      const now = ctx.now();
      const kept = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      return {
        object: 'list' as const,
        data: kept.map((t) => presentQueueItem(t, now)),
        has_more: hasMore,
        next_cursor: hasMore ? encodeQueueCursor(kept[kept.length - 1]) : null,
      };
    },
  );
}
