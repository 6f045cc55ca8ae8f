import { Type } from '@sinclair/typebox';
import { findSession } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { INTEGRATION_ROUTE_ERRORS } from '../operators/errors.ts';
import { SessionSchema, presentSession, sessionStatus } from './schemas.ts';

export function registerGetSession(app: App, ctx: AppContext): void {
  app.get(
    '/v1/sessions/:session_id',
    {
      schema: {
        operationId: 'getSession',
        tags: ['sessions'],
        summary: "Get a journey link's state",
        description: 'State of a journey link (never the url)',
        params: Type.Object({ session_id: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.Ref(SessionSchema), ...errorResponses(...INTEGRATION_ROUTE_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const row = await findSession(ctx.db, authOf(req).tenant, req.params.session_id);
      if (!row) throw new ApiError('resource_not_found', 'No such session.', 'session_id');
      const now = ctx.now();
      return { ...presentSession(row), status: sessionStatus(row, now) };
    },
  );
}
