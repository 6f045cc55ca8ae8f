import { Type } from '@sinclair/typebox';
import type { OperatorOutcome } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { SIGNED_ERRORS, SignedHeaders, errorResponses } from '../../schemas/common.ts';
import { INTEGRATION_ROUTE_ERRORS } from '../operators/errors.ts';
import { presentDecisionRecorded } from '../../presenters/review.ts';
import { recordKeyDecision, type DecisionResult } from '../../services/review.ts';
import { CaseDecisionBodySchema, DecisionRecordedSchema } from '../reviews/schemas.ts';
import { CaseParams } from './get.ts';

export function registerDecideCase(app: App, ctx: AppContext): void {
  app.post(
    '/v1/cases/:case_id/decision',
    {
      config: { signed: true, permission: 'decisions' },
      schema: {
        operationId: 'decideCase',
        tags: ['cases'],
        summary: 'Decide a case in review',
        description:
          'Decide a case in review with a key holding the permission decisions (signed, idempotent). The key decides alone: no lock, ' +
          'no clearance, no double validation (nor a second validator for an override); journaled as key:<key_id>. Approving against checks that ' +
          'failed or need attention needs a justification, as for an operator (422 justification_required). A case not in review: 409 ' +
          'case_not_in_review, saying where it stands',
        headers: SignedHeaders,
        params: CaseParams,
        body: Type.Ref(CaseDecisionBodySchema),
        response: {
          201: Type.Ref(DecisionRecordedSchema),
          ...errorResponses(...INTEGRATION_ROUTE_ERRORS, ...SIGNED_ERRORS, 'permission_denied', 'resource_not_found', 'case_not_in_review', 'justification_required'),
        },
      },
    },
    async (req, reply) => {
      let result: DecisionResult | null = null;
      await runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const { key, tenant } = authOf(req);
        const body = req.body as { outcome: OperatorOutcome; reason_code?: string; steps?: string[]; justification?: string };
        result = await recordKeyDecision(ctx, tx, tenant, key.id, req.params.case_id, body);
        return { status: 201, body: presentDecisionRecorded(result) };
      });
      const done = result as DecisionResult | null;
      // The response is committed and sent; a resubmission is then handed to the journey (a failure is logged).
      if (done && done.decision.outcome === 'resubmit') {
        await ctx.journey.relaunch(authOf(req).tenant, done.case.id, done.decision.steps ?? []).catch((err) => req.log.warn({ err }, 'journey relaunch failed'));
      }
    },
  );
}
