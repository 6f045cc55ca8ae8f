import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { journeyOf } from '../../http/session-auth.ts';
import { journeyStateOf, openJourney } from '../../services/journey-state.ts';
import { JOURNEY_SECURITY, journeyErrors } from './schemas.ts';

export function registerJourneyState(app: App, ctx: AppContext): void {
  app.get(
    '/v1/sessions/current',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'getJourney',
        tags: ['journey'],
        summary: 'Get the journey',
        description: 'The journey of the session token (called by the hosted journey, never by clients); the first call moves the case to collecting',
        security: JOURNEY_SECURITY,
        response: { 200: Type.Ref('Journey'), ...journeyErrors() },
      },
    },
    async (req) => {
      const { session } = journeyOf(req);
      const now = ctx.now();
      return ctx.db.transaction(async (tx) => journeyStateOf(tx, await openJourney(tx, session, now)));
    },
  );
}
