import { Type } from '@sinclair/typebox';
import { findEmbedding } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { presentEmbedding } from './schemas.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerGetJourneyEmbedding(app: App, ctx: AppContext): void {
  app.get(
    '/v1/journey-embedding',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'getJourneyEmbedding',
        tags: ['embedding'],
        summary: 'Get the framing origins',
        description: 'Origins allowed to frame the journey in this environment; empty means none',
        response: { 200: Type.Ref('JourneyEmbedding'), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req) => presentEmbedding(await findEmbedding(ctx.db, authOf(req).tenant)),
  );
}
