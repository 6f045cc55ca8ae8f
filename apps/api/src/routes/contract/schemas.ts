import { Type } from '@sinclair/typebox';
import { OVER_QUOTA_BEHAVIOURS, USAGE_SERVICES } from '@idv/domain';
import { literals } from '../../schemas/case.ts';
import { Timestamp } from '../../schemas/common.ts';

const UsageServiceSchema = literals(USAGE_SERVICES);
const OverQuotaSchema = literals(OVER_QUOTA_BEHAVIOURS);

/** The terms of a subscription, as GET /v1/contract and the detail of GET /v1/usage show them. */
export const quotaTermsFields = {
  offer: Type.String({ description: 'The offer subscribed, a label of the provider’s price list' }),
  quota: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'Production units per calendar month (UTC); null is unlimited. Sandbox units never count against it',
  }),
  over_quota: Type.Union([OverQuotaSchema, Type.Null()], {
    description:
      'What happens once the quota is reached: block (opening a case in production is refused with quota_exceeded; verification only), ' +
      'notify (goes on, excess counted, quota events sent), allow (goes on, excess counted, no event); null when unlimited',
  }),
};

export const SubscriptionSchema = Type.Object(
  {
    id: Type.String(),
    service: UsageServiceSchema,
    ...quotaTermsFields,
    starts_at: Timestamp,
    ends_at: Type.Union([Timestamp, Type.Null()], { description: 'Exclusive; null is open-ended' }),
    state: literals(['in_force', 'upcoming', 'ended'] as const),
  },
  { $id: 'Subscription', description: 'One service subscribed for a period; its state is computed at read time' },
);

export const ContractSchema = Type.Object(
  {
    object: Type.Literal('contract'),
    client: Type.Object({ id: Type.String(), name: Type.String() }),
    environment: literals(['sandbox', 'prod'] as const),
    subscriptions: Type.Array(Type.Ref(SubscriptionSchema), {
      description: 'Every subscription of the client, ended ones included, by service then start',
    }),
  },
  { $id: 'Contract', description: 'Who the client is and what is subscribed; read-only (the provider sets it)' },
);
