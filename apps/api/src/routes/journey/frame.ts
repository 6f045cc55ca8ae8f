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
      // Not for an expired session (401 session_expired, as every journey route): nothing outlives
      // the link it came from, not even its client's origins. A frame that already made its
      // handshake still says `ended: expired` to its verified page.
      config: { auth: 'session' },
      schema: {
        operationId: 'getJourneyFrame',
        tags: ['journey'],
        summary: "Get the frame's settings",
        description: 'For the framed journey: the origins allowed to frame it (the handshake answers only those) and its frame path; an expired link gets 401 session_expired',
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
