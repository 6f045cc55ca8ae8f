import { Type } from '@sinclair/typebox';
import { appendJournal, applyCaseTrigger, supersedePiece, updateJourney } from '@idv/db';
import { DOCUMENT_TYPES, documentChoiceProblem, validateAnswers, validateApplicant } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { literals } from '../../schemas/case.ts';
import { BODY_ERRORS } from '../../schemas/common.ts';
import { PERSON } from '../../services/journey-state.ts';
import { pieceBlobs } from '@idv/case-data';
import { JOURNEY_SECURITY, journeyErrors } from './schemas.ts';
import { journeyWrite, requireStep } from './write.ts';

const STEP_ERRORS = [...BODY_ERRORS, 'journey_closed', 'journey_step_blocked', 'journey_step_not_asked'] as const;

export function registerJourneySteps(app: App, ctx: AppContext): void {
  app.post(
    '/v1/sessions/current/consent',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'giveJourneyConsent',
        tags: ['journey'],
        summary: 'Accept or decline',
        description: 'The person accepts or declines; declining ends the journey and abandons the case',
        security: JOURNEY_SECURITY,
        body: Type.Object({ accepted: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: Type.Ref('Journey'), ...journeyErrors(...STEP_ERRORS) },
      },
    },
    (req) =>
      journeyWrite(ctx, req, async (tx, j, now) => {
        if (req.body.accepted) {
          if (j.journey.consentedAt) return;
          await updateJourney(tx, j.caseRow.id, { consentedAt: now }, now);
          await appendJournal(tx, j.tenant, { caseId: j.caseRow.id, actor: PERSON, action: 'journey.consent_given', detail: { session_id: j.session.id }, at: now });
          return;
        }
        await updateJourney(tx, j.caseRow.id, { declinedAt: now }, now);
        await applyCaseTrigger(tx, j.tenant, j.caseRow, { type: 'abandoned' }, now);
        await appendJournal(tx, j.tenant, { caseId: j.caseRow.id, actor: PERSON, action: 'journey.declined', detail: { session_id: j.session.id }, at: now });
      }),
  );

  app.post(
    '/v1/sessions/current/applicant',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'enterJourneyApplicant',
        tags: ['journey'],
        summary: "Enter the person's data",
        description: 'What the person enters (the fields the flow asks for), sealed under the case data key',
        security: JOURNEY_SECURITY,
        body: Type.Record(Type.String({ pattern: '^[a-z_]{1,40}$' }), Type.String({ maxLength: 500 }), {
          maxProperties: 16,
          description: 'One string per field of the flow (given_names, surname, birth_date YYYY-MM-DD, email, phone, nationality, address)',
        }),
        response: { 200: Type.Ref('Journey'), ...journeyErrors(...STEP_ERRORS) },
      },
    },
    (req) =>
      journeyWrite(ctx, req, async (tx, j, now) => {
        requireStep(j, 'applicant');
        const checked = validateApplicant(j.flow, req.body, now.toISOString().slice(0, 10));
        if (!checked.ok) throw new ApiError('parameter_invalid', checked.problem.message, checked.problem.field);
        const sealed = await ctx.vault.sealJson(tx, j.caseRow.id, 'data', 'applicant', checked.values, now);
        await updateJourney(tx, j.caseRow.id, { applicantSealed: sealed }, now);
        await appendJournal(tx, j.tenant, {
          caseId: j.caseRow.id,
          actor: PERSON,
          action: 'journey.applicant_entered',
          detail: { fields: Object.keys(checked.values) },
          at: now,
        });
      }),
  );

  app.post(
    '/v1/sessions/current/questionnaire',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'answerJourneyQuestionnaire',
        tags: ['journey'],
        summary: 'Answer the questionnaire',
        description: 'Answers to every question of the flow, sealed; points and flags kept for the step report',
        security: JOURNEY_SECURITY,
        body: Type.Object(
          { answers: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }), Type.String({ maxLength: 40 }), { maxProperties: 50 }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('Journey'), ...journeyErrors(...STEP_ERRORS) },
      },
    },
    (req) =>
      journeyWrite(ctx, req, async (tx, j, now) => {
        requireStep(j, 'questionnaire');
        const checked = validateAnswers(j.flow, req.body.answers);
        if (!checked.ok) throw new ApiError('parameter_invalid', checked.problem.message, checked.problem.field);
        const sealed = await ctx.vault.sealJson(tx, j.caseRow.id, 'data', 'answers', req.body.answers, now);
        await updateJourney(tx, j.caseRow.id, { answersSealed: sealed, questionnaireScore: { points: checked.points, flags: checked.flags } }, now);
        await appendJournal(tx, j.tenant, {
          caseId: j.caseRow.id,
          actor: PERSON,
          action: 'journey.questionnaire_answered',
          detail: { questions: Object.keys(req.body.answers).length },
          at: now,
        });
      }),
  );

  app.post(
    '/v1/sessions/current/document',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'chooseJourneyDocument',
        tags: ['journey'],
        summary: 'Choose the document',
        description: 'Issuing country and type of the document, among those the flow accepts; a change drops the sides already sent',
        security: JOURNEY_SECURITY,
        body: Type.Object({ country: Type.String({ pattern: '^[A-Z]{2}$' }), type: literals(DOCUMENT_TYPES) }, { additionalProperties: false }),
        response: { 200: Type.Ref('Journey'), ...journeyErrors(...STEP_ERRORS, 'unsupported_document_type') },
      },
    },
    (req) =>
      journeyWrite(ctx, req, async (tx, j, now, afterCommit) => {
        requireStep(j, 'document');
        const { country, type } = req.body;
        const problem = documentChoiceProblem(j.flow, country, type);
        if (problem) throw new ApiError('unsupported_document_type', problem, 'subject');
        const before = j.progress.document;
        if (before?.country === country && before.type === type) return;
        // Sides of another document do not belong to this one.
        const dropped = j.pieces.filter((p) => p.kind.startsWith('document_'));
        for (const piece of dropped) await supersedePiece(tx, piece.id, now);
        await updateJourney(tx, j.caseRow.id, { documentCountry: country, documentType: type }, now);
        await appendJournal(tx, j.tenant, {
          caseId: j.caseRow.id,
          actor: PERSON,
          action: 'journey.document_chosen',
          detail: { country, type, ...(dropped.length ? { dropped: dropped.map((p) => p.id) } : {}) },
          at: now,
        });
        const blobs = pieceBlobs(ctx);
        for (const piece of dropped) afterCommit(() => blobs.delete(piece.blobId));
      }),
  );
}
