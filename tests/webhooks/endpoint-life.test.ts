import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { listClientJournal, purgeWebhookLog, queryRows } from '@idv/db';
import { errorOf, startTestApp, type TestApp } from '../helpers/app.ts';
import { createEndpoint, emitCaseDecided, newTenant, type TestTenant } from '../helpers/webhooks.ts';

// An endpoint's whole life through the API: update, disable and enable, delete, rotate the secret.
// No dispatcher runs in this file: deliveries stay where the routes put them (rotation.test.ts sends).
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const signed = (w: TestTenant, method: string, url: string, body?: unknown, idempotencyKey?: string) =>
  t.request(method, url, { signed: true, key: w.key, body, idempotencyKey });
const get = (w: TestTenant, url: string) => t.request('GET', url, { key: w.key });
const listed = async (w: TestTenant) => (await get(w, '/v1/webhook-endpoints?limit=100')).json().data as Record<string, any>[];
const deliveriesOf = async (w: TestTenant, endpointId: string) =>
  (await get(w, `/v1/webhook-deliveries?endpoint_id=${endpointId}`)).json().data as Record<string, any>[];
const journal = async (w: TestTenant) => (await listClientJournal(t.database.db, w.tenant)).map((j) => ({ action: j.action, detail: j.detail as Record<string, any> }));

describe('PATCH /v1/webhook-endpoints/{endpoint_id}', () => {
  test('changes url, events and description; signed, idempotent, journaled', async () => {
    const w = await newTenant(t);
    const e = await createEndpoint(t, w, 'http://localhost:4000/a');
    const change = { url: 'http://localhost:4000/b', events: ['case.decided', 'webhook.test'], description: 'back office' };
    const res = await signed(w, 'PATCH', `/v1/webhook-endpoints/${e.id}`, change, 'patch-endpoint-0001');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().url, change.url);
    assert.deepEqual(res.json().events, change.events);
    assert.equal(res.json().description, 'back office');
    assert.equal('secret' in res.json(), false);
    const again = await signed(w, 'PATCH', `/v1/webhook-endpoints/${e.id}`, change, 'patch-endpoint-0001');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), res.json());
    const [row] = await listed(w);
    assert.equal(row.url, change.url);
    assert.equal(row.description, 'back office');
    const entries = (await journal(w)).filter((j) => j.action === 'webhook_endpoint.updated');
    assert.equal(entries.length, 1, 'the replay journals nothing more');
    assert.deepEqual(entries[0].detail.changed, ['url', 'events', 'description']);
    // One field alone leaves the others; null clears the description.
    const cleared = await signed(w, 'PATCH', `/v1/webhook-endpoints/${e.id}`, { description: null });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.equal(cleared.json().description, null);
    assert.equal(cleared.json().url, change.url);
  });

  test('the pending deliveries go to the new url; events subscribed from now on decide new deliveries', async () => {
    const w = await newTenant(t);
    const e = await createEndpoint(t, w, 'http://localhost:4000/a', ['webhook.test']);
    await emitCaseDecided(t, w.tenant);
    assert.equal((await deliveriesOf(w, e.id)).length, 0, 'not subscribed to case.decided yet');
    await signed(w, 'PATCH', `/v1/webhook-endpoints/${e.id}`, { events: ['case.decided'] });
    await emitCaseDecided(t, w.tenant);
    assert.equal((await deliveriesOf(w, e.id)).length, 1);
  });

  const invalid: [string, unknown, string, string | undefined][] = [
    ['an unknown event', { events: ['case.created'] }, 'unknown_event_type', 'events'],
    ['a url the sandbox refuses', { url: 'http://hooks.example.com/h' }, 'webhook_url_refused', 'url'],
    ['no events', { events: [] }, 'parameter_invalid', 'events'],
    ['a description over 500', { description: 'd'.repeat(501) }, 'parameter_invalid', 'description'],
    ['an unknown field', { secret: 'mine' }, 'parameter_unknown', 'secret'],
    ['nothing to change', {}, 'parameter_missing', undefined],
  ];
  for (const [name, body, code, field] of invalid) {
    test(`422 ${code} on ${name}`, async () => {
      const w = await newTenant(t);
      const e = await createEndpoint(t, w, 'http://localhost:4000/a');
      const res = await signed(w, 'PATCH', `/v1/webhook-endpoints/${e.id}`, body);
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual([errorOf(res).code, errorOf(res).field], [code, field]);
    });
  }
});

describe('disable and enable', () => {
  test('a disabled endpoint gets no new delivery and refuses tests; what was scheduled waits and goes on enable', async () => {
    const w = await newTenant(t);
    const e = await createEndpoint(t, w, 'http://localhost:4000/a');
    const { deliveryIds: [waiting] } = await emitCaseDecided(t, w.tenant);
    t.clock.advance(1000); // journal ids are ordered by time: the disable comes after the creation
    const off = await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/disable`);
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json().status, 'disabled');
    assert.equal(off.json().disabled_at, t.clock.now().toISOString());
    await emitCaseDecided(t, w.tenant);
    assert.deepEqual((await deliveriesOf(w, e.id)).map((d) => d.id), [waiting], 'no delivery while disabled');
    const testCall = await t.request('POST', `/v1/webhook-endpoints/${e.id}/test`, { key: w.key });
    assert.equal(testCall.statusCode, 409);
    assert.equal(errorOf(testCall).code, 'webhook_endpoint_disabled');
    const resume = await t.request('POST', `/v1/webhook-endpoints/${e.id}/resume`, { key: w.key });
    assert.equal(errorOf(resume).code, 'webhook_endpoint_disabled', 'resume is for a suspended endpoint; enable a disabled one');
    const offAgain = await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/disable`);
    assert.equal(offAgain.json().disabled_at, off.json().disabled_at, 'disabling twice keeps the first time');

    t.clock.advance(60_000);
    const on = await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/enable`);
    assert.equal(on.statusCode, 200, on.body);
    assert.equal(on.json().status, 'active');
    assert.equal(on.json().disabled_at, null);
    const [d] = await deliveriesOf(w, e.id);
    assert.equal(d.id, waiting);
    assert.equal(d.status, 'pending');
    assert.ok(Date.parse(d.next_attempt_at) <= t.clock.now().getTime(), 'due at once');
    await emitCaseDecided(t, w.tenant);
    assert.equal((await deliveriesOf(w, e.id)).length, 2);
    assert.deepEqual(
      (await journal(w)).map((j) => j.action).filter((a) => a.startsWith('webhook_endpoint.')),
      ['webhook_endpoint.created', 'webhook_endpoint.disabled', 'webhook_endpoint.enabled'],
      'a change that changes nothing is not journaled',
    );
  });
});

describe('DELETE /v1/webhook-endpoints/{endpoint_id}', () => {
  test('cancels what was scheduled, keeps the history, frees the slot; gone from every endpoint route', async () => {
    const w = await newTenant(t);
    const e = await createEndpoint(t, w, 'http://localhost:4000/a');
    const { deliveryIds: [scheduled] } = await emitCaseDecided(t, w.tenant);
    const res = await signed(w, 'DELETE', `/v1/webhook-endpoints/${e.id}`, undefined, 'delete-endpoint-01');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { id: e.id, object: 'webhook_endpoint', deleted: true, cancelled_deliveries: 1 });
    const again = await signed(w, 'DELETE', `/v1/webhook-endpoints/${e.id}`, undefined, 'delete-endpoint-01');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), res.json());

    assert.deepEqual(await listed(w), []);
    const kept = await get(w, `/v1/webhook-deliveries/${scheduled}`);
    assert.equal(kept.statusCode, 200, 'the log keeps the delivery for its retention');
    assert.equal(kept.json().status, 'cancelled');
    assert.equal(kept.json().next_attempt_at, null);
    assert.equal((await deliveriesOf(w, e.id)).length, 1, 'the log still filters by the deleted endpoint');
    await emitCaseDecided(t, w.tenant);
    assert.equal((await deliveriesOf(w, e.id)).length, 1, 'no new delivery');
    for (const [method, url] of [
      ['DELETE', `/v1/webhook-endpoints/${e.id}`],
      ['PATCH', `/v1/webhook-endpoints/${e.id}`],
      ['POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`],
      ['POST', `/v1/webhook-endpoints/${e.id}/disable`],
    ] as const) {
      const gone = await signed(w, method, url, method === 'PATCH' ? { description: 'x' } : method === 'POST' && url.endsWith('secret') ? {} : undefined);
      assert.equal(gone.statusCode, 404, `${method} ${url}: ${gone.body}`);
      assert.equal(errorOf(gone).code, 'resource_not_found');
    }
    assert.equal((await t.request('POST', `/v1/webhook-endpoints/${e.id}/test`, { key: w.key })).statusCode, 404);
    assert.equal((await t.request('POST', `/v1/webhook-deliveries/${scheduled}/replay`, { key: w.key })).statusCode, 404);
    const entry = (await journal(w)).find((j) => j.action === 'webhook_endpoint.deleted');
    assert.deepEqual(entry?.detail, { endpoint_id: e.id, url: 'http://localhost:4000/a', cancelled_deliveries: 1 });
  });

  test('a deleted endpoint no longer counts toward the 16', async () => {
    const w = await newTenant(t);
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push((await createEndpoint(t, w, `https://a.example/${i}`)).id);
    const full = await signed(w, 'POST', '/v1/webhook-endpoints', { url: 'https://a.example/16', events: ['case.decided'] });
    assert.equal(errorOf(full).code, 'webhook_endpoint_limit_reached');
    assert.equal((await signed(w, 'DELETE', `/v1/webhook-endpoints/${ids[0]}`)).statusCode, 200);
    const room = await signed(w, 'POST', '/v1/webhook-endpoints', { url: 'https://a.example/16', events: ['case.decided'] });
    assert.equal(room.statusCode, 201, room.body);
  });
});

describe('POST /v1/webhook-endpoints/{endpoint_id}/rotate-secret', () => {
  test('a new secret once; the previous one is kept 24 hours by default; journaled without any secret', async () => {
    const w = await newTenant(t);
    const e = await createEndpoint(t, w, 'http://localhost:4000/a');
    const res = await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`, {}, 'rotate-secret-0001');
    assert.equal(res.statusCode, 200, res.body);
    const rotated = res.json();
    assert.match(rotated.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(rotated.secret, e.secret);
    const expires = new Date(t.clock.now().getTime() + 24 * 3_600_000).toISOString();
    assert.equal(rotated.previous_secret_expires_at, expires);
    const again = await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`, {}, 'rotate-secret-0001');
    assert.equal(again.json().secret, rotated.secret, 'a retry returns the same new secret, and rotates nothing more');
    const [row] = await listed(w);
    assert.equal(row.previous_secret_expires_at, expires);
    assert.equal(JSON.stringify(row).includes(rotated.secret), false);
    const entries = (await journal(w)).filter((j) => j.action === 'webhook_endpoint.secret_rotated');
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0].detail, { endpoint_id: e.id, previous_secret_expires_at: expires });
  });

  test('overlap_seconds sets the window, 0 to 7 days; 0 drops the previous secret at once', async () => {
    const w = await newTenant(t);
    const e = await createEndpoint(t, w, 'http://localhost:4000/a');
    const hour = await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`, { overlap_seconds: 3600 });
    assert.equal(hour.json().previous_secret_expires_at, new Date(t.clock.now().getTime() + 3_600_000).toISOString());
    const none = await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`, { overlap_seconds: 0 });
    assert.equal(none.statusCode, 200, none.body);
    assert.equal(none.json().previous_secret_expires_at, null);
    for (const overlap of [-1, 604801, 1.5]) {
      const res = await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`, { overlap_seconds: overlap });
      assert.equal(res.statusCode, 422, `${overlap}: ${res.body}`);
      assert.deepEqual([errorOf(res).code, errorOf(res).field], ['parameter_invalid', 'overlap_seconds']);
    }
    assert.equal((await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`, { overlap_seconds: 604800 })).statusCode, 200);
    const noBody = await signed(w, 'POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`);
    assert.equal(noBody.statusCode, 200, `no body is the default overlap: ${noBody.body}`);
  });
});

describe('every new write', () => {
  test('is signed: 401 signature_missing without the signature; another client gets 404', async () => {
    const w = await newTenant(t);
    const other = await newTenant(t);
    const e = await createEndpoint(t, w, 'http://localhost:4000/a');
    const writes: [string, string, unknown][] = [
      ['PATCH', `/v1/webhook-endpoints/${e.id}`, { description: 'x' }],
      ['POST', `/v1/webhook-endpoints/${e.id}/disable`, undefined],
      ['POST', `/v1/webhook-endpoints/${e.id}/enable`, undefined],
      ['POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`, {}],
      ['DELETE', `/v1/webhook-endpoints/${e.id}`, undefined],
    ];
    for (const [method, url, body] of writes) {
      const unsigned = await t.request(method, url, { key: w.key, body });
      assert.equal(unsigned.statusCode, 401, `${method} ${url}`);
      assert.equal(errorOf(unsigned).code, 'signature_missing');
      const foreign = await signed(other, method, url, body);
      assert.equal(foreign.statusCode, 404, `${method} ${url}: ${foreign.body}`);
      assert.equal(errorOf(foreign).code, 'resource_not_found');
    }
    assert.equal((await listed(w))[0].status, 'active', 'nothing changed');
  });
});

describe('retention', () => {
  // Last in this file: the purge reaches every tenant's finished deliveries of the database.
  test("past the log's window a deleted endpoint goes with its last delivery; an expired previous secret is erased", async () => {
    const w = await newTenant(t);
    const gone = await createEndpoint(t, w, 'http://localhost:4000/gone');
    await emitCaseDecided(t, w.tenant);
    await signed(w, 'DELETE', `/v1/webhook-endpoints/${gone.id}`);
    const kept = await createEndpoint(t, w, 'http://localhost:4000/kept');
    await signed(w, 'POST', `/v1/webhook-endpoints/${kept.id}/rotate-secret`, { overlap_seconds: 60 });
    const rowOf = async (id: string) =>
      (await queryRows<{ previous_secret_sealed: string | null }>(t.database.db, sql`SELECT previous_secret_sealed FROM webhook_endpoints WHERE id = ${id}`))[0];
    const now = t.clock.now().getTime();

    // Within the window: the deleted endpoint stays for its delivery, the previous secret for its overlap.
    await purgeWebhookLog(t.database.db, new Date(now - 30 * 24 * 3_600_000), new Date(now + 59_000));
    assert.ok(await rowOf(gone.id), 'kept while the log refers to it');
    assert.notEqual((await rowOf(kept.id)).previous_secret_sealed, null);

    // The cancelled delivery older than the window, the overlap over.
    await purgeWebhookLog(t.database.db, new Date(now + 1000), new Date(now + 60_000));
    assert.equal(await rowOf(gone.id), undefined, 'gone with its last delivery');
    assert.equal((await rowOf(kept.id)).previous_secret_sealed, null, 'erased once past its overlap');
  });
});
