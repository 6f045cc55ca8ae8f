/**
 * The webhook event catalogue: every event, when it is sent and its body's shape. GET
 * /v1/webhook-events renders it and subscriptions are validated against it. Bodies carry
 * identifiers, codes and timestamps only, never personal data.
 *
 * The shape of each event's `data` is a schema here (EVENT_DATA_SCHEMAS), and its TypeScript type
 * is derived from it: the code that builds a payload (emitEvent) is checked against the same schema
 * the OpenAPI document publishes (components WebhookEvent and its members, and the `webhooks`
 * section), from which the SDK's discriminated union is generated (`npm run api:types`).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { OVER_QUOTA_BEHAVIOURS } from './contract.ts';
import { USAGE_SERVICES } from './usage.ts';

const oneOf = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const nullable = <T extends TSchema>(schema: T, description?: string) => Type.Union([schema, Type.Null()], description ? { description } : {});
/** An empty `data`: `{}` on the wire, nothing else allowed; no field to read. */
const empty = () => Type.Unsafe<Record<never, never>>(Type.Object({}, { additionalProperties: false }));

const EVENT_ENVIRONMENTS = ['sandbox', 'prod'] as const;
const EVENT_OBJECT_TYPES = ['case', 'webhook_endpoint', 'subscription'] as const;
const CASE_OUTCOMES = ['approved', 'rejected', 'manual_review'] as const;
const RESUBMISSION_STEPS = ['document', 'face'] as const;

/** What the event is about. Non-case objects carry null in the case fields so that every body has one shape. */
const eventObjectFields = {
  id: Type.String(),
  type: oneOf(EVENT_OBJECT_TYPES),
  external_ref: nullable(Type.String()),
  flow_name: nullable(Type.String()),
};
const EventObjectSchema = Type.Object(eventObjectFields);
export type EventObject = Static<typeof EventObjectSchema>;

export type CaseOutcome = (typeof CASE_OUTCOMES)[number];
export type ResubmissionStep = (typeof RESUBMISSION_STEPS)[number];

/** The data of both quota events: the subscription's terms and the month's production units when sent. */
const quotaEventFields = () => ({
  service: oneOf(USAGE_SERVICES),
  period: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}$', description: 'The month, YYYY-MM (UTC)' }),
  offer: Type.String(),
  quota: Type.Integer({ minimum: 0, description: 'Units per month' }),
  over_quota: oneOf(OVER_QUOTA_BEHAVIOURS),
  used: Type.Integer({ minimum: 0, description: 'Production units of the service in the month, the unit that reached the line included' }),
});

const data = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false });

/** The schema of the `data` of each event type: the one source of its TypeScript type, the OpenAPI document's and the SDK's. */
const EVENT_DATA_SCHEMAS = {
  'case.decided': data({ outcome: oneOf(CASE_OUTCOMES), reason_code: nullable(Type.String(), 'null when approved') }),
  'case.resubmission_requested': data({ steps: Type.Array(oneOf(RESUBMISSION_STEPS)), reason_code: nullable(Type.String()) }),
  'case.decision_revised': data({
    outcome: oneOf(CASE_OUTCOMES),
    reason_code: nullable(Type.String()),
    previous_outcome: oneOf(CASE_OUTCOMES),
    previous_reason_code: nullable(Type.String()),
  }),
  'case.personal_data_erased': empty(),
  'webhook.test': empty(),
  'usage.quota_threshold_reached': data({ ...quotaEventFields(), threshold_percent: Type.Integer({ minimum: 1, maximum: 100 }) }),
  'usage.quota_reached': data(quotaEventFields()),
} satisfies Record<string, TSchema>;

/** The `data` of each event type. */
export type EventDataByType = { [T in keyof typeof EVENT_DATA_SCHEMAS]: Static<(typeof EVENT_DATA_SCHEMAS)[T]> };

export type WebhookEventType = keyof EventDataByType;

/**
 * The whole body of an event of one type, as a schema (`$id` and description are the caller's):
 * the fields eventBodyText writes, in its order.
 */
export function webhookEventBodySchema<T extends WebhookEventType>(type: T, options: { $id?: string; description?: string } = {}) {
  return Type.Object(
    {
      data: EVENT_DATA_SCHEMAS[type] as (typeof EVENT_DATA_SCHEMAS)[T],
      object: Type.Object({ ...eventObjectFields, environment: oneOf(EVENT_ENVIRONMENTS) }),
      occurred_at: Type.String({ format: 'date-time' }),
      type: Type.Literal(type),
    },
    options,
  );
}

type EventEnvironment = (typeof EVENT_ENVIRONMENTS)[number];

export interface WebhookEventBody<T extends WebhookEventType = WebhookEventType> {
  data: EventDataByType[T];
  object: EventObject & { environment: EventEnvironment };
  occurred_at: string;
  type: T;
}

/** Any event, as a union discriminated by `type`: `if (event.type === 'case.decided') event.data.outcome`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventBody<T> }[WebhookEventType];

export interface EventCatalogueEntry {
  type: WebhookEventType;
  /** When the service sends it. */
  sent_when: string;
  /** What `data` holds. */
  data_description: string;
  example: WebhookEventBody;
}

const EXAMPLE_CASE: EventObject = {
  id: 'case_01m7ym09t80f4fggxqxy1yr50c',
  type: 'case',
  external_ref: 'customer-4711',
  flow_name: 'standard',
};
const EXAMPLE_TIME = '2025-03-14T09:26:53.000Z';
const EXAMPLE_SUBSCRIPTION: EventObject = { id: 'sub_01m7ym09t80f4fggxqxy1yr50c', type: 'subscription', external_ref: null, flow_name: null };
const QUOTA_DATA_DESCRIPTION =
  'service, period (YYYY-MM), offer, quota (units per month), over_quota (block or notify) and used (production units of the month, the one that reached the line included). The object is the subscription in force.';

function example<T extends WebhookEventType>(type: T, data: EventDataByType[T], object: EventObject = EXAMPLE_CASE): WebhookEventBody {
  return { data, object: { ...object, environment: 'prod' }, occurred_at: EXAMPLE_TIME, type } as WebhookEventBody;
}

export const WEBHOOK_EVENT_CATALOGUE: readonly EventCatalogueEntry[] = [
  {
    type: 'case.decided',
    sent_when:
      'A case is concluded: approved or rejected (by the automated checks, an operator or a key with the decisions permission), or routed to manual review.',
    data_description: 'outcome (approved, rejected or manual_review) and reason_code (null when approved).',
    example: example('case.decided', { outcome: 'rejected', reason_code: 'document_expired' }),
  },
  {
    type: 'case.resubmission_requested',
    sent_when: 'A decision of type resubmit: the person must retake the photos listed in steps (not a refusal).',
    data_description: 'steps (document, face) and reason_code.',
    example: example('case.resubmission_requested', { steps: ['document'], reason_code: 'document_blurred' }),
  },
  {
    type: 'case.decision_revised',
    sent_when: 'A supervisor revises the decision of a decided case.',
    data_description: 'outcome and reason_code after the revision, previous_outcome and previous_reason_code before it.',
    example: example('case.decision_revised', {
      outcome: 'approved',
      reason_code: null,
      previous_outcome: 'rejected',
      previous_reason_code: 'document_expired',
    }),
  },
  {
    type: 'case.personal_data_erased',
    sent_when: 'The personal data of a closed case has been erased; the case, its steps, verdicts, decisions and journal remain.',
    data_description: 'Empty: the event is the confirmation. Read the case for what remains.',
    example: example('case.personal_data_erased', {}),
  },
  {
    type: 'webhook.test',
    sent_when:
      'On POST /v1/webhook-endpoints/{endpoint_id}/test, to that endpoint only, whether or not it subscribes to webhook.test.',
    data_description: 'Empty. The object is the webhook endpoint.',
    example: example('webhook.test', {}, { id: 'whe_01m7ym09t80f4fggxqxy1yr50c', type: 'webhook_endpoint', external_ref: null, flow_name: null }),
  },
  {
    type: 'usage.quota_threshold_reached',
    sent_when:
      'In production, the first unit of the month that brings a service to 80 % of its monthly quota, when the subscription in force says block or notify over quota. Once per service and month.',
    data_description: `${QUOTA_DATA_DESCRIPTION} threshold_percent is 80.`,
    example: example(
      'usage.quota_threshold_reached',
      { service: 'verification', period: '2025-03', offer: 'business', quota: 1000, over_quota: 'block', used: 800, threshold_percent: 80 },
      EXAMPLE_SUBSCRIPTION,
    ),
  },
  {
    type: 'usage.quota_reached',
    sent_when:
      'In production, the first unit of the month that brings a service to its monthly quota, when the subscription in force says block or notify over quota. Once per service and month. Under block, opening a case in production is then refused with quota_exceeded until the next month or a larger quota.',
    data_description: QUOTA_DATA_DESCRIPTION,
    example: example(
      'usage.quota_reached',
      { service: 'verification', period: '2025-03', offer: 'business', quota: 1000, over_quota: 'block', used: 1000 },
      EXAMPLE_SUBSCRIPTION,
    ),
  },
];

export const WEBHOOK_EVENT_TYPES = WEBHOOK_EVENT_CATALOGUE.map((e) => e.type) as readonly WebhookEventType[];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * The exact body text of an event. Keys are written in a fixed order so the same event always
 * serialises to the same bytes; the text is stored once and every delivery sends it unchanged.
 */
export function eventBodyText<T extends WebhookEventType>(body: WebhookEventBody<T>): string {
  const o = body.object;
  return JSON.stringify({
    data: body.data,
    object: { environment: o.environment, external_ref: o.external_ref, flow_name: o.flow_name, id: o.id, type: o.type },
    occurred_at: body.occurred_at,
    type: body.type,
  });
}
