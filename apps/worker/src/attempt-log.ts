import type { AttemptResult, ClaimedDelivery } from '@idv/db';
import { webhookAttempts, webhookDeliveryLag } from '@idv/metrics';

/**
 * One webhook attempt in the metrics (attempts by result, lag of the delivered) and in the log,
 * with the request that caused the event (reqId, as the API logs it): ids, codes and timings,
 * never the URL or the body.
 */
export function observeAttempt(delivery: ClaimedDelivery, result: AttemptResult, now: Date, log: { info(obj: object, msg?: string): void }): void {
  webhookAttempts.inc({ result: result.ok ? 'success' : result.error });
  if (result.ok) webhookDeliveryLag.observe(Math.max(0, (now.getTime() - delivery.createdAt.getTime()) / 1000));
  log.info(
    {
      reqId: delivery.requestId ?? undefined,
      delivery: delivery.id,
      event_type: delivery.eventType,
      attempt: delivery.attemptCount + 1,
      result: result.ok ? 'success' : result.error,
      status: result.responseStatus,
      ms: result.durationMs,
    },
    'webhook attempt',
  );
}
