/**
 * Receiving webhooks, with the dispatcher's own signing code: pass the raw body bytes as received,
 * then deduplicate on deliveryId (a delivery may arrive more than once).
 *
 *   const { deliveryId, event } = verifyWebhook(rawBody, req.headers, process.env.WEBHOOK_SECRET);
 *   if (event.type === 'case.decided') console.log(event.data.outcome); // typed, no cast
 */
import { verifyWebhook as verifySignedWebhook, type HeaderSource, type VerifyOptions } from '@idv/webhooks';
import type { components } from './openapi-types.ts';

export {
  signWebhook,
  WebhookVerificationError,
  DEFAULT_TOLERANCE_S,
  WEBHOOK_HEADERS,
  type VerifyOptions,
  type HeaderSource,
  type WebhookVerificationCode,
} from '@idv/webhooks';

/**
 * The body of any webhook event, a union discriminated by `type`: generated (`npm run api:types`)
 * from the OpenAPI document's WebhookEvent, which the service builds from the schemas its own
 * payloads are checked against.
 */
export type WebhookEvent = components['schemas']['WebhookEvent'];
/** Every event type of the catalogue: `case.decided`, `webhook.test`, … */
export type WebhookEventType = WebhookEvent['type'];
/** The body of an event of the given type(s); without one, any event (the same as WebhookEvent). */
export type WebhookEventBody<T extends WebhookEventType = WebhookEventType> = Extract<WebhookEvent, { type: T }>;
/** The `data` of each event type. */
export type EventDataByType = { [T in WebhookEventType]: WebhookEventBody<T>['data'] };

export interface VerifiedWebhook {
  /** X-Service-Delivery: deduplicate on it, a delivery may arrive more than once. */
  deliveryId: string;
  eventType: string;
  timestamp: number;
  /** The body, narrowed by its `type`: after `if (event.type === 'case.decided')`, `event.data.outcome` is typed. */
  event: WebhookEvent;
}

/**
 * Checks a webhook delivery as a receiver must: the signature over the raw body bytes exactly as
 * received (parse the JSON only after this), compared in constant time, and a timestamp within
 * `toleranceS` of now (300 s by default). Pass several secrets while rolling one. Throws
 * WebhookVerificationError.
 */
export function verifyWebhook(rawBody: string | Buffer, headers: HeaderSource, secret: string | readonly string[], options: VerifyOptions = {}): VerifiedWebhook {
  // No cast: the service's own event type must be assignable to the generated one.
  return verifySignedWebhook(rawBody, headers, secret, options);
}
