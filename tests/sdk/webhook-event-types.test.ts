import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEBHOOK_EVENT_CATALOGUE, eventBodyText, type WebhookEvent as ServiceWebhookEvent } from '@idv/domain';
import { signWebhook, verifyWebhook, type EventDataByType, type WebhookEvent, type WebhookEventBody, type WebhookEventType } from '@idv/sdk';
import { ROOT } from '../helpers/processes.ts';

/**
 * The SDK's webhook event types: generated from the OpenAPI document (`npm run api:types`), which
 * publishes the catalogue's schemas, the ones the service's own payloads are typed by. The type
 * checks below are compiled by `npm run typecheck` (tests/ is in the repository's program): a wrong
 * field of any event fails the build. The tests check at run time that the document holds every
 * event of the catalogue and that every catalogue example, signed and verified, narrows.
 */

/** Every event type of the catalogue, as the SDK's union has it (exhaustive: a missing or extra one fails to compile). */
const SDK_EVENT_TYPES = {
  'case.decided': true,
  'case.resubmission_requested': true,
  'case.decision_revised': true,
  'case.personal_data_erased': true,
  'webhook.test': true,
  'usage.quota_threshold_reached': true,
  'usage.quota_reached': true,
} satisfies Record<WebhookEventType, true>;

describe('SDK webhook event types', () => {
  test('the OpenAPI document has one body schema and one webhook per event of the catalogue', () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'openapi', 'openapi.json'), 'utf8')) as {
      webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
      components: { schemas: Record<string, { oneOf?: { $ref: string }[]; properties?: { type?: { enum?: string[] } } }> };
    };
    const catalogue = WEBHOOK_EVENT_CATALOGUE.map((e) => e.type);
    assert.deepEqual(Object.keys(doc.webhooks), catalogue);
    assert.deepEqual(Object.keys(SDK_EVENT_TYPES), catalogue, 'the SDK union has every event');
    const members = doc.components.schemas.WebhookEvent!.oneOf!.map((m) => m.$ref);
    for (const type of catalogue) {
      const ref = doc.webhooks[type]!.post.requestBody.content['application/json'].schema.$ref;
      assert.ok(members.includes(ref), `${type}: ${ref} is a member of WebhookEvent`);
      const name = ref.split('/').at(-1)!;
      assert.deepEqual(doc.components.schemas[name]!.properties!.type!.enum, [type]);
    }
  });

  test('every example of the catalogue, signed as the service sends it, verifies and narrows by type', () => {
    const ts = Math.floor(Date.now() / 1000);
    const seen: string[] = [];
    for (const entry of WEBHOOK_EVENT_CATALOGUE) {
      const body = eventBodyText(entry.example);
      const headers = { 'x-service-event': entry.type, 'x-service-delivery': 'dlv_1', 'x-service-timestamp': String(ts), 'x-service-signature': signWebhook('whsec_t', ts, body) };
      const { event } = verifyWebhook(body, headers, 'whsec_t');
      seen.push(describeEvent(event));
    }
    assert.deepEqual(seen, [
      'case.decided rejected document_expired',
      'case.resubmission_requested document',
      'case.decision_revised rejected→approved',
      'case.personal_data_erased case_01m7ym09t80f4fggxqxy1yr50c',
      'webhook.test whe_01m7ym09t80f4fggxqxy1yr50c',
      'usage.quota_threshold_reached verification 800/1000 (80 %)',
      'usage.quota_reached verification 1000/1000 block',
    ]);
  });
});

/** What an integrator writes: a switch on the type, each branch reading its event's fields without a cast. */
function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'case.decided':
      return `${event.type} ${event.data.outcome} ${event.data.reason_code}`;
    case 'case.resubmission_requested':
      return `${event.type} ${event.data.steps.join(',')}`;
    case 'case.decision_revised':
      return `${event.type} ${event.data.previous_outcome}→${event.data.outcome}`;
    case 'case.personal_data_erased':
      return `${event.type} ${event.object.id}`;
    case 'webhook.test':
      return `${event.type} ${event.object.id}`;
    case 'usage.quota_threshold_reached':
      return `${event.type} ${event.data.service} ${event.data.used}/${event.data.quota} (${event.data.threshold_percent} %)`;
    case 'usage.quota_reached':
      return `${event.type} ${event.data.service} ${event.data.used}/${event.data.quota} ${event.data.over_quota}`;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** The same type both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compiled by `npm run typecheck`, never run: a field an event does not have, or a wrong value, does not compile. */
void typeChecks; // named, so it counts as used
function typeChecks(raw: Buffer, headers: Record<string, string>): void {
  // The generated union is the service's own event type, both ways.
  const same: Same<WebhookEvent, ServiceWebhookEvent> = true;
  void same;
  const { event } = verifyWebhook(raw, headers, 'whsec_x');

  // Before narrowing, data is any event's: no outcome to read.
  // @ts-expect-error outcome is not on every event's data
  void event.data.outcome;

  if (event.type === 'case.decided') {
    const outcome: 'approved' | 'rejected' | 'manual_review' = event.data.outcome;
    const reason: string | null = event.data.reason_code;
    void [outcome, reason];
    // @ts-expect-error case.decided has no steps
    void event.data.steps;
    // @ts-expect-error outcome is a closed list
    const wrong: 'pending' = event.data.outcome;
    void wrong;
  }
  if (event.type === 'case.resubmission_requested') {
    const steps: ('document' | 'face')[] = event.data.steps;
    void steps;
    // @ts-expect-error a resubmission has no outcome
    void event.data.outcome;
  }
  if (event.type === 'case.decision_revised') {
    void [event.data.outcome, event.data.reason_code, event.data.previous_outcome, event.data.previous_reason_code];
    // @ts-expect-error a revision has no steps
    void event.data.steps;
  }
  if (event.type === 'case.personal_data_erased') {
    // @ts-expect-error the erasure's data is empty
    void event.data.outcome;
  }
  if (event.type === 'webhook.test') {
    // @ts-expect-error the test event's data is empty
    void event.data.reason_code;
  }
  if (event.type === 'usage.quota_threshold_reached') {
    const n: number = event.data.threshold_percent + event.data.used + event.data.quota;
    const s: string = event.data.service + event.data.period + event.data.offer + event.data.over_quota;
    void [n, s];
    // @ts-expect-error a quota event has no outcome
    void event.data.outcome;
  }
  if (event.type === 'usage.quota_reached') {
    void [event.data.service, event.data.period, event.data.offer, event.data.quota, event.data.over_quota, event.data.used];
    // @ts-expect-error only the threshold event has threshold_percent
    void event.data.threshold_percent;
  }
  // @ts-expect-error not an event of the catalogue
  if (event.type === 'case.created') void event;

  // The per-type helpers agree with the union.
  const decided: EventDataByType['case.decided'] = { outcome: 'approved', reason_code: null };
  const body: WebhookEventBody<'webhook.test'>['data'] = {};
  void [decided, body];
  // @ts-expect-error case.decided's data needs reason_code
  const incomplete: EventDataByType['case.decided'] = { outcome: 'approved' };
  void incomplete;
}
