/**
 * Receiving webhooks: verify each delivery before trusting it. The same code signs deliveries in
 * the service's dispatcher, so the two cannot disagree on the scheme.
 *
 *   const { deliveryId, event } = verifyWebhook(rawBody, req.headers, process.env.WEBHOOK_SECRET);
 *
 * Pass the raw body bytes exactly as received (before any JSON parsing), then deduplicate on
 * deliveryId: a delivery may arrive more than once.
 */
export {
  verifyWebhook,
  signWebhook,
  WebhookVerificationError,
  DEFAULT_TOLERANCE_S,
  WEBHOOK_HEADERS,
  type VerifiedWebhook,
  type VerifyOptions,
  type HeaderSource,
  type WebhookVerificationCode,
} from '@idv/webhooks';
export type { WebhookEventBody, WebhookEventType, EventDataByType } from '@idv/domain';
