import { Type } from '@sinclair/typebox';
import { findCase } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { caseForOperator } from '../../services/case-access.ts';
import { taskForOperator } from '../../services/review.ts';
import { caseOfTask, unmask, type UnmaskScope } from '../../services/unmask.ts';
import { CaseParams } from '../cases/get.ts';
import { REAUTH_ROUTE_ERRORS } from '../operators/errors.ts';
import { TaskParams } from '../reviews/schemas.ts';
import { UnmaskQuery, UnmaskedSchema } from './schemas.ts';

const COUNTER =
  'Journaled first, then read, in the same transaction (if the journal write fails nothing is returned). One hourly counter per operator over all ' +
  'unmask routes: beyond twenty distinct cases in an hour, each further case needs a recent re-authentication (Re), else 403 reauth_required';

const ERRORS = errorResponses(...VALIDATION_ERRORS, ...REAUTH_ROUTE_ERRORS, 'resource_not_found');

export function registerUnmaskRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/reviews/:task_id/unmask',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'unmaskReview',
        tags: ['reviews'],
        summary: "Unmask a task's case",
        description: `Reveal the personal data of the task's case (declared, entered, read, corrected, answers) and the gap between declared and read values; optional field_path. ${COUNTER}`,
        params: TaskParams,
        querystring: UnmaskQuery,
        response: { 200: Type.Ref(UnmaskedSchema), ...ERRORS },
      },
    },
    async (req) => {
      const { operator, tenant } = operatorOf(req);
      const taskId = req.params.task_id;
      return unmask(
        ctx,
        req,
        'review',
        caseOfTask(taskId),
        async (tx) => {
          const task = await taskForOperator(tx, tenant, operator, taskId);
          const row = await findCase(tx, tenant, task.caseId);
          if (!row) throw new Error(`task ${task.id} names a missing case`);
          return { row, taskId: task.id, grant: null };
        },
        req.query.field_path,
      );
    },
  );

  const caseRoute = (path: string, scope: UnmaskScope, operationId: string, summary: string, what: string) =>
    app.post(
      path,
      {
        config: { operator: { ability: 'readCase' } },
        schema: {
          operationId,
          tags: ['reviews'],
          summary,
          description: `${what}. ${COUNTER}. A support account reads only a case opened to it by a support grant in force`,
          params: CaseParams,
          response: { 200: Type.Ref(UnmaskedSchema), ...ERRORS },
        },
      },
      async (req) => {
        const { operator, tenant } = operatorOf(req);
        const caseId = (req.params as { case_id: string }).case_id;
        return unmask(
          ctx,
          req,
          scope,
          async () => caseId,
          async (tx) => {
            const { row, grant } = await caseForOperator(tx, tenant, operator, caseId, ctx.now());
            return { row, taskId: null, grant };
          },
        );
      },
    );

  caseRoute('/v1/cases/:case_id/unmask', 'identity', 'unmaskCaseIdentity', "Unmask a case's identity", 'Reveal the identity read from the document, with the gap between declared and read values');
  caseRoute(
    '/v1/cases/:case_id/questionnaires/unmask',
    'questionnaire',
    'unmaskCaseQuestionnaire',
    'Unmask questionnaire answers',
    'Reveal the questionnaire answers (points, threshold and flags are already in the step report without revealing)',
  );
  caseRoute(
    '/v1/cases/:case_id/applicant-data/unmask',
    'applicant_data',
    'unmaskCaseApplicantData',
    'Unmask entered data',
    'Reveal what the person entered beside what the client declared, with the gap between them (the gap to the document is already readable as subject_mismatch)',
  );
}
