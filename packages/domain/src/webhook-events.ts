/**
 * The webhook event catalogue: every event, when it is sent and its body's shape. GET
 * /v1/webhook-events renders it and subscriptions are validated against it. Bodies carry
 * identifiers, codes and timestamps only, never personal data.
 */
import type { OverQuotaBehaviour } from './contract.ts';
import type { UsageService } from './usage.ts';

type EventEnvironment = 'sandbox' | 'prod';

/** What the event is about. Non-case objects carry null in the case fields so that every body has one shape. */
export interface EventObject {
  id: string;
  type: 'case' | 'webhook_endpoint' | 'subscription';
  external_ref: string | null;
  flow_name: string | null;
}

export type CaseOutcome = 'approved' | 'rejected' | 'manual_review';
export type ResubmissionStep = 'document' | 'face';

/** The `data` of each event type. */
export interface EventDataByType {
  'case.decided': { outcome: CaseOutcome; reason_code: string | null };
  'case.resubmission_requested': { steps: ResubmissionStep[]; reason_code: string | null };
  'case.decision_revised': {
    outcome: CaseOutcome;
    reason_code: string | null;
    previous_outcome: CaseOutcome;
    previous_reason_code: string | null;
  };
  'case.personal_data_erased': Record<string, never>;
  'webhook.test': Record<string, never>;
  'usage.quota_threshold_reached': QuotaEventData & { threshold_percent: number };
  'usage.quota_reached': QuotaEventData;
}

/** The data of both quota events: the subscription's terms and the month's production units when sent. */
type QuotaEventData = {
  service: UsageService;
  /** The month, YYYY-MM (UTC). */
  period: string;
  offer: string;
  quota: number;
  over_quota: OverQuotaBehaviour;
  /** Production units of the service in the month, the unit that reached the line included. */
  used: number;
};

export type WebhookEventType = keyof EventDataByType;

export interface WebhookEventBody<T extends WebhookEventType = WebhookEventType> {
  data: EventDataByType[T];
  object: EventObject & { environment: EventEnvironment };
  occurred_at: string;
  type: T;
}

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
