import { Type } from '@sinclair/typebox';
import { appendJournal, findCaseForUpdate, insertRevision, reviseCaseDecision } from '@idv/db';
import { decisionProblem, newId, revisionProblem } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { PURPOSE } from '@idv/case-data';
import { presentRevision } from '../../presenters/review.ts';
import { journalOverride, overrideOf, sealJustification, taskForOperator } from '../../services/review.ts';
import { REAUTH_ROUTE_ERRORS } from '../operators/errors.ts';
import { RevisionRecordedSchema, RevisionSchema, TaskParams } from './schemas.ts';

export function registerReviseReview(app: App, ctx: AppContext): void {
  app.post(
    '/v1/reviews/:task_id/revision',
    {
      config: { operator: { ability: 'revise', reauth: true } },
      schema: {
        operationId: 'reviseReview',
        tags: ['reviews'],
        summary: 'Revise a decision',
        description:
          'Revise the decision of the decided case of this task (supervisor, Op + Re). Revisability is checked before anything is written; ' +
          'a revision that changes nothing (such as a retry of one already applied) is refused with revision_changes_nothing. Revising to approved ' +
          'against checks that failed or need attention needs a justification (422 justification_required), as a decision does',
        params: TaskParams,
        body: Type.Ref(RevisionSchema),
        response: {
          201: Type.Ref(RevisionRecordedSchema),
          ...errorResponses(...BODY_ERRORS, ...REAUTH_ROUTE_ERRORS, 'resource_not_found', 'justification_required', 'case_not_decided', 'revision_changes_nothing', 'case_erased'),
        },
      },
    },
    async (req, reply) => {
      const { operator, tenant, actor } = operatorOf(req);
      const body = req.body as { outcome: 'approve' | 'reject'; reason_code?: string; comment?: string; justification?: string };
      const problem = decisionProblem({ outcome: body.outcome, reason_code: body.reason_code ?? null });
      if (problem) throw new ApiError('parameter_invalid', problem[1], problem[0]);
      const now = ctx.now();
      const row = await ctx.db.transaction(async (tx) => {
        const task = await taskForOperator(tx, tenant, operator, req.params.task_id);
        const caseRow = (await findCaseForUpdate(tx, tenant, task.caseId))!;
        const current = caseRow.decision as { outcome: 'approved' | 'rejected'; reason_code: string | null } | null;
        const refusal = revisionProblem(caseRow.state, current ? { outcome: current.outcome, reasonCode: current.reason_code } : null, body);
        if (refusal === 'case_not_decided') {
          throw new ApiError('case_not_decided', `The case is ${caseRow.state} (status ${caseRow.status}); only a decided case can be revised.`);
        }
        if (refusal) throw new ApiError(refusal);
        // Revising to approved against failed checks is an override like a decision's (no second
        // validator: the revision is already a supervisor's, re-authenticated).
        const overridden = overrideOf(caseRow, body);
        const outcome = body.outcome === 'approve' ? 'approved' : 'rejected';
        const id = newId('rev', now.getTime());
        const justification = await sealJustification(ctx, tx, caseRow.id, PURPOSE.revisionJustification(id), overridden, body.justification, now);
        const revision = await insertRevision(tx, {
          id,
          ...tenant,
          caseId: caseRow.id,
          taskId: task.id,
          actor,
          previousOutcome: current!.outcome,
          previousReasonCode: current!.reason_code ?? null,
          outcome,
          reasonCode: body.reason_code ?? null,
          commentSealed: body.comment ? await ctx.vault.sealJson(tx, caseRow.id, 'data', PURPOSE.revisionComment(id), body.comment, now) : null,
          overriddenChecks: overridden,
          justificationSealed: justification.sealed,
          createdAt: now,
        });
        await appendJournal(tx, tenant, { caseId: caseRow.id, actor, action: 'review.revision_recorded', detail: { task_id: task.id, revision_id: id }, at: now });
        await journalOverride(tx, tenant, caseRow.id, actor, { revision_id: id }, overridden, false, now);
        await reviseCaseDecision(tx, tenant, caseRow, { outcome, reasonCode: body.reason_code ?? null, actor }, now);
        return { revision, justification: justification.text };
      });
      return reply.code(201).send(presentRevision(row.revision, row.justification));
    },
  );
}
