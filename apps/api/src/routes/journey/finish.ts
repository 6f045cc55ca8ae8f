import { Type } from '@sinclair/typebox';
import { appendJournal, applyCaseTrigger, enqueueCheckJob, recordUsageWithQuota, updateJourney } from '@idv/db';
import { missingItems, usageSourceKey } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { PERSON } from '../../services/journey-state.ts';
import { JOURNEY_SECURITY, journeyErrors } from './schemas.ts';
import { journeyWrite } from './write.ts';

export function registerJourneyFinish(app: App, ctx: AppContext): void {
  app.post(
    '/v1/sessions/current/finish',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'finishJourney',
        tags: ['journey'],
        summary: 'Finish the journey',
        description: 'The person has sent everything: the case leaves collecting for processing (refused while anything the flow needs is missing)',
        security: JOURNEY_SECURITY,
        response: { 200: Type.Ref('Journey'), ...journeyErrors('journey_closed', 'journey_incomplete') },
      },
    },
    (req) =>
      journeyWrite(ctx, req, async (tx, j, now) => {
        const missing = missingItems(j.flow, j.progress);
        if (missing.length) throw new ApiError('journey_incomplete', `Still missing: ${missing.join(', ')}.`);
        await applyCaseTrigger(tx, j.tenant, j.caseRow, { type: 'submission_complete' }, now, { resubmission: null });
        await updateJourney(tx, j.caseRow.id, { finishedAt: now }, now);
        // The checks of this round, in the same transaction: a finished journey always gets them.
        await enqueueCheckJob(tx, j.tenant, j.caseRow.id, j.journey.round, now);
        // Metering (docs/usage.md): the case reaches processing, its checks will run. The first
        // round is the verification, each later round a resubmission; once per case and round. In
        // production the unit that reaches a quota line sends its quota event here too.
        const round = j.journey.round;
        await recordUsageWithQuota(tx, {
          ...j.tenant,
          caseId: j.caseRow.id,
          at: now,
          ...(round === 1
            ? { service: 'verification', sourceKey: usageSourceKey.verification(j.caseRow.id) }
            : { service: 'resubmission', sourceKey: usageSourceKey.resubmission(j.caseRow.id, round) }),
        });
        await appendJournal(tx, j.tenant, {
          caseId: j.caseRow.id,
          actor: PERSON,
          action: 'journey.submitted',
          detail: { session_id: j.session.id, round: j.journey.round, pieces: j.pieces.map((p) => p.id) },
          at: now,
        });
      }),
  );
}
