import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '@idv/db';
import { errorOf, type Credentials } from '../helpers/app.ts';
import { addOperator } from '../helpers/operators.ts';
import { PERSONS, journeyImages, journeyThrough, openCaseFor, sendToReview, startPersonalDataApp, type PersonalDataTestApp } from '../helpers/personal-data.ts';
import { issueKey, otherClient } from '../helpers/tenants.ts';

let t: PersonalDataTestApp;
let dataKey: Credentials;
before(async () => {
  t = await startPersonalDataApp();
  dataKey = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['personal_data'], name: 'images' });
});
after(() => t.close());

interface Piece {
  id: string;
  kind: string;
  available: boolean;
}

async function caseWithImages() {
  const caseId = await openCaseFor(t, PERSONS[0]);
  await journeyThrough(t, caseId, PERSONS[0]);
  const taskId = await sendToReview(t, caseId);
  const pieces = (await t.request('GET', `/v1/cases/${caseId}`)).json().pieces as Piece[];
  return { caseId, taskId, pieces, byKind: Object.fromEntries(pieces.map((p) => [p.kind, p.id])) as Record<string, string> };
}

const downloads = async (caseId: string) =>
  queryRows<{ actor: string; detail: Record<string, unknown> }>(t.database.db, sql`SELECT actor, detail FROM case_journal WHERE case_id = ${caseId} AND action = 'piece.downloaded' ORDER BY id`);

describe('images', () => {
  test('GET /v1/cases/{id}/images/{piece_id}: the bytes received, never cached, journaled as a download; personal_data needed', async () => {
    const { caseId, byKind } = await caseWithImages();
    const images = journeyImages();
    for (const [kind, bytes] of Object.entries(images)) {
      const res = await t.request('GET', `/v1/cases/${caseId}/images/${byKind[kind]}`, { key: dataKey });
      assert.equal(res.statusCode, 200, `${kind}: ${res.body.slice(0, 200)}`);
      assert.equal(res.headers['content-type'], 'image/jpeg');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.ok(res.rawPayload.equals(bytes), `${kind}: the exact bytes`);
      t.clock.advance(1000);
    }
    assert.deepEqual(
      (await downloads(caseId)).map((d) => [d.actor, d.detail.via, d.detail.kind]),
      Object.keys(images).map((kind) => [`key:${dataKey.id}`, 'image', kind]),
    );
    const plain = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['decisions'] });
    assert.equal(errorOf(await t.request('GET', `/v1/cases/${caseId}/images/${byKind.selfie}`, { key: plain })).code, 'permission_denied');
    assert.equal((await t.request('GET', `/v1/cases/${caseId}/images/pc_00000000000000000000000000`, { key: dataKey })).statusCode, 404);
    const other = await otherClient(t);
    assert.equal((await t.request('GET', `/v1/cases/${caseId}/images/${byKind.selfie}`, { key: other.key })).statusCode, 404);
    const elsewhere = await openCaseFor(t, PERSONS[1]);
    assert.equal((await t.request('GET', `/v1/cases/${elsewhere}/images/${byKind.selfie}`, { key: dataKey })).statusCode, 404, 'a piece of another case');
    assert.equal((await downloads(caseId)).length, 4, 'refusals are not journaled');
  });

  test('operators: the review station and the case route; the selfie is sealed under the biometric key, the document under the data key', async () => {
    const { caseId, taskId, byKind } = await caseWithImages();
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const viaTask = await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}/pieces/${byKind.selfie}`);
    assert.equal(viaTask.statusCode, 200);
    assert.ok(viaTask.rawPayload.equals(journeyImages().selfie));
    t.clock.advance(1000);
    const viaCase = await t.asOperator(reviewer, 'GET', `/v1/cases/${caseId}/pieces/${byKind.document_front}`);
    assert.equal(viaCase.statusCode, 200);
    assert.equal(viaCase.headers['cache-control'], 'no-store');
    assert.deepEqual(
      (await downloads(caseId)).map((d) => [d.detail.via, d.detail.piece_id, d.detail.role]),
      [
        ['review', byKind.selfie, 'reviewer'],
        ['piece', byKind.document_front, 'reviewer'],
      ],
    );
    const rows = await queryRows<{ id: string; blob_id: string; key_class: string }>(t.database.db, sql`SELECT id, blob_id, key_class FROM pieces WHERE case_id = ${caseId}`);
    const biometric = (await t.ctx.vault.existingKey(t.database.db, caseId, 'biometric'))!;
    const data = (await t.ctx.vault.existingKey(t.database.db, caseId, 'data'))!;
    for (const row of rows) {
      const sealed = (await t.ctx.blobs.get(row.blob_id))!;
      const [right, wrong] = row.key_class === 'biometric' ? [biometric, data] : [data, biometric];
      assert.equal(row.key_class, row.id === byKind.document_front ? 'data' : 'biometric');
      assert.ok(right.open(sealed, `piece:${row.id}`).length > 0);
      assert.throws(() => wrong.open(sealed, `piece:${row.id}`), `${row.id} does not open under the other key class`);
    }
    const outside = await addOperator(t, { role: 'reviewer', countries: ['DE'] });
    assert.equal((await t.asOperator(outside, 'GET', `/v1/reviews/${taskId}/pieces/${byKind.selfie}`)).statusCode, 404);
    assert.equal((await t.asOperator(outside, 'GET', `/v1/cases/${caseId}/pieces/${byKind.selfie}`)).statusCode, 404);
  });

  test('support accounts through a grant only; downloads show in the access log', async () => {
    const { caseId, byKind } = await caseWithImages();
    const admin = await addOperator(t, { role: 'administrator' });
    const support = await addOperator(t, { role: 'support' });
    assert.equal((await t.asOperator(support, 'GET', `/v1/cases/${caseId}/pieces/${byKind.selfie}`)).statusCode, 404);
    const grant = (await t.asOperator(admin, 'POST', '/v1/support-access', { body: { case_id: caseId, operator_id: support.id, reason: 'ticket' }, reauth: true })).json();
    const res = await t.asOperator(support, 'GET', `/v1/cases/${caseId}/pieces/${byKind.selfie}`);
    assert.equal(res.statusCode, 200);
    const log = (await t.request('GET', `/v1/cases/${caseId}/access-log`)).json();
    assert.deepEqual(
      log.data.map((e: { kind: string; what: string[]; actor: { provider_support: boolean; support_grant_id: string | null } }) => [e.kind, e.what, e.actor.provider_support, e.actor.support_grant_id]),
      [['downloaded', [byKind.selfie], true, grant.id]],
    );
  });

  test('a deleted image is gone: 410 piece_unavailable, pieces[].available false', async () => {
    const { caseId, byKind } = await caseWithImages();
    await t.database.db.execute(sql`UPDATE pieces SET deleted_at = ${t.clock.now().toISOString()}::timestamptz WHERE id = ${byKind.liveness_turn_left}`);
    const res = await t.request('GET', `/v1/cases/${caseId}/images/${byKind.liveness_turn_left}`, { key: dataKey });
    assert.equal(res.statusCode, 410);
    assert.equal(errorOf(res).code, 'piece_unavailable');
    const pieces = (await t.request('GET', `/v1/cases/${caseId}`)).json().pieces as Piece[];
    assert.deepEqual(pieces.filter((p) => !p.available).map((p) => p.id), [byKind.liveness_turn_left]);
  });
});
