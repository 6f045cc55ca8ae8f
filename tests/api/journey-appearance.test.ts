import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { findAppearanceLogo, findEmbedding, schema } from '@idv/db';
import { buildJourneyAssets, createJourneyServer } from '@idv/journey';
import { errorOf } from '../helpers/app.ts';
import { journey, newSession, openCase } from '../helpers/journey.ts';
import { addOperator, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';
import { otherClient } from '../helpers/tenants.ts';

/**
 * The journey's appearance: set by an integration key (signed) or by an administrator through the
 * console, checked for WCAG AA contrast and image bounds, journaled, carried by the journey state,
 * and the logo served by the journey server by its hash.
 */

let t: ReviewTestApp;
let server: Server;
let journeyBase: string;
before(async () => {
  t = await startReviewApp();
  server = createJourneyServer({
    assets: await buildJourneyAssets(),
    apiBaseUrl: 'http://api.test',
    embeddingOrigins: async (clientId, environment) => (await findEmbedding(t.database.db, { clientId, environment }))?.origins ?? [],
    logo: (clientId, environment, sha256) => findAppearanceLogo(t.database.db, { clientId, environment }, sha256),
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  journeyBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  await t.close();
});

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#123456' } }).png().toBuffer();
const base64 = (b: Buffer) => b.toString('base64');
let idem = 0;
const nextKey = () => `appearance-${++idem}-${randomBytes(4).toString('hex')}`;
const update = (body: unknown) => t.request('POST', '/v1/journey-appearance', { signed: true, body, idempotencyKey: nextKey() });

describe('journey appearance', () => {
  test('the journey’s own look until set; set by a signed call, idempotent, journaled; the journey state carries it and serves the logo', async () => {
    let res = await t.request('GET', '/v1/journey-appearance');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { object: 'journey_appearance', display_name: null, primary_color: '#0b57d0', background_color: '#ffffff', button_label_color: '#ffffff', logo: null, updated_at: null });

    const unsigned = await t.request('POST', '/v1/journey-appearance', { body: { display_name: 'Demo Bank', primary_color: '#006400', background_color: '#ffffff' } });
    assert.equal(errorOf(unsigned).code, 'signature_missing');

    const logo = await png(120, 40);
    const body = { display_name: '  Demo Bank ', primary_color: '#8B0000', background_color: '#FFFDF5', logo: { data_base64: base64(logo) } };
    const key = nextKey();
    res = await t.request('POST', '/v1/journey-appearance', { signed: true, body, idempotencyKey: key });
    assert.equal(res.statusCode, 200, res.body);
    const sha = createHash('sha256').update(logo).digest('hex');
    const set = res.json();
    assert.deepEqual({ ...set, updated_at: undefined }, {
      object: 'journey_appearance',
      display_name: 'Demo Bank',
      primary_color: '#8b0000',
      background_color: '#fffdf5',
      button_label_color: '#ffffff',
      logo: { content_type: 'image/png', bytes: logo.length, sha256: sha },
      updated_at: undefined,
    });
    const replay = await t.request('POST', '/v1/journey-appearance', { signed: true, body, idempotencyKey: key });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const journal = await t.database.db.select().from(schema.clientJournal).where(eq(schema.clientJournal.action, 'journey_appearance.updated'));
    assert.equal(journal.length, 1, 'a replay is not journaled twice');
    assert.equal(journal[0].actor, `key:${t.demoKey.id}`);
    assert.equal(journal[0].detail.logo, sha);

    const token = await newSession(t, await openCase(t));
    const state = (await journey(t, 'GET', '', token)).json();
    const path = `/brand/${t.demo.client_id}/sandbox/${sha}`;
    assert.deepEqual(state.appearance, { display_name: 'Demo Bank', primary_color: '#8b0000', background_color: '#fffdf5', button_label_color: '#ffffff', logo_path: path });

    const served = await fetch(journeyBase + path);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.match(served.headers.get('cache-control')!, /immutable/);
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('content-security-policy')!, /sandbox/);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), logo);
    assert.equal((await fetch(`${journeyBase}/brand/${t.demo.client_id}/prod/${sha}`)).status, 404, 'another environment has no logo');
    assert.equal((await fetch(`${journeyBase}/brand/${t.demo.client_id}/sandbox/${'0'.repeat(64)}`)).status, 404);

    // Colours alone keep the logo; null removes it, and its old address finds nothing.
    res = await update({ display_name: 'Demo Bank', primary_color: '#0b57d0', background_color: '#ffffff' });
    assert.equal(res.json().logo.sha256, sha);
    res = await update({ display_name: null, primary_color: '#0b57d0', background_color: '#ffffff', logo: null });
    assert.equal(res.json().logo, null);
    assert.equal((await fetch(journeyBase + path)).status, 404);
    assert.equal((await journey(t, 'GET', '', token)).json().appearance.logo_path, null);

    // Another client keeps its own look.
    const other = await otherClient(t);
    assert.equal((await t.request('GET', '/v1/journey-appearance', { key: other.key })).json().updated_at, null);
  });

  test('colours below WCAG AA contrast, bad names and bad logos are refused with the field and the reason', async () => {
    const cases: [unknown, string, string, RegExp][] = [
      [{ display_name: null, primary_color: '#ff8800', background_color: '#ffffff' }, 'appearance_invalid', 'primary_color', /2\.\d\d:1.*4\.5:1/],
      [{ display_name: null, primary_color: '#0b57d0', background_color: '#333333' }, 'appearance_invalid', 'background_color', /lighter background/],
      [{ display_name: null, primary_color: '#777777', background_color: '#ffffff' }, 'appearance_invalid', 'primary_color', /4\.47:1/],
      [{ display_name: null, primary_color: 'red', background_color: '#ffffff' }, 'appearance_invalid', 'primary_color', /#rrggbb/],
      [{ display_name: '   ', primary_color: '#0b57d0', background_color: '#ffffff' }, 'appearance_invalid', 'display_name', /empty/],
      // Refused before the route, as in every text the API takes (docs/authentication.md).
      [{ display_name: 'Bank\u202eknaB', primary_color: '#0b57d0', background_color: '#ffffff' }, 'parameter_invalid', 'display_name', /bidirectional/],
      [{ display_name: 'x'.repeat(61), primary_color: '#0b57d0', background_color: '#ffffff' }, 'appearance_invalid', 'display_name', /60/],
    ];
    for (const [body, code, field, message] of cases) {
      const res = await update(body);
      assert.equal(res.statusCode, 422, JSON.stringify(body));
      const err = errorOf(res);
      assert.deepEqual([err.code, err.field], [code, field], JSON.stringify(body));
      assert.match(err.message, message);
    }
    const colours = { display_name: null, primary_color: '#0b57d0', background_color: '#ffffff' };
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
    const noise = await sharp(randomBytes(296 * 296 * 3), { raw: { width: 296, height: 296, channels: 3 } }).png().toBuffer();
    assert.ok(noise.length > 256 * 1024, 'the noise PNG is over the limit');
    const logos: [string, string, number][] = [
      [base64(svg), 'image_type_unsupported', 415],
      [base64(await png(2000, 100)), 'image_dimensions_invalid', 422],
      [base64(await png(8, 8)), 'image_dimensions_invalid', 422],
      [base64((await png(100, 100)).subarray(0, 60)), 'image_unreadable', 422],
      [base64(noise), 'image_too_large', 413],
      ['not base64!', 'parameter_invalid', 422],
    ];
    for (const [data, code, status] of logos) {
      const res = await update({ ...colours, logo: { data_base64: data } });
      assert.equal(res.statusCode, status, `${code}: ${res.body}`);
      assert.equal(errorOf(res).code, code);
    }
    const big = await t.request('POST', '/v1/journey-appearance', { signed: true, idempotencyKey: nextKey(), body: { ...colours, logo: { data_base64: 'A'.repeat(600_000) } } });
    assert.equal(big.statusCode, 413, 'a body beyond the route’s limit is refused before it is read whole');
  });

  test('through the console: administrators only, no HMAC but an Idempotency-Key, the operator journaled', async () => {
    const admin = await addOperator(t, { role: 'administrator' });
    const body = { display_name: 'Console Bank', primary_color: '#1d4ed8', background_color: '#ffffff' };
    const noKey = await t.asOperator(admin, 'POST', '/v1/journey-appearance', { body });
    assert.equal(errorOf(noKey).code, 'idempotency_key_missing');
    const res = await t.asOperator(admin, 'POST', '/v1/journey-appearance', { body, headers: { 'idempotency-key': nextKey() } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().display_name, 'Console Bank');
    const journal = await t.database.db.select().from(schema.clientJournal).where(eq(schema.clientJournal.action, 'journey_appearance.updated'));
    assert.equal(journal.at(-1)!.actor, `op:${admin.id}`);
    assert.equal((await t.asOperator(admin, 'GET', '/v1/journey-appearance')).json().display_name, 'Console Bank');

    for (const role of ['supervisor', 'reviewer', 'support'] as const) {
      const op = await addOperator(t, { role });
      for (const [method, opts] of [['GET', {}], ['POST', { body, headers: { 'idempotency-key': nextKey() } }]] as const) {
        const refused = await t.asOperator(op, method, '/v1/journey-appearance', opts);
        assert.equal(refused.statusCode, 403, `${role} ${method}`);
        assert.equal(errorOf(refused).code, 'operator_role_insufficient');
      }
    }
    const noOperator = await t.request('POST', '/v1/journey-appearance', { key: t.consoleKey, body, headers: { 'idempotency-key': nextKey() } });
    assert.equal(errorOf(noOperator).code, 'operator_required');
  });

  test('one operator’s Idempotency-Key never replays another operator’s answer', async () => {
    const a = await addOperator(t, { role: 'administrator' });
    const b = await addOperator(t, { role: 'administrator' });
    const body = { display_name: 'Shared Key', primary_color: '#1d4ed8', background_color: '#ffffff' };
    const key = nextKey();
    assert.equal((await t.asOperator(a, 'POST', '/v1/journey-appearance', { body, headers: { 'idempotency-key': key } })).statusCode, 200);
    const other = await t.asOperator(b, 'POST', '/v1/journey-appearance', { body, headers: { 'idempotency-key': key } });
    assert.equal(other.statusCode, 422);
    assert.equal(errorOf(other).code, 'idempotency_key_reused');
  });
});
