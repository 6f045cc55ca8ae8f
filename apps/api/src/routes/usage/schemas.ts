import { Type } from '@sinclair/typebox';
import { USAGE_SERVICES } from '@idv/domain';

/** `YYYY-MM`, month 01 to 12 (parsePeriod in @idv/domain says the same). */
export const UsageQuery = Type.Object(
  { period: Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description: 'The month, YYYY-MM (UTC)', examples: ['2026-11'] }) },
  { additionalProperties: false },
);

const perService = <T extends Parameters<typeof Type.Object>[0][string]>(value: T) =>
  Type.Object(Object.fromEntries(USAGE_SERVICES.map((s) => [s, value])) as Record<(typeof USAGE_SERVICES)[number], T>);

/**
 * What is subscribed for a service (the contract, GET /v1/contract). Null while no subscription
 * covers the service for the month.
 */
export const UsageDetailSchema = Type.Object(
  {
    quota: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Units included per month; null: none set' }),
    over_quota: Type.Union([Type.String(), Type.Null()], { description: 'What happens past the quota; null: none set' }),
    offer: Type.Union([Type.String(), Type.Null()], { description: 'The offer subscribed; null: none' }),
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
