import { Type } from '@sinclair/typebox';
import { findEmbedding } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { journeyOf } from '../../http/session-auth.ts';
import { JOURNEY_SECURITY, journeyErrors } from './schemas.ts';

/** The framed journey's path: the journey server serves it with frame-ancestors from this client's origins. */
const framePath = (clientId: string, environment: string) => `/embed/${clientId}/${environment}`;

export function registerJourneyFrame(app: App, ctx: AppContext): void {
  app.get(
    '/v1/sessions/current/embedding',
    {
      // Answered for an expired session too: the framed journey must still find its frame to say `ended: expired`.
      config: { auth: 'session', expiredSessionAllowed: true },
      schema: {
        operationId: 'getJourneyFrame',
        tags: ['journey'],
        summary: 'For the framed journey: the origins allowed to frame it (the handshake answers only those) and its frame path; answered for an expired session too',
        security: JOURNEY_SECURITY,
        response: { 200: Type.Ref('JourneyFrame'), ...journeyErrors() },
      },
    },
    async (req) => {
      const { tenant } = journeyOf(req);
      const row = await findEmbedding(ctx.db, tenant);
      return { object: 'journey_frame' as const, origins: row?.origins ?? [], frame_path: framePath(tenant.clientId, tenant.environment) };
    },
  );
}
