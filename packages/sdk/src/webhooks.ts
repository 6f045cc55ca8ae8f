/**
 * Receiving webhooks, with the dispatcher's own signing code: pass the raw body bytes as received,
 * then deduplicate on deliveryId (a delivery may arrive more than once).
 *
 *   const { deliveryId, event } = verifyWebhook(rawBody, req.headers, process.env.WEBHOOK_SECRET);
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
