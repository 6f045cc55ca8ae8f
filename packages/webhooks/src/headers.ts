/** Headers of a webhook delivery request (spec section 6), lower case as Node exposes them. */
export const WEBHOOK_HEADERS = {
  event: 'x-service-event',
  delivery: 'x-service-delivery',
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
} as const;
