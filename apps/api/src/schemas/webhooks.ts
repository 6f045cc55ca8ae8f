import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENT_CATALOGUE, WEBHOOK_EVENT_TYPES, webhookEventBodySchema, type WebhookEvent, type WebhookEventType } from '@idv/domain';
import { ListOf, Timestamp } from './common.ts';
import { literals } from './case.ts';

const WebhookEventTypeSchema = literals(WEBHOOK_EVENT_TYPES);
const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed', 'cancelled'] as const;
export const WebhookDeliveryStatusSchema = literals(DELIVERY_STATUSES);
const Environment = literals(['sandbox', 'prod'] as const);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const UrlField = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https (production: on a public address); the sandbox also accepts http for localhost',
});
const EventsField = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'Event names from GET /v1/webhook-events',
});
const DescriptionField = Type.String({ maxLength: 500, description: 'Your own note on the endpoint (what receives it); at most 500 characters' });

export const NewWebhookEndpointSchema = Type.Object(
  {
    url: UrlField,
    events: EventsField,
    description: Type.Optional(DescriptionField),
  },
  { additionalProperties: false },
);

/** PATCH: any of the three; at least one (checked by the route, which names the rule). */
export const WebhookEndpointChangeSchema = Type.Object(
  {
    url: Type.Optional(UrlField),
    events: Type.Optional(EventsField),
    description: Type.Optional(Nullable(DescriptionField)),
  },
  { additionalProperties: false },
);

/** A rotation's overlap: how long the previous secret keeps signing beside the new one. */
const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;
export const SecretRotationSchema = Type.Object(
  {
    overlap_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_SECONDS,
        default: DEFAULT_OVERLAP_SECONDS,
        description: 'How long the previous secret keeps signing beside the new one (deliveries carry both signatures); 0 drops it at once. Default 24 hours, at most 7 days',
      }),
    ),
  },
  { additionalProperties: false },
);

const endpointFields = {
  id: Type.String({ examples: ['whe_01m7ym09t80f4fggxqxy1yr50c'] }),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  events: Type.Array(WebhookEventTypeSchema),
  description: Nullable(Type.String()),
  status: literals(['active', 'suspended', 'disabled'] as const),
  environment: Environment,
  created_at: Timestamp,
  suspended_at: Nullable(Timestamp),
  disabled_at: Nullable(Timestamp),
  /** During a secret rotation's overlap, when the previous secret stops signing; else null. */
  previous_secret_expires_at: Nullable(Timestamp),
};

export const WebhookEndpointSchema = Type.Object(endpointFields, { $id: 'WebhookEndpoint' });
export const WebhookEndpointCreatedSchema = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({ description: 'Signing secret (whsec_…) for X-Service-Signature; returned once, here only' }),
  },
  { $id: 'WebhookEndpointCreated' },
);
/** A rotation's answer: the endpoint with its new secret, returned this once. */
export const WebhookEndpointSecretRotatedSchema = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({ description: 'The new signing secret (whsec_…); returned once, here only' }),
  },
  { $id: 'WebhookEndpointSecretRotated' },
);
export const WebhookEndpointDeletedSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('webhook_endpoint'),
    deleted: Type.Literal(true),
    cancelled_deliveries: Type.Integer({ minimum: 0, description: 'Deliveries still scheduled for it, cancelled (status cancelled, kept in the log)' }),
  },
  { $id: 'WebhookEndpointDeleted' },
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
    body: Type.String({
      description: 'The request body exactly as the destination received it (the signed bytes): a WebhookEvent as JSON text',
      contentMediaType: 'application/json',
      contentSchema: { $ref: 'WebhookEvent' },
    }),
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
/** The component name of an event's body: CaseDecidedEvent for case.decided. */
const eventSchemaName = (type: WebhookEventType): string =>
  type
    .split(/[._]/)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('') + 'Event';

/**
 * Each event's body with its `data` typed (the catalogue's schemas, which type the service's own
 * payloads), and their union discriminated by `type`: what `npm run api:types` turns into the
 * SDK's narrowing union. No route answers with them: they are the deliveries' bodies, the
 * document's `webhooks` section (webhookOperations) points at them.
 */
export const WebhookEventSchemas = WEBHOOK_EVENT_CATALOGUE.map((e) =>
  webhookEventBodySchema(e.type, { $id: eventSchemaName(e.type), description: `${e.type}: ${e.sent_when}` }),
);
export const WebhookEventSchema = Type.Unsafe<WebhookEvent>({
  $id: 'WebhookEvent',
  description: 'The JSON body of a delivery, one member per event type, told apart by `type`; no personal data',
  oneOf: WEBHOOK_EVENT_TYPES.map((type) => ({ $ref: eventSchemaName(type) })),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, `#/components/schemas/${eventSchemaName(type)}`])),
  },
});

/**
 * The OpenAPI `webhooks` section: one POST per event type, the request the service sends to a
 * subscribed endpoint (signed headers, the event's body) and what the endpoint answers.
 */
export function webhookOperations() {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' as const } });
  return Object.fromEntries(
    WEBHOOK_EVENT_CATALOGUE.map((e) => [
      e.type,
      {
        post: {
          operationId: `${eventSchemaName(e.type)[0]!.toLowerCase()}${eventSchemaName(e.type).slice(1)}`,
          summary: e.type,
          // Grouped in the reference's menu like the routes (by resource), not loose above them.
          tags: ['webhook events'],
          description: `${e.sent_when}\n\n\`data\`: ${e.data_description}`,
          parameters: [
            header('X-Service-Event', `The event type, ${e.type}`),
            header('X-Service-Delivery', 'The delivery id: deduplicate on it, a delivery may arrive more than once'),
            header('X-Service-Timestamp', 'Unix time in seconds of the signature; refuse one more than 300 s from now'),
            header('X-Service-Signature', 'v1=<hex HMAC-SHA256 over "<timestamp>.<raw body>"> with the endpoint secret (one per secret while a secret is rolled)'),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(e.type)}` }, example: e.example } },
          },
          responses: {
            '2XX': { description: 'Received: any 2xx acknowledges the delivery; another answer, or none in time, is retried' },
          },
          security: [],
        },
      },
    ]),
  );
}

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
