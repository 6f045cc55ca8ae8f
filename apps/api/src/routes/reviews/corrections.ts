import { Type } from '@sinclair/typebox';
import { appendJournal, correctionsOfCase, insertCorrection, updateTask } from '@idv/db';
import { lockDeadline, lockPosition, newId, type CorrectableField } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { caseOpener, LEGACY_AAD, PURPOSE } from '@idv/case-data';
import { lockRefusal, taskForOperator } from '../../services/review.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { CorrectionRecordedSchema, FieldCorrectionSchema, TaskParams } from './schemas.ts';

/** Sealed under the case's data key (purpose `review_correction:<id>`). */
interface SealedCorrection {
  previous: string | null;
  value: string;
  comment: string | null;
}

export function registerAddCorrection(app: App, ctx: AppContext): void {
  app.post(
    '/v1/reviews/:task_id/corrections',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'addReviewCorrection',
        tags: ['reviews'],
        summary: 'Correct a field',
        description:
          'Enter a field from the image, under the operator’s lock. The service reads the previous value itself; the entry is kept as a sealed ' +
          'annotation beside the value read, which is never overwritten',
        params: TaskParams,
        body: Type.Ref(FieldCorrectionSchema),
        response: {
          201: Type.Ref(CorrectionRecordedSchema),
          ...errorResponses(...BODY_ERRORS, ...OPERATOR_ROUTE_ERRORS, 'resource_not_found', 'task_closed', 'lock_expired', 'lock_not_held', 'task_locked'),
        },
      },
    },
    async (req, reply) => {
      const { operator, tenant, actor } = operatorOf(req);
      const body = req.body as { field: CorrectableField; value: string; comment?: string };
      const now = ctx.now();
      const recorded = await ctx.db.transaction(async (tx) => {
        const task = await taskForOperator(tx, tenant, operator, req.params.task_id, true);
        if (task.status === 'closed') throw new ApiError('task_closed');
        const position = lockPosition(task, operator.id, now);
        if (position !== 'held') throw lockRefusal(position, task);
        // The previous value is what the service holds for the field, never what the console says it was:
        // the latest annotation of the field (the document reading itself arrives with the checks engine).
        const earlier = (await correctionsOfCase(tx, tenant, task.caseId)).filter((c) => c.field === body.field).at(-1);
        const opener = caseOpener(ctx, tx, task.caseId);
        const previous = earlier ? ((await opener.json<SealedCorrection>('data', PURPOSE.correction(earlier.id), earlier.sealed, LEGACY_AAD.correction(earlier.id)))?.value ?? null) : null;
        const id = newId('cor', now.getTime());
        const sealed: SealedCorrection = { previous, value: body.value, comment: body.comment ?? null };
        const row = await insertCorrection(tx, {
          id,
          ...tenant,
          caseId: task.caseId,
          taskId: task.id,
          actor,
          field: body.field,
          sealed: await ctx.vault.sealJson(tx, task.caseId, 'data', PURPOSE.correction(id), sealed, now),
          createdAt: now,
        });
        const extended = await updateTask(tx, tenant, task.id, { lockExpiresAt: lockDeadline(now), updatedAt: now });
        await appendJournal(tx, tenant, { caseId: task.caseId, actor, action: 'review.correction_added', detail: { task_id: task.id, correction_id: id, field: body.field }, at: now });
        return { row, previousPresent: previous !== null, lockExpiresAt: extended.lockExpiresAt! };
      });
      return reply.code(201).send({
        id: recorded.row.id,
        object: 'field_correction' as const,
        task_id: recorded.row.taskId,
        case_id: recorded.row.caseId,
        field: body.field,
        previous_value_present: recorded.previousPresent,
        created_at: recorded.row.createdAt.toISOString(),
        lock_expires_at: recorded.lockExpiresAt.toISOString(),
      });
    },
  );
}
