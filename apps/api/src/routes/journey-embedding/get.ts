import { Type } from '@sinclair/typebox';
import { findEmbedding } from '@idv/db';
import { CONSOLE_SETTINGS_ERRORS, throughConsole } from '../console-settings.ts';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { presentEmbedding } from './schemas.ts';

export function registerGetJourneyEmbedding(app: App, ctx: AppContext): void {
  app.get(
    '/v1/journey-embedding',
    {
      config: throughConsole('manageIntegration'),
      schema: {
        operationId: 'getJourneyEmbedding',
        tags: ['embedding'],
        summary: 'Origins allowed to frame the journey in this environment; empty means none',
        response: { 200: Type.Ref('JourneyEmbedding'), ...errorResponses(...CONSOLE_SETTINGS_ERRORS) },
      },
    },
    async (req) => presentEmbedding(await findEmbedding(ctx.db, authOf(req).tenant)),
  );
}
