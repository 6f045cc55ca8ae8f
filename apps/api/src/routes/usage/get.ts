import { Type } from '@sinclair/typebox';
import { monthlyUsage } from '@idv/db';
import { parsePeriod } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { usageDetail } from './detail.ts';
import { UsageQuery, UsageSchema } from './schemas.ts';

export function registerGetUsage(app: App, ctx: AppContext): void {
  app.get(
    '/v1/usage',
    {
      // Also the console's Usage and contract screen: the console credential naming an operator who may read usage.
      config: { operator: { ability: 'readUsage', alsoIntegration: true } },
      schema: {
        operationId: 'getUsage',
        tags: ['usage'],
        summary: "Get a month's usage",
        description: 'Units measured in one month per service (zeros for a month with nothing), with what is subscribed for each; sandbox and production apart',
        querystring: UsageQuery,
        response: { 200: Type.Ref(UsageSchema), ...errorResponses(...VALIDATION_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { tenant } = authOf(req);
      const { period } = parsePeriod(req.query.period)!;
      const services = await monthlyUsage(ctx.db, tenant, period);
      const detail = await usageDetail(ctx, tenant, period, services);
      return { object: 'usage' as const, period, environment: tenant.environment, services, detail };
    },
  );
}
