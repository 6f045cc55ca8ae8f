import type { WebhookEvent } from '@idv/domain';
import { WEBHOOK_HEADERS } from './headers.ts';
import { signatureMatches } from './signature.ts';

/** The spec's receiver rule: refuse a timestamp more than 300 seconds from now. @public (the SDK re-exports it) */
export const DEFAULT_TOLERANCE_S = 300;

export type WebhookVerificationCode =
  | 'header_missing'
  | 'timestamp_invalid'
  | 'signature_invalid'
  | 'timestamp_out_of_tolerance'
  | 'body_invalid';

export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Node's IncomingHttpHeaders, a fetch Headers object, or a plain record. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifiedWebhook {
  /** X-Service-Delivery: deduplicate on it, a delivery may arrive more than once. */
  deliveryId: string;
  eventType: string;
  timestamp: number;
  /** The body, narrowed by its `type`: after `if (event.type === 'case.decided')`, `event.data` is that event's. */
  event: WebhookEvent;
}

export interface VerifyOptions {
  toleranceS?: number;
  /** Current Unix time in seconds; defaults to the system clock. */
  nowS?: number;
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Checks a webhook delivery as a receiver must: the signature over the raw body bytes exactly as
 * received (parse the JSON only after this), compared in constant time, and a timestamp within
 * `toleranceS` of now. Pass several secrets while rolling one. Throws WebhookVerificationError.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: HeaderSource,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): VerifiedWebhook {
  const timestamp = header(headers, WEBHOOK_HEADERS.timestamp);
  const signature = header(headers, WEBHOOK_HEADERS.signature);
  const deliveryId = header(headers, WEBHOOK_HEADERS.delivery);
  const eventType = header(headers, WEBHOOK_HEADERS.event);
  if (!timestamp || !signature || !deliveryId || !eventType) {
    throw new WebhookVerificationError('header_missing', 'X-Service-Timestamp, X-Service-Signature, X-Service-Delivery and X-Service-Event are required.');
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('timestamp_invalid', 'X-Service-Timestamp must be Unix time in seconds.');
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0 || secrets.some((s) => !s)) throw new TypeError('verifyWebhook needs the endpoint secret');
  if (!signatureMatches(signature, secrets, timestamp, rawBody)) {
    throw new WebhookVerificationError('signature_invalid', 'X-Service-Signature does not match the body and timestamp.');
  }
  const toleranceS = options.toleranceS ?? DEFAULT_TOLERANCE_S;
  const nowS = options.nowS ?? Date.now() / 1000;
  if (Math.abs(nowS - Number(timestamp)) > toleranceS) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `X-Service-Timestamp is more than ${toleranceS} s away from now.`);
  }
  let event: WebhookEvent;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('body_invalid', 'The body is not JSON.');
  }
  if (event?.type !== eventType) throw new WebhookVerificationError('body_invalid', 'The body type differs from X-Service-Event.');
  return { deliveryId, eventType, timestamp: Number(timestamp), event };
}
