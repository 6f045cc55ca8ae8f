import { Type } from '@sinclair/typebox';
import { USAGE_SERVICES } from '@idv/domain';
import { quotaTermsFields } from '../contract/schemas.ts';

/** `YYYY-MM`, month 01 to 12 (parsePeriod in @idv/domain says the same). */
export const UsageQuery = Type.Object(
  { period: Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description: 'The month, YYYY-MM (UTC)', examples: ['2026-11'] }) },
  { additionalProperties: false },
);

const perService = <T extends Parameters<typeof Type.Object>[0][string]>(value: T) =>
  Type.Object(Object.fromEntries(USAGE_SERVICES.map((s) => [s, value])) as Record<(typeof USAGE_SERVICES)[number], T>);

/**
 * What is subscribed for a service in the month (the contract, GET /v1/contract; docs/usage.md,
 * "Contract and quotas"), and the units beyond its quota. Null terms while no subscription covers
 * the service for the month.
 */
export const UsageDetailSchema = Type.Object(
  {
    offer: Type.Union([Type.String(), Type.Null()], { description: 'The offer subscribed; null: no subscription covers the month' }),
    quota: quotaTermsFields.quota,
    over_quota: quotaTermsFields.over_quota,
    excess: Type.Integer({
      minimum: 0,
      description: 'Units of the month beyond the quota (counted under allow and notify); 0 when unlimited, without subscription, or in the sandbox',
    }),
  },
  { $id: 'UsageDetail' },
);

export const UsageSchema = Type.Object(
  {
    object: Type.Literal('usage'),
    period: Type.String({ examples: ['2026-11'] }),
    environment: Type.Union([Type.Literal('sandbox'), Type.Literal('prod')], { description: 'The key’s environment: sandbox and production are metered apart' }),
    services: perService(Type.Integer({ minimum: 0, description: 'Units of the month' })),
    detail: perService(Type.Ref(UsageDetailSchema)),
  },
  {
    $id: 'Usage',
    description: 'Units measured in one month, one total per service (docs/usage.md says what each service counts), and what is subscribed for each',
  },
);

export const UsageDailySchema = Type.Object(
  {
    object: Type.Literal('usage_daily'),
    period: Type.String({ examples: ['2026-11'] }),
    environment: Type.Union([Type.Literal('sandbox'), Type.Literal('prod')]),
    data: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date', description: 'A UTC day of the month' }),
        ...perService(Type.Integer({ minimum: 0, description: 'Units of the day' })).properties,
      }),
      { description: 'One entry per UTC day of the month, oldest first, days without units included (zeros)' },
    ),
  },
  { $id: 'UsageDaily', description: 'Units of one month per UTC day and service: the same units as GET /v1/usage and its CSV export, day by day' },
);
