import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { HANDOFF_OPEN_PATH, journeyOf } from '../../http/session-auth.ts';
import { BODY_ERRORS, publicErrorResponses } from '../../schemas/common.ts';
import { createHandoff, followHandoff, openHandoff } from '../../services/handoffs.ts';
import { openJourney, requireOpen } from '../../services/journey-state.ts';
import { JOURNEY_SECURITY, journeyErrors } from './schemas.ts';

/**
 * The desktop-to-phone handoff (docs/journey.md#continuing-on-a-phone): the desktop's journey asks
 * for a code and follows it with its own session token; the phone opens the code, which is its
 * only credential, and gets a session of its own.
 */
export function registerJourneyHandoffs(app: App, ctx: AppContext): void {
  app.post(
    '/v1/sessions/current/handoffs',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'createJourneyHandoff',
        tags: ['journey'],
        summary: 'Create a phone handoff',
        description:
          'A short code and link that open the same case on a phone (valid ten minutes, opened once; at most five per journey link; a new one replaces the code not opened yet); journaled as handoff.created',
        security: JOURNEY_SECURITY,
        response: { 201: Type.Ref('HandoffCreated'), ...journeyErrors('journey_closed', 'handoff_limit_reached') },
      },
    },
    async (req, reply) => {
      const { session } = journeyOf(req);
      const now = ctx.now();
      const created = await ctx.db.transaction(async (tx) => {
        // Opened with the case lock: creations of one session are serialised (the bound and the replacement hold).
        const j = await openJourney(tx, session, now);
        requireOpen(j);
        return createHandoff(tx, j, { journeyUrl: ctx.config.journeyUrl, now });
      });
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/v1/sessions/current/handoffs/:handoff_id',
    {
      // Answered for an expired desktop session too: the phone may finish after the desktop's link ended, and this reveals only a step.
      config: { auth: 'session', expiredSessionAllowed: true },
      schema: {
        operationId: 'getJourneyHandoff',
        tags: ['journey'],
        summary: "Get a handoff's state",
        description: 'For the desktop that asked for the handoff: whether the phone opened it and where the journey stands (status and step only); answered for an expired session too',
        security: JOURNEY_SECURITY,
        params: Type.Object({ handoff_id: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.Ref('Handoff'), ...journeyErrors('resource_not_found') },
      },
    },
    (req) => followHandoff(ctx.db, journeyOf(req).session, req.params.handoff_id, ctx.now()),
  );

  app.post(
    HANDOFF_OPEN_PATH,
    {
      config: { auth: 'handoff' },
      schema: {
        operationId: 'openJourneyHandoff',
        tags: ['journey'],
        summary: 'Open a handoff on the phone',
        description:
          'The phone opens a handoff code (the code is the credential: no key, no session): a new session of the same case for fifteen minutes, its link returned once; journaled as handoff.opened. Refused codes count against the address like refused keys',
        security: [],
        body: Type.Object(
          { code: Type.String({ minLength: 1, maxLength: 32, description: 'The code as shown or typed (case, spaces and hyphens do not matter)' }) },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Ref('HandoffSession'),
          ...publicErrorResponses(...BODY_ERRORS, 'handoff_code_invalid', 'handoff_code_expired', 'journey_closed', 'internal_error'),
        },
      },
    },
    async (req, reply) => {
      const now = ctx.now();
      const opened = await ctx.db.transaction((tx) => openHandoff(tx, req.body.code, { journeyUrl: ctx.config.journeyUrl, now }));
      return reply.code(201).send(opened);
    },
  );
}
