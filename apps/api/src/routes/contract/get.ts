import { Type } from '@sinclair/typebox';
import { findClient, listSubscriptions } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { presentSubscription } from '../../presenters/contract.ts';
import { ContractSchema } from './schemas.ts';

export function registerGetContract(app: App, ctx: AppContext): void {
  app.get(
    '/v1/contract',
    {
      // Also the console's Usage and contract screen: the console credential naming an operator who may read usage.
      config: { operator: { ability: 'readUsage', alsoIntegration: true } },
      schema: {
        operationId: 'getContract',
        tags: ['usage'],
        summary: 'Get the contract',
        description: 'Who the client is and what is subscribed, each subscription with its state at read time (read-only)',
        response: { 200: Type.Ref(ContractSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { tenant } = authOf(req);
      const now = ctx.now();
      const [client, rows] = await Promise.all([findClient(ctx.db, tenant.clientId), listSubscriptions(ctx.db, tenant.clientId)]);
      return {
        object: 'contract' as const,
        // A key exists only for an existing client (api_keys.client_id references clients).
        client: { id: client!.id, name: client!.name },
        environment: tenant.environment,
        subscriptions: rows.map((r) => presentSubscription(r, now)),
      };
    },
  );
}
