import { Type } from '@sinclair/typebox';
import { decisionGroups, reviewerThroughput } from '@idv/db';
import { summariseDecisions, utcDays } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { clearanceOf } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { DecisionAnalyticsSchema } from './schemas.ts';
import { windowStart } from './window.ts';

/**
 * Decision analytics (supervisor, administrator, like the review metrics): every case decided in
 * the period, not only those reviewed, within the operator's clearance. Ids, codes, counts and
 * times only; operators are named by id (the console names them from the directory).
 */
export function registerDecisionAnalytics(app: App, ctx: AppContext): void {
  app.get(
    '/v1/reviews/analytics',
    {
      config: { operator: { ability: 'metrics' } },
      schema: {
        operationId: 'decisionAnalytics',
        tags: ['reviews'],
        summary: 'Get decision analytics',
        description: 'Decisions by outcome and reason per day, automation rate, time to decision, reviewer throughput (supervisor or administrator), within the clearance',
        querystring: Type.Object(
          { since: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Start of the period; default thirty days ago; at most 366 days ago' })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(DecisionAnalyticsSchema), ...errorResponses(...VALIDATION_ERRORS, ...OPERATOR_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { operator, tenant } = operatorOf(req);
      const now = ctx.now();
      const since = windowStart(req.query.since, now);
      const clearance = clearanceOf(operator);
      const [groups, reviewers] = await Promise.all([decisionGroups(ctx.db, tenant, clearance, since), reviewerThroughput(ctx.db, tenant, clearance, since)]);
      return {
        object: 'decision_analytics' as const,
        since: since.toISOString(),
        until: now.toISOString(),
        ...summariseDecisions(groups, utcDays(since, now)),
        reviewers,
      };
    },
  );
}
