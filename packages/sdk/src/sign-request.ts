import { createHmac } from 'node:crypto';

/**
 * Request signature scheme v2: HMAC-SHA256 with the key's signing secret over
 * `<timestamp>.<METHOD>.<target>.<raw body>`, where target is the path with its raw query string
 * exactly as sent (`/v1/cases`, `/v1/x?a=1`) and the body is the exact bytes sent.
 */
export function signRequest(signingSecret: string, timestamp: string, method: string, target: string, body: Buffer | string): string {
  const mac = createHmac('sha256', signingSecret);
  mac.update(`${timestamp}.${method.toUpperCase()}.${target}.`);
  mac.update(body);
  return `v2=${mac.digest('hex')}`;
}

/** The three headers of a signed creation, for the current time unless one is given. */
export function signedHeaders(
  signingSecret: string,
  method: string,
  target: string,
  body: string,
  idempotencyKey: string,
  nowS: number = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const timestamp = String(nowS);
  return {
    'idempotency-key': idempotencyKey,
    'x-service-timestamp': timestamp,
    'x-service-signature': signRequest(signingSecret, timestamp, method, target, body),
  };
}
