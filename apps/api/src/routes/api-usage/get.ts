import { Type } from '@sinclair/typebox';
import { readApiUsage } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

const DAY_MS = 86_400_000;

export const ApiUsageSchema = Type.Object(
  {
    object: Type.Literal('api_usage'),
    days: Type.Integer(),
    data: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date' }),
        total: Type.Integer(),
        by_status: Type.Array(Type.Object({ status: Type.Integer(), calls: Type.Integer() })),
      }),
      { description: 'One entry per day, oldest first, today included; days without calls have total 0' },
    ),
  },
  { $id: 'ApiUsage', description: 'Integration calls per day and response code (console calls excluded), in UTC days' },
);

export function registerGetApiUsage(app: App, ctx: AppContext): void {
  app.get(
    '/v1/api-usage',
    {
      // Also the console's Usage and contract screen: the console credential naming an operator who may read usage.
      config: { operator: { ability: 'readUsage', alsoIntegration: true } },
      schema: {
        operationId: 'getApiUsage',
        tags: ['usage'],
        summary: 'Get API calls per day',
        description: 'Integration calls per day and per response code',
        querystring: Type.Object(
          { days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 30 })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(ApiUsageSchema), ...errorResponses(...VALIDATION_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const days = req.query.days ?? 30;
      // Counts of this instance are flushed first, so a client reads its own calls at once.
      await ctx.usage.flush();
      const today = Date.parse(ctx.now().toISOString().slice(0, 10));
      const dates = Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
      const rows = await readApiUsage(ctx.db, authOf(req).tenant, dates[0]);
      const data = dates.map((date) => {
        const by_status = rows.filter((r) => r.day === date).map((r) => ({ status: Number(r.statusCode), calls: Number(r.calls) }));
        return { date, total: by_status.reduce((sum, s) => sum + s.calls, 0), by_status };
      });
      return { object: 'api_usage' as const, days, data };
    },
  );
}
