import { Type } from '@sinclair/typebox';
import { queueSummary } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { errorResponses } from '../../schemas/common.ts';
import { clearanceOf } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { ReviewSummarySchema } from './schemas.ts';

export function registerReviewSummary(app: App, ctx: AppContext): void {
  app.get(
    '/v1/reviews/summary',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'reviewSummary',
        tags: ['reviews'],
        summary: 'Count review tasks',
        description: 'Counters over the whole queue within the operator’s clearance (not the loaded page)',
        response: { 200: Type.Ref(ReviewSummarySchema), ...errorResponses(...OPERATOR_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { operator, tenant } = operatorOf(req);
      const now = ctx.now();
      const counts = await queueSummary(ctx.db, tenant, clearanceOf(operator), operator.id, now);
      return { object: 'review_summary' as const, as_of: now.toISOString(), ...counts };
    },
  );
}
