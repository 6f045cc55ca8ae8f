import { Type } from '@sinclair/typebox';
import { listTrustAnchors } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { presentTrustAnchor } from './schemas.ts';

export function registerListTrustAnchors(app: App, ctx: AppContext): void {
  app.get(
    '/v1/trust-anchors',
    {
      // Certificates are public: any key of the client may read them (an administrator in the console).
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'listTrustAnchors',
        tags: ['wallet'],
        summary: 'List trust anchors',
        description: 'The certificates wallet credentials of this client and environment must chain to, oldest first (all of them: at most 100)',
        response: { 200: Type.Ref('TrustAnchorList'), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req) => ({ object: 'list' as const, data: (await listTrustAnchors(ctx.db, authOf(req).tenant)).map(presentTrustAnchor) }),
  );
}
