import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENT_TYPES } from '@idv/domain';
import { ListOf, Timestamp } from './common.ts';
import { literals } from './case.ts';

const WebhookEventTypeSchema = literals(WEBHOOK_EVENT_TYPES);
const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export const WebhookDeliveryStatusSchema = literals(DELIVERY_STATUSES);
const Environment = literals(['sandbox', 'prod'] as const);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const NewWebhookEndpointSchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'https (production: on a public address); the sandbox also accepts http for localhost',
    }),
    events: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: WEBHOOK_EVENT_TYPES.length,
      uniqueItems: true,
      description: 'Event names from GET /v1/webhook-events',
    }),
  },
  { additionalProperties: false },
);

const endpointFields = {
  id: Type.String({ examples: ['whe_01m7ym09t80f4fggxqxy1yr50c'] }),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  events: Type.Array(WebhookEventTypeSchema),
  status: literals(['active', 'suspended'] as const),
  environment: Environment,
  created_at: Timestamp,
  suspended_at: Nullable(Timestamp),
};

export const WebhookEndpointSchema = Type.Object(endpointFields, { $id: 'WebhookEndpoint' });
export const WebhookEndpointCreatedSchema = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({ description: 'Signing secret (whsec_…) for X-Service-Signature; returned once, here only' }),
  },
  { $id: 'WebhookEndpointCreated' },
);
const count = Type.Integer({ minimum: 0 });
/** The list adds each endpoint's health at a glance: its deliveries of the last 24 hours by status. */
export const WebhookEndpointListedSchema = Type.Object(
  {
    ...endpointFields,
    recent_deliveries: Type.Object(
      { window_hours: Type.Literal(24), pending: count, retrying: count, succeeded: count, failed: count },
      { description: 'Deliveries created in the last 24 hours, by current status (retrying: failed at least once, to be tried again)' },
    ),
  },
  { $id: 'WebhookEndpointListed' },
);
export const WebhookEndpointListSchema = ListOf(Type.Ref(WebhookEndpointListedSchema), 'WebhookEndpointList');

const deliveryFields = {
  id: Type.String({ description: 'Sent as X-Service-Delivery; a replay is a new delivery with a new id', examples: ['dlv_01m7ym09t80f4fggxqxy1yr50c'] }),
  object: Type.Literal('webhook_delivery'),
  endpoint_id: Type.String(),
  event_id: Type.String(),
  event_type: WebhookEventTypeSchema,
  status: WebhookDeliveryStatusSchema,
  attempt_count: Type.Integer({ minimum: 0 }),
  next_attempt_at: Nullable(Timestamp),
  last_attempt_at: Nullable(Timestamp),
  last_response_status: Nullable(Type.Integer()),
  last_error: Nullable(Type.String({ description: 'http_status, redirect, timeout, connection_refused, connection_reset, dns_error, tls_error, destination_refused, host_unreachable or network_error' })),
  delivered_at: Nullable(Timestamp),
  replay_of: Nullable(Type.String({ description: 'The delivery this one replays' })),
  created_at: Timestamp,
};

export const WebhookDeliverySchema = Type.Object(deliveryFields, { $id: 'WebhookDelivery' });
export const WebhookAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    started_at: Timestamp,
    duration_ms: Type.Integer({ minimum: 0 }),
    response_status: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
  },
  { $id: 'WebhookAttempt' },
);
export const WebhookDeliveryDetailSchema = Type.Object(
  {
    ...deliveryFields,
    body: Type.String({ description: 'The request body exactly as the destination received it (the signed bytes)' }),
    attempts: Type.Array(Type.Ref(WebhookAttemptSchema)),
  },
  { $id: 'WebhookDeliveryDetail' },
);
export const WebhookDeliveryListSchema = ListOf(Type.Ref(WebhookDeliverySchema), 'WebhookDeliveryList');

export const WebhookEventBodySchema = Type.Object(
  {
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'Per event type; see data_description' }),
    object: Type.Object({
      id: Type.String(),
      type: literals(['case', 'webhook_endpoint', 'subscription'] as const),
      external_ref: Nullable(Type.String()),
      flow_name: Nullable(Type.String()),
      environment: Environment,
    }),
    occurred_at: Timestamp,
    type: WebhookEventTypeSchema,
  },
  { $id: 'WebhookEventBody', description: 'The JSON body of a delivery; no personal data' },
);
export const WebhookEventTypeInfoSchema = Type.Object(
  {
    type: WebhookEventTypeSchema,
    sent_when: Type.String(),
    data_description: Type.String(),
    example: Type.Ref(WebhookEventBodySchema),
  },
  { $id: 'WebhookEventTypeInfo' },
);
export const WebhookEventTypeListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(WebhookEventTypeInfoSchema)),
    has_more: Type.Boolean(),
    next_cursor: Type.Null(),
  },
  { $id: 'WebhookEventTypeList' },
);

export const IdParam = (description: string) => Type.String({ minLength: 1, maxLength: 40, description });
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  starting_after: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Id of the last item of the previous page' })),
};
