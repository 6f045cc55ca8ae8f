import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { sql } from 'drizzle-orm';
import { queryRows, setPieceFaceBox } from '@idv/db';
import { PORTRAIT_MAX_SIDE, analyseFaces, relativeBox } from '@idv/engine';
import { errorOf } from '../helpers/app.ts';
import { addOperator } from '../helpers/operators.ts';
import { PERSONS, journeyImages, journeyThrough, openCaseFor, sendToReview, startPersonalDataApp, type PersonalDataTestApp } from '../helpers/personal-data.ts';

/**
 * The review station's views of a piece (GET …/pieces/{id}?view=): a thumbnail of any image, and
 * the portrait cut from a document's front where the checks found its face (here the engine's own
 * face finder on the real passport photo, as the checks run it). Each is a JPEG of bounded size,
 * journaled as a download with its view; refused plainly where it cannot be made.
 */
let t: PersonalDataTestApp;
let caseId: string;
let taskId: string;
let byKind: Record<string, string>;

before(async () => {
  t = await startPersonalDataApp();
  caseId = await openCaseFor(t, PERSONS[0]);
  await journeyThrough(t, caseId, PERSONS[0]);
  taskId = await sendToReview(t, caseId);
  const pieces = (await t.request('GET', `/v1/cases/${caseId}`)).json().pieces as { id: string; kind: string }[];
  byKind = Object.fromEntries(pieces.map((p) => [p.kind, p.id]));
});
after(() => t.close());

const downloads = async () =>
  queryRows<{ detail: Record<string, unknown> }>(t.database.db, sql`SELECT detail FROM case_journal WHERE case_id = ${caseId} AND action = 'piece.downloaded' ORDER BY id`);

describe('piece views', () => {
  test('a thumbnail: a JPEG at most 320 pixels a side, of any piece, journaled with its view', async () => {
    const reviewer = await addOperator(t, { role: 'reviewer' });
    for (const kind of ['selfie', 'document_front']) {
      const res = await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}/pieces/${byKind[kind]}?view=thumbnail`);
      assert.equal(res.statusCode, 200, res.body.slice(0, 300));
      assert.equal(res.headers['content-type'], 'image/jpeg');
      assert.equal(res.headers['cache-control'], 'no-store');
      const meta = await sharp(res.rawPayload).metadata();
      const original = await sharp(journeyImages()[kind]).metadata();
      assert.equal(meta.format, 'jpeg');
      assert.equal(Math.max(meta.width, meta.height), 320, `${kind}: ${meta.width}x${meta.height}`);
      // The same shape as the image (oriented), only smaller.
      assert.ok(Math.abs(meta.width / meta.height - original.autoOrient.width / original.autoOrient.height) < 0.02);
      assert.ok(res.rawPayload.length < journeyImages()[kind].length, 'smaller than the image received');
      t.clock.advance(1000);
    }
    const last = (await downloads()).slice(-2).map((d) => [d.detail.via, d.detail.kind, d.detail.view]);
    assert.deepEqual(last, [
      ['review', 'selfie', 'thumbnail'],
      ['review', 'document_front', 'thumbnail'],
    ]);
  });

  test('the portrait: the face found on the document, cut as a document portrait; one face fills it', async () => {
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const url = `/v1/reviews/${taskId}/pieces/${byKind.document_front}?view=portrait`;
    // Before the checks found a face: nothing to cut, said plainly, and nothing journaled.
    const before = (await downloads()).length;
    const none = await t.asOperator(reviewer, 'GET', url);
    assert.equal(none.statusCode, 404);
    assert.equal(errorOf(none).code, 'portrait_not_found');
    assert.equal((await downloads()).length, before);

    // Where the checks find the face: the engine's face finder on the passport photo, at the checks' size.
    const passport = journeyImages().document_front;
    const faces = await analyseFaces(passport, { maxSide: PORTRAIT_MAX_SIDE });
    assert.ok(faces.length >= 1, 'the passport photo has a portrait');
    const box = relativeBox(faces[0]);
    await setPieceFaceBox(t.database.db, byKind.document_front, box);

    t.clock.advance(1000);
    const res = await t.asOperator(reviewer, 'GET', url);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.equal(res.headers['content-type'], 'image/jpeg');
    const meta = await sharp(res.rawPayload).metadata();
    assert.ok(Math.max(meta.width, meta.height) <= 480, `${meta.width}x${meta.height}`);
    assert.ok(Math.abs(meta.width / meta.height - 0.8) < 0.05, `a portrait's 4:5: ${meta.width}x${meta.height}`);
    const inCrop = await analyseFaces(new Uint8Array(res.rawPayload));
    assert.equal(inCrop.length, 1, 'one face in the cut');
    assert.ok(inCrop[0].relativeSize > 0.35, `the face fills the portrait (${inCrop[0].relativeSize})`);
    // The same person: the face in the cut is the one on the document.
    const distance = Math.hypot(...inCrop[0].descriptor.map((v, i) => v - faces[0].descriptor[i]));
    assert.ok(distance < 0.6, `same face (distance ${distance})`);
    assert.deepEqual((await downloads()).at(-1)!.detail.view, 'portrait');

    // The case route (record screen) gives the same views (later: journal entries sort by time).
    t.clock.advance(1000);
    const viaCase = await t.asOperator(reviewer, 'GET', `/v1/cases/${caseId}/pieces/${byKind.document_front}?view=portrait`);
    assert.equal(viaCase.statusCode, 200);
    assert.equal((await downloads()).at(-1)!.detail.via, 'piece');
  });

  test('refusals: a portrait of a selfie, an unknown view, another piece’s key class untouched', async () => {
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const selfie = await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}/pieces/${byKind.selfie}?view=portrait`);
    assert.equal(selfie.statusCode, 422);
    assert.deepEqual([errorOf(selfie).code, errorOf(selfie).field], ['parameter_invalid', 'view']);
    const unknown = await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}/pieces/${byKind.selfie}?view=huge`);
    assert.equal(unknown.statusCode, 422);
    assert.deepEqual([errorOf(unknown).code, errorOf(unknown).field], ['parameter_invalid', 'view']);
    const extra = await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}/pieces/${byKind.selfie}?size=9000`);
    assert.equal(extra.statusCode, 422);
    assert.equal(errorOf(extra).code, 'parameter_unknown');
    // Out of the clearance: as missing, whatever the view.
    const elsewhere = await addOperator(t, { role: 'reviewer', countries: ['DE'] });
    const hidden = await t.asOperator(elsewhere, 'GET', `/v1/reviews/${taskId}/pieces/${byKind.selfie}?view=thumbnail`);
    assert.equal(hidden.statusCode, 404);
    // A support account has no task route at all.
    const support = await addOperator(t, { role: 'support' });
    const refused = await t.asOperator(support, 'GET', `/v1/reviews/${taskId}/pieces/${byKind.selfie}?view=thumbnail`);
    assert.equal(refused.statusCode, 403);
    assert.equal(errorOf(refused).code, 'operator_role_insufficient');
  });

  test('an image erased: every view answers 410 piece_unavailable', async () => {
    const reviewer = await addOperator(t, { role: 'reviewer' });
    await t.database.db.execute(sql`UPDATE pieces SET deleted_at = now() WHERE id = ${byKind.liveness_turn_left}`);
    const res = await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}/pieces/${byKind.liveness_turn_left}?view=thumbnail`);
    assert.equal(res.statusCode, 410);
    assert.equal(errorOf(res).code, 'piece_unavailable');
  });
});
