import { Type } from '@sinclair/typebox';
import { reviewMetrics, reviewMetricsByDay } from '@idv/db';
import { fillDays, reviewAlerts, utcDays } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { clearanceOf } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { ReviewMetricsSchema } from './schemas.ts';
import { windowStart } from './window.ts';


export function registerReviewMetrics(app: App, ctx: AppContext): void {
  app.get(
    '/v1/reviews/metrics',
    {
      config: { operator: { ability: 'metrics' } },
      schema: {
        operationId: 'reviewMetrics',
        tags: ['reviews'],
        summary: 'Get review metrics',
        description: 'Volumes, decision times, outcomes, overdue tasks and alerts (supervisor or administrator), within the clearance',
        querystring: Type.Object(
          {
            since: Type.Optional(
              Type.String({ format: 'date-time', maxLength: 40, description: 'Start of the period; default thirty days ago; at most 366 days ago' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(ReviewMetricsSchema), ...errorResponses(...VALIDATION_ERRORS, ...OPERATOR_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { operator, tenant } = operatorOf(req);
      const now = ctx.now();
      const since = windowStart(req.query.since, now);
      const clearance = clearanceOf(operator);
      const m = await reviewMetrics(ctx.db, tenant, clearance, since, now);
      const byDay = await reviewMetricsByDay(ctx.db, tenant, clearance, since);
      const emptyDay = { opened: 0, closed: 0, approved: 0, rejected: 0, resubmission_requested: 0, closed_after_due_date: 0, decision_seconds_p50: null as number | null };
      return {
        object: 'review_metrics' as const,
        since: since.toISOString(),
        until: now.toISOString(),
        volumes: { opened: m.opened, closed: m.closed, closed_by_operators: m.closed_by_operators, closed_by_keys: m.closed_by_keys },
        outcomes: {
          approved: m.approved,
          rejected: m.rejected,
          resubmission_requested: m.resubmission_requested,
          closed_without_decision: m.closed_without_decision,
        },
        decision_time_seconds: { p50: m.decision_seconds_p50, p90: m.decision_seconds_p90, average: m.decision_seconds_avg },
        overdue: { now: m.overdue_now, oldest_due_at: m.oldest_overdue_due_at?.toISOString() ?? null, closed_after_due_date: m.closed_overdue },
        double_validation: { started: m.second_validations, escalated: m.escalations },
        revisions: m.revisions,
        daily: fillDays(utcDays(since, now), byDay, emptyDay),
        alerts: reviewAlerts(m),
      };
    },
  );
}
