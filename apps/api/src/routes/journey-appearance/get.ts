import { Type } from '@sinclair/typebox';
import { findAppearance } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { presentAppearance } from '../../presenters/appearance.ts';

export function registerGetJourneyAppearance(app: App, ctx: AppContext): void {
  app.get(
    '/v1/journey-appearance',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'getJourneyAppearance',
        tags: ['embedding'],
        summary: "Get the journey's appearance",
        description: 'The journey’s display name, logo and colours in this environment (the journey’s own look until set)',
        response: { 200: Type.Ref('JourneyAppearance'), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req) => presentAppearance(await findAppearance(ctx.db, authOf(req).tenant)),
  );
}
