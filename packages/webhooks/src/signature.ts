import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signature scheme v1: hex HMAC-SHA256 with the endpoint secret over
 * `<timestamp>.<raw body>`, sent as `X-Service-Signature: v1=<hex>`. The timestamp is inside the
 * MAC so a captured delivery cannot be replayed later with a fresh timestamp.
 */
export function signWebhook(secret: string, timestamp: string | number, body: string | Buffer): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(body);
  return `v1=${mac.digest('hex')}`;
}

const V1 = /^v1=[0-9a-f]{64}$/;

/**
 * True when one of the comma-separated `v1=` values matches one of the secrets. Every pair is
 * compared in constant time and without early exit, so the timing says nothing about which
 * value or how many characters matched. Several secrets let a receiver roll its secret.
 */
export function signatureMatches(header: string, secrets: readonly string[], timestamp: string, body: string | Buffer): boolean {
  const candidates = header
    .split(',')
    .map((s) => s.trim())
    .filter((s) => V1.test(s))
    .slice(0, 8); // a header crafted with thousands of values must not cost thousands of HMACs
  let matched = false;
  for (const secret of secrets) {
    const expected = Buffer.from(signWebhook(secret, timestamp, body));
    for (const candidate of candidates) {
      if (timingSafeEqual(expected, Buffer.from(candidate))) matched = true;
    }
  }
  return matched;
}
