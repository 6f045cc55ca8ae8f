import { Type } from '@sinclair/typebox';
import { dailyUsage } from '@idv/db';
import { emptyUsage, fillDays, parsePeriod, utcDays } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { UsageDailySchema, UsageQuery } from './schemas.ts';

const DAY_MS = 86_400_000;

/**
 * GET /v1/usage/daily: the month's units per day, for the console's chart. A route of its own
 * rather than a field of GET /v1/usage: it reads the month's units themselves, where the totals
 * (and the quota checks) read a few summed rows.
 */
export function registerDailyUsage(app: App, ctx: AppContext): void {
  app.get(
    '/v1/usage/daily',
    {
      config: { operator: { ability: 'readUsage', alsoIntegration: true } },
      schema: {
        operationId: 'getDailyUsage',
        tags: ['usage'],
        summary: 'Get usage per day',
        description: 'Units measured in one month per UTC day and service (zeros for days with nothing); sandbox and production apart',
        querystring: UsageQuery,
        response: { 200: Type.Ref(UsageDailySchema), ...errorResponses(...VALIDATION_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { tenant } = authOf(req);
      const { period, start, end } = parsePeriod(req.query.period)!;
      const rows = await dailyUsage(ctx.db, tenant, start, end);
      const days = utcDays(start, new Date(end.getTime() - DAY_MS));
      const data = fillDays(
        days,
        rows.map((r) => ({ day: r.day, [r.service]: r.quantity })),
        emptyUsage(),
      );
      return { object: 'usage_daily' as const, period, environment: tenant.environment, data };
    },
  );
}
