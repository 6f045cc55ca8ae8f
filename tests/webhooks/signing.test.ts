import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { signWebhook, verifyWebhook, WebhookVerificationError } from '@idv/sdk';
import { afterFailure, MAX_FAILURES, RETRY_DELAYS_MS } from '@idv/webhooks';

const SECRET = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const BODY = '{"data":{"outcome":"approved","reason_code":null},"object":{"environment":"sandbox","external_ref":null,"flow_name":"standard","id":"case_x","type":"case"},"occurred_at":"2025-03-14T09:26:53.000Z","type":"case.decided"}';
const NOW = 1_741_944_413;

function headersFor(body: string, ts = NOW, secret = SECRET): Record<string, string> {
  return {
    'x-service-event': 'case.decided',
    'x-service-delivery': 'dlv_01m7ym09t80f4fggxqxy1yr50c',
    'x-service-timestamp': String(ts),
    'x-service-signature': signWebhook(secret, ts, body),
  };
}

const fails = (code: string) => (err: unknown) => err instanceof WebhookVerificationError && err.code === code;

describe('webhook signature v1', () => {
  test('is the hex HMAC-SHA256 of "<timestamp>.<raw body>" with the endpoint secret', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW}.${BODY}`).digest('hex');
    assert.equal(signWebhook(SECRET, NOW, BODY), `v1=${expected}`);
    assert.equal(signWebhook(SECRET, String(NOW), Buffer.from(BODY)), `v1=${expected}`);
  });

  test('verifyWebhook accepts a genuine delivery and returns the parsed event', () => {
    const v = verifyWebhook(BODY, headersFor(BODY), SECRET, { nowS: NOW + 10 });
    assert.equal(v.deliveryId, 'dlv_01m7ym09t80f4fggxqxy1yr50c');
    assert.equal(v.eventType, 'case.decided');
    assert.equal(v.timestamp, NOW);
    assert.deepEqual(v.event.data, { outcome: 'approved', reason_code: null });
  });

  test('reads headers from a fetch Headers object and from mixed-case records', () => {
    assert.equal(verifyWebhook(BODY, new Headers(headersFor(BODY)), SECRET, { nowS: NOW }).eventType, 'case.decided');
    const mixed = Object.fromEntries(Object.entries(headersFor(BODY)).map(([k, v]) => [k.toUpperCase(), v]));
    assert.equal(verifyWebhook(Buffer.from(BODY), mixed, SECRET, { nowS: NOW }).eventType, 'case.decided');
  });

  test('refuses a changed body, another secret, or a signature of another scheme', () => {
    assert.throws(() => verifyWebhook(BODY.replace('approved', 'rejected'), headersFor(BODY), SECRET, { nowS: NOW }), fails('signature_invalid'));
    assert.throws(() => verifyWebhook(BODY, headersFor(BODY, NOW, 'whsec_other'), SECRET, { nowS: NOW }), fails('signature_invalid'));
    const v2 = { ...headersFor(BODY), 'x-service-signature': signWebhook(SECRET, NOW, BODY).replace('v1=', 'v2=') };
    assert.throws(() => verifyWebhook(BODY, v2, SECRET, { nowS: NOW }), fails('signature_invalid'));
    // The timestamp is inside the MAC: a captured delivery cannot be re-sent with a fresh time.
    const moved = { ...headersFor(BODY), 'x-service-timestamp': String(NOW + 100) };
    assert.throws(() => verifyWebhook(BODY, moved, SECRET, { nowS: NOW + 100 }), fails('signature_invalid'));
  });

  test('refuses a timestamp more than 300 s away (either way) but accepts 300 s', () => {
    assert.throws(() => verifyWebhook(BODY, headersFor(BODY), SECRET, { nowS: NOW + 301 }), fails('timestamp_out_of_tolerance'));
    assert.throws(() => verifyWebhook(BODY, headersFor(BODY), SECRET, { nowS: NOW - 301 }), fails('timestamp_out_of_tolerance'));
    assert.equal(verifyWebhook(BODY, headersFor(BODY), SECRET, { nowS: NOW + 300 }).timestamp, NOW);
    assert.throws(() => verifyWebhook(BODY, headersFor(BODY), SECRET, { nowS: NOW + 31, toleranceS: 30 }), fails('timestamp_out_of_tolerance'));
  });

  test('refuses missing headers, a malformed timestamp and a body whose type differs from X-Service-Event', () => {
    for (const name of ['x-service-event', 'x-service-delivery', 'x-service-timestamp', 'x-service-signature']) {
      const h = headersFor(BODY);
      delete h[name];
      assert.throws(() => verifyWebhook(BODY, h, SECRET, { nowS: NOW }), fails('header_missing'), name);
    }
    assert.throws(() => verifyWebhook(BODY, { ...headersFor(BODY), 'x-service-timestamp': '17e8' }, SECRET, { nowS: NOW }), fails('timestamp_invalid'));
    const other = { ...headersFor(BODY), 'x-service-event': 'case.decision_revised' };
    assert.throws(() => verifyWebhook(BODY, other, SECRET, { nowS: NOW }), fails('body_invalid'));
  });

  test('accepts any of several v1 values and any of several secrets (secret rolling)', () => {
    const h = headersFor(BODY);
    h['x-service-signature'] = `v1=${'0'.repeat(64)}, ${h['x-service-signature']}`;
    assert.equal(verifyWebhook(BODY, h, SECRET, { nowS: NOW }).eventType, 'case.decided');
    assert.equal(verifyWebhook(BODY, headersFor(BODY), ['whsec_new', SECRET], { nowS: NOW }).eventType, 'case.decided');
  });
});

describe('retry schedule', () => {
  test('retries after 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 24 h; the eighth failure exhausts the delivery', () => {
    assert.deepEqual(RETRY_DELAYS_MS, [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000]);
    assert.equal(MAX_FAILURES, 8);
    const follow = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => afterFailure(n));
    assert.deepEqual(
      follow.slice(0, 7).map((f) => (f.kind === 'retry' ? f.delayMs : -1)),
      [...RETRY_DELAYS_MS],
    );
    assert.deepEqual(follow[7], { kind: 'exhausted' });
    assert.deepEqual(afterFailure(9), { kind: 'exhausted' });
  });

  test('a shrunk schedule keeps the count of seven retries', () => {
    assert.deepEqual(afterFailure(3, [1, 2, 3, 4, 5, 6, 7]), { kind: 'retry', delayMs: 3 });
    assert.throws(() => afterFailure(1, [1, 2, 3]), RangeError);
    assert.throws(() => afterFailure(0), RangeError);
  });
});
