import { Type } from '@sinclair/typebox';
import type { OperatorOutcome } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { presentDecisionRecorded } from '../../presenters/review.ts';
import { recordOperatorDecision } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { DecisionRecordedSchema, OperatorDecisionSchema, TaskParams } from './schemas.ts';

export function registerDecideReview(app: App, ctx: AppContext): void {
  app.post(
    '/v1/reviews/:task_id/decision',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'decideReview',
        tags: ['reviews'],
        summary: 'Decide a task',
        description:
          'Record this operator’s outcome (under their lock), then relaunch the journey on resubmit. Idempotent: a retry replays the decision ' +
          '(Idempotent-Replayed: true) and never records a second one. Under double validation two different operators must agree; a ' +
          'disagreement escalates to a supervisor. Approving against checks that failed or need attention (an override) needs a justification ' +
          '(422 justification_required otherwise), and a second operator when the flow says double_validation_on_override. If the relaunch fails ' +
          'the outcome stays recorded and the call fails',
        params: TaskParams,
        body: Type.Ref(OperatorDecisionSchema),
        response: {
          201: Type.Ref(DecisionRecordedSchema),
          ...errorResponses(
            ...BODY_ERRORS,
            ...OPERATOR_ROUTE_ERRORS,
            'resource_not_found',
            'justification_required',
            'task_closed',
            'lock_expired',
            'lock_not_held',
            'task_locked',
            'decision_already_recorded',
            'journey_relaunch_failed',
          ),
        },
      },
    },
    async (req, reply) => {
      const { operator, tenant } = operatorOf(req);
      const body = req.body as { outcome: OperatorOutcome; reason_code?: string; steps?: string[]; comment?: string; justification?: string };
      const result = await recordOperatorDecision(ctx, tenant, operator, req.params.task_id, body);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(presentDecisionRecorded(result));
    },
  );
}
