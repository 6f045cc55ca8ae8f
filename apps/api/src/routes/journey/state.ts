import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { journeyOf } from '../../http/session-auth.ts';
import { fileUploadAllowed, openJourney, presentJourney } from '../../services/journey-state.ts';
import { JOURNEY_SECURITY, journeyErrors } from './schemas.ts';

export function registerJourneyState(app: App, ctx: AppContext): void {
  app.get(
    '/v1/sessions/current',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'getJourney',
        tags: ['journey'],
        summary: 'The journey of the session token (called by the hosted journey, never by clients); the first call moves the case to collecting',
        security: JOURNEY_SECURITY,
        response: { 200: Type.Ref('Journey'), ...journeyErrors() },
      },
    },
    async (req) => {
      const { session } = journeyOf(req);
      const now = ctx.now();
      const j = await ctx.db.transaction((tx) => openJourney(tx, session, now));
      return presentJourney(j, fileUploadAllowed(j));
    },
  );
}
