import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const newCase = (body: Record<string, unknown> = {}) =>
  t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR', ...body } });

describe('POST /v1/cases', () => {
  test('opens a case awaiting the applicant, with the flow version and an expiry', async () => {
    const res = await newCase({ external_ref: 'cust-1', declared: { surname: 'Dupont', given_names: 'Anne', birth_date: '1990-02-28' } });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.match(body.id, /^case_[0-9a-z]{26}$/);
    assert.equal(body.status, 'created');
    assert.equal(body.state, 'awaiting_applicant');
    assert.equal(body.flow_name, 'standard');
    assert.equal(body.country, 'FR');
    assert.equal(body.external_ref, 'cust-1');
    assert.equal(Date.parse(body.expires_at) - Date.parse(body.created_at), 7 * 24 * 3600 * 1000);
    assert.equal(JSON.stringify(body).includes('Dupont'), false, 'declared data is not echoed');
  });

  const invalid: [string, Record<string, unknown>, string, string][] = [
    ['missing flow_name', { flow_name: undefined }, 'parameter_missing', 'flow_name'],
    ['upper-case flow_name', { flow_name: 'Standard' }, 'parameter_invalid', 'flow_name'],
    ['unknown flow', { flow_name: 'premium' }, 'unknown_flow', 'flow_name'],
    ['missing country', { country: undefined }, 'parameter_missing', 'country'],
    ['lower-case country', { country: 'fr' }, 'parameter_invalid', 'country'],
    ['unassigned country', { country: 'XX' }, 'invalid_country', 'country'],
    ['numeric country', { country: 12 }, 'parameter_invalid', 'country'],
    ['external_ref over 128', { external_ref: 'x'.repeat(129) }, 'parameter_invalid', 'external_ref'],
    ['unknown field', { colour: 'blue' }, 'parameter_unknown', 'colour'],
    ['unknown declared field', { declared: { nickname: 'A' } }, 'parameter_unknown', 'declared.nickname'],
    ['impossible birth date', { declared: { birth_date: '1990-02-30' } }, 'parameter_invalid', 'declared.birth_date'],
    ['birth date not a date', { declared: { birth_date: '28/02/1990' } }, 'parameter_invalid', 'declared.birth_date'],
    ['declared not an object', { declared: 'Dupont' }, 'parameter_invalid', 'declared'],
    // A right-to-left override would make the console show another name than the one stored.
    ['a bidirectional override in a declared name', { declared: { surname: 'Dup\u202Etnon' } }, 'parameter_invalid', 'declared.surname'],
    ['a bidirectional isolate in an external_ref', { external_ref: 'cust\u2067-1' }, 'parameter_invalid', 'external_ref'],
  ];
  for (const [name, patch, code, field] of invalid) {
    test(`422 ${code} on ${name}`, async () => {
      const body: Record<string, unknown> = { flow_name: 'standard', country: 'FR', ...patch };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const res = await t.request('POST', '/v1/cases', { signed: true, body });
      assert.equal(res.statusCode, 422, res.body);
      const err = errorOf(res);
      assert.equal(err.code, code);
      assert.equal(err.field, field);
    });
  }

  test('422 invalid_json on a malformed body, 415 on another content type, 413 on a huge body', async () => {
    const bad = await t.request('POST', '/v1/cases', { signed: true, raw: '{"flow_name":' });
    assert.equal(bad.statusCode, 422);
    assert.equal(errorOf(bad).code, 'invalid_json');
    const text = await t.request('POST', '/v1/cases', { signed: true, raw: 'flow_name=standard', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.statusCode, 415);
    assert.equal(errorOf(text).code, 'unsupported_media_type');
    const huge = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR', external_ref: 'x'.repeat(100_000) } });
    assert.equal(huge.statusCode, 413);
    assert.equal(errorOf(huge).code, 'payload_too_large');
  });
});

describe('GET /v1/cases/{id} and /results', () => {
  test('reads the case with empty checks, duplicates, pieces and no decision', async () => {
    const created = (await newCase()).json();
    const res = await t.request('GET', `/v1/cases/${created.id}`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.state, 'awaiting_applicant');
    assert.equal(body.status, 'created');
    assert.deepEqual([body.checks, body.duplicates, body.pieces, body.decision, body.resubmission], [[], [], [], null, null]);
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  test('results carry no personal data', async () => {
    const created = (await newCase({ declared: { surname: 'Zażółć', given_names: 'Gęślą' } })).json();
    const res = await t.request('GET', `/v1/cases/${created.id}/results`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['case_id', 'checks', 'decision', 'duplicates', 'object', 'pieces', 'resubmission', 'state']);
    assert.equal(res.body.includes('Zażółć'), false);
  });

  test('404 resource_not_found for an unknown id, field case_id', async () => {
    for (const path of ['/v1/cases/case_01m7ym09t80f4fggxqxy1yr50c', '/v1/cases/nonsense/results']) {
      const res = await t.request('GET', path);
      assert.equal(res.statusCode, 404);
      assert.equal(errorOf(res).code, 'resource_not_found');
      assert.equal(errorOf(res).field, 'case_id');
    }
  });
});

describe('GET /v1/cases', () => {
  test('filters by external_ref, q prefix, status, country and dates, and pages by cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await newCase({ external_ref: `list-${i}`, country: i % 2 ? 'DE' : 'ES' })).json().id);
      t.clock.advance(1000);
    }
    const exact = (await t.request('GET', '/v1/cases?external_ref=list-3')).json();
    assert.deepEqual(exact.data.map((c: { id: string }) => c.id), [ids[3]]);
    const prefix = (await t.request('GET', '/v1/cases?q=list-&limit=100')).json();
    assert.deepEqual(prefix.data.map((c: { id: string }) => c.id), [...ids].reverse());
    const byId = (await t.request('GET', `/v1/cases?q=${ids[2].slice(0, 20)}`)).json();
    assert.ok(byId.data.some((c: { id: string }) => c.id === ids[2]));
    const de = (await t.request('GET', '/v1/cases?q=list-&country=DE&limit=100')).json();
    assert.deepEqual(de.data.map((c: { id: string }) => c.id), [ids[3], ids[1]]);
    const created = (await t.request('GET', '/v1/cases?q=list-&status=created&limit=100')).json();
    assert.equal(created.data.length, 5);
    const review = (await t.request('GET', '/v1/cases?q=list-&status=review')).json();
    assert.equal(review.data.length, 0);
    const after = new Date(Date.parse((await t.request('GET', `/v1/cases/${ids[2]}`)).json().created_at)).toISOString();
    const later = (await t.request('GET', `/v1/cases?q=list-&created_after=${encodeURIComponent(after)}&limit=100`)).json();
    assert.deepEqual(later.data.map((c: { id: string }) => c.id), [ids[4], ids[3]]);
    const before = (await t.request('GET', `/v1/cases?q=list-&created_before=${encodeURIComponent(after)}&limit=100`)).json();
    assert.deepEqual(before.data.map((c: { id: string }) => c.id), [ids[1], ids[0]]);

    const first = (await t.request('GET', '/v1/cases?q=list-&limit=2')).json();
    assert.equal(first.object, 'list');
    assert.equal(first.has_more, true);
    assert.deepEqual(first.data.map((c: { id: string }) => c.id), [ids[4], ids[3]]);
    const second = (await t.request('GET', `/v1/cases?q=list-&limit=2&cursor=${first.next_cursor}`)).json();
    assert.deepEqual(second.data.map((c: { id: string }) => c.id), [ids[2], ids[1]]);
    const last = (await t.request('GET', `/v1/cases?q=list-&limit=2&cursor=${second.next_cursor}`)).json();
    assert.deepEqual(last.data.map((c: { id: string }) => c.id), [ids[0]]);
    assert.equal(last.has_more, false);
    assert.equal(last.next_cursor, null);
  });

  const badQueries: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['status=open', 'status'],
    ['country=France', 'country'],
    ['created_after=yesterday', 'created_after'],
    [`cursor=${'c'.repeat(65)}`, 'cursor'],
    ['sort=asc', 'sort'],
  ];
  for (const [query, field] of badQueries) {
    test(`422 on ${query.slice(0, 30)}`, async () => {
      const res = await t.request('GET', `/v1/cases?${query}`);
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(errorOf(res).field, field);
    });
  }
});
