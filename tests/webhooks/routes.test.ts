import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, startTestApp, type TestApp } from '../helpers/app.ts';
import { createEndpoint, emitCaseDecided, newTenant, type TestTenant } from '../helpers/webhooks.ts';

// No dispatcher runs in this file: deliveries stay pending, which is what these route checks need.
let t: TestApp;
let who: TestTenant;
before(async () => {
  t = await startTestApp();
  who = await newTenant(t);
});
after(() => t.close());

const create = (w: TestTenant, body: unknown) => t.request('POST', '/v1/webhook-endpoints', { signed: true, key: w.key, body });
const get = (w: TestTenant, url: string) => t.request('GET', url, { key: w.key });
const post = (w: TestTenant, url: string) => t.request('POST', url, { key: w.key });

describe('POST /v1/webhook-endpoints', () => {
  test('201 with the signing secret once; listings never show it again', async () => {
    const res = await create(who, { url: 'https://hooks.example.com/idv', events: ['case.decided', 'case.decision_revised'] });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.match(body.id, /^whe_[0-9a-z]{26}$/);
    assert.match(body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.equal(body.status, 'active');
    assert.equal(body.environment, 'sandbox');
    assert.deepEqual(body.events, ['case.decided', 'case.decision_revised']);
    const list = await get(who, '/v1/webhook-endpoints');
    assert.equal(list.statusCode, 200);
    const listed = list.json().data.find((e: { id: string }) => e.id === body.id);
    assert.equal(listed.url, 'https://hooks.example.com/idv');
    assert.equal(JSON.stringify(list.json()).includes(body.secret), false);
    assert.equal('secret' in listed, false);
  });

  test('a retry with the same Idempotency-Key returns the same endpoint and secret, and creates nothing more', async () => {
    const w = await newTenant(t);
    const opts = { signed: true, key: w.key, idempotencyKey: 'b1d7c2e4-webhook-retry', body: { url: 'http://localhost:4000/h', events: ['case.decided'] } };
    const first = await t.request('POST', '/v1/webhook-endpoints', opts);
    const again = await t.request('POST', '/v1/webhook-endpoints', opts);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    assert.equal((await get(w, '/v1/webhook-endpoints')).json().data.length, 1);
  });

  const invalid: [string, unknown, string, string][] = [
    ['unknown event', { url: 'https://a.example/h', events: ['case.created'] }, 'unknown_event_type', 'events'],
    ['no events', { url: 'https://a.example/h', events: [] }, 'parameter_invalid', 'events'],
    ['duplicate events', { url: 'https://a.example/h', events: ['case.decided', 'case.decided'] }, 'parameter_invalid', 'events'],
    ['events not a list', { url: 'https://a.example/h', events: 'case.decided' }, 'parameter_invalid', 'events'],
    ['event name over 64', { url: 'https://a.example/h', events: ['x'.repeat(65)] }, 'parameter_invalid', 'events.0'],
    ['missing url', { events: ['case.decided'] }, 'parameter_missing', 'url'],
    ['url over 2048', { url: `https://a.example/${'x'.repeat(2040)}`, events: ['case.decided'] }, 'parameter_invalid', 'url'],
    ['http to another host in the sandbox', { url: 'http://hooks.example.com/h', events: ['case.decided'] }, 'webhook_url_refused', 'url'],
    ['not a url', { url: 'hooks', events: ['case.decided'] }, 'webhook_url_refused', 'url'],
    ['credentials in the url', { url: 'https://u:p@a.example/h', events: ['case.decided'] }, 'webhook_url_refused', 'url'],
    ['unknown field', { url: 'https://a.example/h', events: ['case.decided'], secret: 'mine' }, 'parameter_unknown', 'secret'],
  ];
  for (const [name, body, code, field] of invalid) {
    test(`422 ${code} on ${name}`, async () => {
      const res = await create(who, body);
      assert.equal(res.statusCode, 422, res.body);
      const err = errorOf(res);
      assert.equal(err.code, code);
      assert.equal(err.field, field);
    });
  }

  test('the sandbox accepts http to localhost', async () => {
    const res = await create(who, { url: 'http://localhost:3000/hooks', events: ['webhook.test'] });
    assert.equal(res.statusCode, 201, res.body);
  });

  test('production refuses http and loopback, private, link-local and unique-local destinations', async () => {
    const prod = await newTenant(t, 'prod');
    for (const url of [
      'http://93.184.215.14/h',
      'https://localhost/h',
      'https://127.0.0.1/h',
      'https://10.0.0.8/h',
      'https://192.168.1.20/h',
      'https://169.254.169.254/latest',
      'https://[::1]/h',
      'https://[fe80::1]/h',
      'https://[fd00::4]/h',
      'https://[::ffff:10.0.0.1]/h',
    ]) {
      const res = await create(prod, { url, events: ['case.decided'] });
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
      assert.equal(errorOf(res).code, 'webhook_url_refused', url);
      assert.equal(errorOf(res).field, 'url');
    }
    const ok = await create(prod, { url: 'https://93.184.215.14/h', events: ['case.decided'] });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().environment, 'prod');
  });

  test('401 without a key or without the signature', async () => {
    const body = { url: 'https://a.example/h', events: ['case.decided'] };
    const anonymous = await t.request('POST', '/v1/webhook-endpoints', { key: null, body });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(errorOf(anonymous).code, 'api_key_missing');
    const unsigned = await t.request('POST', '/v1/webhook-endpoints', { key: who.key, body });
    assert.equal(unsigned.statusCode, 401);
    assert.equal(errorOf(unsigned).code, 'signature_missing');
    for (const url of ['/v1/webhook-endpoints', '/v1/webhook-deliveries', '/v1/webhook-events']) {
      const res = await t.request('GET', url, { key: null });
      assert.equal(errorOf(res).code, 'api_key_missing', url);
    }
  });

  test('409 webhook_endpoint_limit_reached beyond 16 endpoints', async () => {
    const w = await newTenant(t);
    for (let i = 0; i < 16; i++) assert.equal((await create(w, { url: `https://a.example/${i}`, events: ['case.decided'] })).statusCode, 201);
    const res = await create(w, { url: 'https://a.example/17', events: ['case.decided'] });
    assert.equal(res.statusCode, 409);
    assert.equal(errorOf(res).code, 'webhook_endpoint_limit_reached');
    const page1 = (await get(w, '/v1/webhook-endpoints?limit=10')).json();
    assert.equal(page1.data.length, 10);
    assert.equal(page1.has_more, true);
    const page2 = (await get(w, `/v1/webhook-endpoints?limit=10&starting_after=${page1.next_cursor}`)).json();
    assert.equal(page2.data.length, 6);
    assert.equal(page2.has_more, false);
    const limits = await get(w, '/v1/webhook-endpoints?limit=101');
    assert.equal(errorOf(limits).field, 'limit');
  });
});

describe('GET /v1/webhook-events', () => {
  test('lists every event with when it is sent and an example body without personal data', async () => {
    const res = await get(who, '/v1/webhook-events');
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(
      body.data.map((e: { type: string }) => e.type),
      [
        'case.decided',
        'case.resubmission_requested',
        'case.decision_revised',
        'case.personal_data_erased',
        'webhook.test',
        'usage.quota_threshold_reached',
        'usage.quota_reached',
      ],
    );
    for (const e of body.data) {
      assert.ok(e.sent_when.length > 10);
      assert.deepEqual(Object.keys(e.example), ['data', 'object', 'occurred_at', 'type']);
      assert.equal(e.example.type, e.type);
      assert.deepEqual(Object.keys(e.example.object).sort(), ['environment', 'external_ref', 'flow_name', 'id', 'type']);
      assert.match(e.example.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    }
    const decided = body.data[0].example.data;
    assert.deepEqual(Object.keys(decided), ['outcome', 'reason_code']);
  });
});

describe('delivery log routes', () => {
  let endpointA: { id: string };
  let endpointB: { id: string };
  let deliveryA: string;
  before(async () => {
    endpointA = await createEndpoint(t, who, 'http://localhost:9/a', ['case.decided']);
    endpointB = await createEndpoint(t, who, 'http://localhost:9/b', ['case.decided', 'case.decision_revised']);
    await emitCaseDecided(t, who.tenant);
    const rows = (await get(who, `/v1/webhook-deliveries?endpoint_id=${endpointA.id}`)).json().data;
    deliveryA = rows[0].id;
  });

  test('GET /v1/webhook-deliveries/{id} gives the body the destination receives and no attempt yet', async () => {
    const res = await get(who, `/v1/webhook-deliveries/${deliveryA}`);
    assert.equal(res.statusCode, 200);
    const d = res.json();
    assert.equal(d.status, 'pending');
    assert.equal(d.endpoint_id, endpointA.id);
    assert.equal(d.attempt_count, 0);
    assert.deepEqual(d.attempts, []);
    assert.equal(JSON.parse(d.body).type, 'case.decided');
    assert.equal(JSON.parse(d.body).object.environment, 'sandbox');
  });

  test('filters by endpoint, event type and status, newest first, with cursor paging', async () => {
    await t.request('POST', `/v1/webhook-endpoints/${endpointB.id}/test`, { key: who.key });
    const all = (await get(who, '/v1/webhook-deliveries')).json();
    assert.equal(all.object, 'list');
    const ids = all.data.map((d: { id: string }) => d.id);
    assert.deepEqual(ids, [...ids].sort().reverse());
    const ofB = (await get(who, `/v1/webhook-deliveries?endpoint_id=${endpointB.id}`)).json().data;
    assert.equal(ofB.length, 2);
    assert.ok(ofB.every((d: { endpoint_id: string }) => d.endpoint_id === endpointB.id));
    const tests = (await get(who, '/v1/webhook-deliveries?event_type=webhook.test')).json().data;
    assert.equal(tests.length, 1);
    assert.equal((await get(who, '/v1/webhook-deliveries?status=succeeded')).json().data.length, 0);
    assert.ok((await get(who, '/v1/webhook-deliveries?status=pending')).json().data.length >= 3);
    const first = (await get(who, '/v1/webhook-deliveries?limit=1')).json();
    assert.equal(first.has_more, true);
    const second = (await get(who, `/v1/webhook-deliveries?limit=1&starting_after=${first.next_cursor}`)).json();
    assert.notEqual(second.data[0].id, first.data[0].id);
  });

  test('days bounds the window (default 7); an endpoint shows its last 24 hours only', async () => {
    const w = await newTenant(t);
    const e = await createEndpoint(t, w, 'http://localhost:9/old');
    const { deliveryIds } = await emitCaseDecided(t, w.tenant);
    t.clock.advance(25 * 3_600_000);
    try {
      assert.equal((await get(w, `/v1/webhook-endpoints/${e.id}/deliveries`)).json().data.length, 0);
      assert.equal((await get(w, '/v1/webhook-deliveries?days=1')).json().data.length, 0);
      assert.equal((await get(w, '/v1/webhook-deliveries?days=2')).json().data[0].id, deliveryIds[0]);
      t.clock.advance(7 * 24 * 3_600_000);
      assert.equal((await get(w, '/v1/webhook-deliveries')).json().data.length, 0);
      assert.equal((await get(w, '/v1/webhook-deliveries?days=30')).json().data.length, 1);
    } finally {
      t.clock.advance(-(25 + 7 * 24) * 3_600_000);
    }
    assert.equal((await get(w, `/v1/webhook-endpoints/${e.id}/deliveries`)).json().data[0].id, deliveryIds[0]);
  });

  const bounds: [string, string, string][] = [
    ['days=0', 'parameter_invalid', 'days'],
    ['days=31', 'parameter_invalid', 'days'],
    ['days=1.5', 'parameter_invalid', 'days'],
    ['days=week', 'parameter_invalid', 'days'],
    [`event_type=${'e'.repeat(65)}`, 'parameter_invalid', 'event_type'],
    [`endpoint_id=${'w'.repeat(41)}`, 'parameter_invalid', 'endpoint_id'],
    [`starting_after=${'d'.repeat(41)}`, 'parameter_invalid', 'starting_after'],
    ['limit=0', 'parameter_invalid', 'limit'],
    ['limit=101', 'parameter_invalid', 'limit'],
    ['status=delivered', 'parameter_invalid', 'status'],
    ['colour=blue', 'parameter_unknown', 'colour'],
  ];
  for (const [query, code, field] of bounds) {
    test(`GET /v1/webhook-deliveries?${query.slice(0, 24)} → 422 ${code}`, async () => {
      const res = await get(who, `/v1/webhook-deliveries?${query}`);
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(errorOf(res).code, code);
      assert.equal(errorOf(res).field, field);
    });
  }
  test('the bounds themselves are accepted: days=1 and 30, event_type of 64, ids of 40, limit 1 and 100', async () => {
    for (const q of ['days=1', 'days=30', `event_type=${'e'.repeat(64)}`, `endpoint_id=${'w'.repeat(40)}`, `starting_after=${'d'.repeat(40)}`, 'limit=1', 'limit=100']) {
      assert.equal((await get(who, `/v1/webhook-deliveries?${q}`)).statusCode, 200, q);
    }
  });

  test('replay needs delivery_id, of that endpoint, and refuses a delivery still scheduled', async () => {
    const missing = await post(who, `/v1/webhook-endpoints/${endpointA.id}/replay`);
    assert.equal(missing.statusCode, 422);
    assert.deepEqual([errorOf(missing).code, errorOf(missing).field], ['parameter_missing', 'delivery_id']);
    const tooLong = await post(who, `/v1/webhook-endpoints/${endpointA.id}/replay?delivery_id=${'d'.repeat(41)}`);
    assert.equal(errorOf(tooLong).field, 'delivery_id');
    const otherEndpoint = await post(who, `/v1/webhook-endpoints/${endpointB.id}/replay?delivery_id=${deliveryA}`);
    assert.equal(otherEndpoint.statusCode, 404);
    assert.deepEqual([errorOf(otherEndpoint).code, errorOf(otherEndpoint).field], ['resource_not_found', 'delivery_id']);
    const scheduled = await post(who, `/v1/webhook-endpoints/${endpointA.id}/replay?delivery_id=${deliveryA}`);
    assert.equal(scheduled.statusCode, 409);
    assert.equal(errorOf(scheduled).code, 'webhook_delivery_scheduled');
    const fromLog = await post(who, `/v1/webhook-deliveries/${deliveryA}/replay`);
    assert.equal(errorOf(fromLog).code, 'webhook_delivery_scheduled');
  });

  test('resume of an active endpoint is accepted and changes nothing', async () => {
    const res = await post(who, `/v1/webhook-endpoints/${endpointA.id}/resume`);
    assert.equal(res.statusCode, 202);
    assert.equal(res.json().status, 'active');
  });

  test("another client's (or environment's) endpoints and deliveries are 404 and never listed", async () => {
    for (const other of [await newTenant(t), await newTenant(t, 'prod')]) {
      for (const [method, url] of [
        ['GET', `/v1/webhook-endpoints/${endpointA.id}/deliveries`],
        ['POST', `/v1/webhook-endpoints/${endpointA.id}/resume`],
        ['POST', `/v1/webhook-endpoints/${endpointA.id}/test`],
        ['POST', `/v1/webhook-endpoints/${endpointA.id}/replay?delivery_id=${deliveryA}`],
        ['GET', `/v1/webhook-deliveries/${deliveryA}`],
        ['POST', `/v1/webhook-deliveries/${deliveryA}/replay`],
      ] as const) {
        const res = await t.request(method, url, { key: other.key });
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal(errorOf(res).code, 'resource_not_found');
      }
      assert.deepEqual((await get(other, '/v1/webhook-endpoints')).json().data, []);
      assert.deepEqual((await get(other, `/v1/webhook-deliveries?endpoint_id=${endpointA.id}`)).json().data, []);
    }
    // And events raised for one client never produce deliveries to another's endpoints.
    const other = await newTenant(t);
    await createEndpoint(t, other, 'http://localhost:9/other');
    await emitCaseDecided(t, who.tenant);
    assert.deepEqual((await get(other, '/v1/webhook-deliveries')).json().data, []);
  });

  test('unknown ids are 404 on every route', async () => {
    const ghost = 'whe_01m7ym09t80f4fggxqxy1yr50c';
    assert.equal((await get(who, `/v1/webhook-endpoints/${ghost}/deliveries`)).statusCode, 404);
    assert.equal((await post(who, `/v1/webhook-endpoints/${ghost}/test`)).statusCode, 404);
    assert.equal((await post(who, `/v1/webhook-endpoints/${ghost}/resume`)).statusCode, 404);
    assert.equal((await get(who, '/v1/webhook-deliveries/dlv_01m7ym09t80f4fggxqxy1yr50c')).statusCode, 404);
    assert.equal((await post(who, '/v1/webhook-deliveries/dlv_01m7ym09t80f4fggxqxy1yr50c/replay')).statusCode, 404);
  });
});
