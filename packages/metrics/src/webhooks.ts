import { Counter, Histogram } from 'prom-client';
import { registry } from './registry.ts';

/**
 * Webhook attempts by result: `success` (2xx), or the attempt's error code as the delivery log
 * records it (`http_status`, `timeout`, `connection_refused`, `redirect`, …: a short fixed list,
 * never a URL or body).
 */
export const webhookAttempts = new Counter({
  name: 'idv_webhook_attempts_total',
  help: 'Webhook delivery attempts by result (success, or the error code)',
  labelNames: ['result'] as const,
  registers: [registry],
});

/** From the event (the delivery's creation) to its successful attempt, retries included. */
export const webhookDeliveryLag = new Histogram({
  name: 'idv_webhook_delivery_lag_seconds',
  help: 'Webhook deliveries: time from the event to its successful delivery',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
  registers: [registry],
});
