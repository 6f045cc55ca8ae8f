import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { queryRows, schema } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { errorOf, JOURNEY_URL } from '../helpers/app.ts';
import { otherClient } from '../helpers/tenants.ts';
import {
  IMAGES,
  activateFlow,
  allowStills,
  STANDARD_WITH_STILLS,
  fillStandardSteps,
  fixture,
  journey,
  newSession,
  openCase,
  startJourneyApp,
  type JourneyTestApp,
} from '../helpers/journey.ts';
import { pieceBlobs } from '@idv/case-data';

let t: JourneyTestApp;
before(async () => {
  t = await startJourneyApp();
  // The journey's routes, not liveness, are this file's subject: its stills need a flow that takes them.
  await allowStills(t);
  const strict: FlowDefinition = { ...STANDARD_WITH_STILLS, documents: [{ country: 'FR', types: ['id_card'] }] };
  const lean: FlowDefinition = { ...STANDARD_FLOW, steps: ['consent', 'document'], capture: { allow_file_upload: false } };
  await activateFlow(t, t.demo.client_id, 'sandbox', 'strict', strict);
  await activateFlow(t, t.demo.client_id, 'sandbox', 'lean', lean);
});
after(() => t.close());

const caseRead = async (id: string) => (await t.request('GET', `/v1/cases/${id}`)).json();
/** Journal actions of a case, sorted (the test clock stands still, so ids of one millisecond do not tell the order). */
const journalOf = async (caseId: string) =>
  (await t.database.db.select().from(schema.caseJournal).where(eq(schema.caseJournal.caseId, caseId))).map((j) => j.action).sort();
const kinds = (pieces: { kind: string }[]) => pieces.map((p) => p.kind).sort();
const put = (token: string, kind: string, bytes: Buffer, contentType?: string) => journey(t, 'PUT', `/pieces/${kind}`, token, { bytes, contentType });

async function wholeDatabaseText(): Promise<string> {
  const tables = await queryRows<{ table_name: string }>(
    t.database.db,
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await queryRows<{ r: string }>(t.database.db, sql`SELECT row_to_json(x)::text AS r FROM ${sql.identifier(table_name)} x`);
    parts.push(...rows.map((row) => row.r));
  }
  return parts.join('\n');
}

function blobFiles(): string[] {
  const root = join(t.dataDir, 'blobs');
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  try {
    walk(root);
  } catch {
    // no blob yet
  }
  return out;
}

describe('session token authentication', () => {
  test('missing, malformed, unknown and expired tokens; API keys and session tokens are not interchangeable', async () => {
    const caseId = await openCase(t);
    const token = await newSession(t, caseId);

    let res = await journey(t, 'GET', '', null);
    assert.equal(res.statusCode, 401);
    assert.equal(errorOf(res).code, 'session_token_missing');
    res = await journey(t, 'GET', '', null, { headers: { authorization: `Bearer ${t.demoKey.secret}` } });
    assert.equal(errorOf(res).code, 'session_token_invalid', 'an API key does not open the journey');
    res = await journey(t, 'GET', '', 'A'.repeat(43));
    assert.equal(res.statusCode, 401);
    assert.equal(errorOf(res).code, 'session_token_invalid');
    res = await t.request('GET', '/v1/cases', { key: null, headers: { authorization: `Session ${token}` } });
    assert.equal(errorOf(res).code, 'api_key_invalid', 'a session token does not open the API');
    res = await journey(t, 'GET', `?token=${token}`, null);
    assert.equal(errorOf(res).code, 'session_token_missing', 'never a token in the query string');

    const start = t.clock.now();
    t.clock.advance(3_600_000 + 1000);
    try {
      res = await journey(t, 'GET', '', token);
      assert.equal(res.statusCode, 401);
      const err = errorOf(res);
      assert.equal(err.code, 'session_expired');
      assert.equal(err.message.includes(caseId), false);
    } finally {
      t.clock.set(start);
    }
  });

  test('CORS: only the journey origin, preflight answered without a route', async () => {
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/sessions/current/pieces/selfie',
      headers: { origin: JOURNEY_URL, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization,content-type' },
    });
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], JOURNEY_URL);
    assert.match(String(pre.headers['access-control-allow-methods']), /PUT/);
    assert.match(String(pre.headers['access-control-allow-headers']), /authorization/);
    const foreign = await t.app.inject({ method: 'OPTIONS', url: '/v1/sessions/current', headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.headers['access-control-allow-origin'], undefined);
    const token = await newSession(t, await openCase(t));
    const res = await journey(t, 'GET', '', token, { headers: { origin: JOURNEY_URL } });
    assert.equal(res.headers['access-control-allow-origin'], JOURNEY_URL);
    const api = await t.app.inject({ method: 'GET', url: '/v1/cases', headers: { origin: JOURNEY_URL, authorization: `Bearer ${t.demoKey.secret}` } });
    assert.equal(api.headers['access-control-allow-origin'], undefined, 'client routes are not opened to browsers');
  });
});

describe('the journey state', () => {
  test('the first call moves the case to collecting; texts in the session language; no personal data', async () => {
    const caseId = await openCase(t, { flow_name: 'standard', country: 'DE', declared: { surname: 'Mustermann', given_names: 'Erika' } });
    assert.equal((await caseRead(caseId)).status, 'created');
    const token = await newSession(t, caseId, 'fr');
    const res = await journey(t, 'GET', '', token);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.status, 'open');
    assert.equal(body.locale, 'fr');
    assert.equal(body.step, 'consent');
    assert.deepEqual(body.steps, ['consent', 'applicant', 'questionnaire', 'document', 'face']);
    assert.equal(body.questionnaire.questions[0].label, 'Quelle est l’origine principale des fonds que vous utiliserez ?');
    assert.equal(body.questionnaire.questions[1].answers[1].label, 'Oui');
    assert.equal(JSON.stringify(body).includes('points'), false, 'the person does not see the scoring');
    assert.equal(body.document.case_country, 'DE');
    assert.deepEqual(body.document.types_for_case_country, ['passport', 'id_card', 'driving_licence', 'residence_permit']);
    assert.deepEqual(body.face.challenges, ['turn_left', 'turn_right']);
    assert.equal(body.capture.allow_file_upload, true);
    assert.equal(body.limits.max_bytes, 10 * 1024 * 1024);
    assert.equal(res.body.includes('Mustermann'), false, 'what the client declared is not shown');
    const read = await caseRead(caseId);
    assert.equal(read.status, 'collecting');
    assert.equal(read.state, 'awaiting_applicant');
    assert.deepEqual(await journalOf(caseId), ['case.created', 'journey.started', 'session.created']);
    await journey(t, 'GET', '', token);
    assert.deepEqual(await journalOf(caseId), ['case.created', 'journey.started', 'session.created'], 'started once');
  });
});

describe('a whole journey', () => {
  test('consent, applicant, questionnaire, document, sides, selfie, challenges, finish: the case reaches processing with every piece stored sealed', async () => {
    const caseId = await openCase(t);
    const token = await newSession(t, caseId);
    await fillStandardSteps(t, token);
    let state = (await journey(t, 'GET', '', token)).json();
    assert.equal(state.step, 'document');
    assert.equal(state.consent.given, true);
    assert.equal(state.applicant.done, true);
    assert.equal(state.questionnaire.done, true);

    let res = await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'id_card' } });
    assert.equal(res.statusCode, 200, res.body);
    state = res.json();
    assert.deepEqual(state.document.chosen, { country: 'FR', type: 'id_card' });
    assert.deepEqual(state.document.sides, ['document_front', 'document_back']);
    // The live sequence is asked (liveness_frame); where the flow allows stills, one per movement completes the face step.
    assert.deepEqual(state.required_pieces, ['document_front', 'document_back', 'selfie', 'liveness_frame']);

    const images: Record<string, Buffer> = {
      document_front: fixture(IMAGES.idFront),
      document_back: fixture(IMAGES.idBack),
      selfie: fixture(IMAGES.selfie),
      liveness_turn_left: fixture(IMAGES.turnLeft),
      liveness_turn_right: await sharp(fixture(IMAGES.turnRight)).webp().toBuffer(),
    };
    res = await journey(t, 'POST', '/finish', token);
    assert.equal(res.statusCode, 409);
    assert.equal(errorOf(res).code, 'journey_incomplete');
    assert.match(errorOf(res).message, /document_front, document_back, selfie, liveness_frame/);

    for (const [kind, bytes] of Object.entries(images)) {
      res = await put(token, kind, bytes, 'application/octet-stream');
      assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
      if (kind === 'document_back') assert.equal(res.json().step, 'face');
    }
    state = res.json();
    assert.equal(state.step, 'check');
    assert.deepEqual(state.missing, []);
    assert.deepEqual(kinds(state.pieces), Object.keys(images).sort());

    res = await journey(t, 'POST', '/finish', token);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'completed');
    assert.equal(res.json().step, null);

    const read = await caseRead(caseId);
    assert.equal(read.status, 'processing');
    assert.equal(read.state, 'processing');
    assert.deepEqual(kinds(read.pieces), Object.keys(images).sort());
    for (const p of read.pieces) {
      assert.match(p.id, /^pc_[0-9a-z]{26}$/);
      assert.equal(p.available, true);
    }
    const results = (await t.request('GET', `/v1/cases/${caseId}/results`)).json();
    assert.deepEqual(results.pieces, read.pieces);
    const listed = (await t.request('GET', `/v1/cases?q=${caseId}`)).json();
    assert.deepEqual(listed.data[0].pieces, read.pieces);

    // Stored: sealed blobs under the right key class, opened back to the exact bytes; the database
    // holds a keyed fingerprint, never a plain hash, and nothing entered in clear.
    const rows = await t.database.db.select().from(schema.pieces).where(eq(schema.pieces.caseId, caseId));
    const blobs = pieceBlobs(t.ctx);
    for (const row of rows) {
      const original = images[row.kind];
      assert.equal(row.keyClass, row.kind.startsWith('document_') ? 'data' : 'biometric');
      assert.equal(row.sizeBytes, original.length);
      assert.deepEqual(await blobs.read(t.database.db, row), original);
      const meta = await sharp(original).metadata();
      assert.deepEqual([row.width, row.height], [meta.width, meta.height]);
      assert.equal(row.contentType, row.kind === 'liveness_turn_right' ? 'image/webp' : row.kind === 'document_back' ? 'image/png' : 'image/jpeg');
      assert.match(row.contentHmac, /^v1\.[0-9a-f]{12}\.[0-9a-f]{64}$/);
      assert.equal(row.contentHmac.includes(createHash('sha256').update(original).digest('hex')), false, 'not a plain sha256');
    }
    const files = blobFiles();
    assert.equal(files.filter((f) => rows.some((r) => f.endsWith(r.blobId))).length, rows.length);
    for (const row of rows) {
      const file = files.find((f) => f.endsWith(row.blobId))!;
      const onDisk = (await import('node:fs')).readFileSync(file);
      const original = images[row.kind];
      assert.equal(onDisk.includes(original.subarray(0, 64)), false, 'the blob is not the image in clear');
    }
    const all = await wholeDatabaseText();
    for (const secret of ['Hopper', 'Grace Brewster', '1906-12-09', 'grace@example.com']) {
      assert.equal(all.includes(secret), false, `${secret} is stored in clear`);
    }
    const [j] = await t.database.db.select().from(schema.journeys).where(eq(schema.journeys.caseId, caseId));
    assert.deepEqual(await t.ctx.vault.openJson(t.database.db, caseId, 'data', 'applicant', j.applicantSealed!), {
      given_names: 'Grace Brewster',
      surname: 'Hopper',
      birth_date: '1906-12-09',
      email: 'grace@example.com',
    });
    assert.deepEqual(j.questionnaireScore, { points: 0, flags: [] });
    assert.deepEqual(
      await journalOf(caseId),
      [
        'case.created',
        'session.created',
        'journey.started',
        'journey.consent_given',
        'journey.applicant_entered',
        'journey.questionnaire_answered',
        'journey.document_chosen',
        ...Array(5).fill('journey.piece_received'),
        'journey.submitted',
      ].sort(),
    );

    // Nothing more is accepted; the state says completed (the app shows its last screen).
    res = await put(token, 'selfie', images.selfie);
    assert.equal(res.statusCode, 409);
    assert.equal(errorOf(res).code, 'journey_closed');
    assert.equal((await journey(t, 'GET', '', token)).json().status, 'completed');
  });

  test('resumes where the person left it with a new session, and a retake replaces the piece (its blob deleted)', async () => {
    const caseId = await openCase(t);
    const first = await newSession(t, caseId, 'de');
    await fillStandardSteps(t, first);
    await journey(t, 'POST', '/document', first, { body: { country: 'FR', type: 'passport' } });
    assert.equal((await put(first, 'document_front', fixture(IMAGES.passport))).statusCode, 200);
    const one = await put(first, 'selfie', fixture(IMAGES.selfie));
    const selfieId = one.json().pieces.find((p: { kind: string }) => p.kind === 'selfie').id;

    const second = await newSession(t, caseId, 'es');
    const state = (await journey(t, 'GET', '', second)).json();
    assert.equal(state.step, 'face', 'resumes at the face step');
    assert.equal(state.locale, 'es');
    assert.deepEqual(state.document.chosen, { country: 'FR', type: 'passport' });
    assert.deepEqual(state.missing, ['liveness_frame']);

    // The same bytes again (a retried upload): nothing new.
    const again = await put(second, 'selfie', fixture(IMAGES.selfie));
    assert.equal(again.json().pieces.find((p: { kind: string }) => p.kind === 'selfie').id, selfieId);
    // A retake: the new piece replaces the old one, whose blob is deleted.
    const retake = await put(second, 'selfie', await sharp(fixture(IMAGES.selfie)).flop().jpeg().toBuffer());
    const newId = retake.json().pieces.find((p: { kind: string }) => p.kind === 'selfie').id;
    assert.notEqual(newId, selfieId);
    assert.equal(blobFiles().some((f) => f.endsWith(selfieId)), false);
    const [old] = await t.database.db.select().from(schema.pieces).where(eq(schema.pieces.id, selfieId));
    assert.ok(old.supersededAt && old.deletedAt);
    assert.deepEqual((await caseRead(caseId)).pieces.map((p: { id: string }) => p.id).includes(selfieId), false);

    // Changing the document drops the sides of the previous one.
    const changed = (await journey(t, 'POST', '/document', second, { body: { country: 'FR', type: 'id_card' } })).json();
    assert.equal(changed.step, 'document');
    assert.deepEqual(changed.missing, ['document_front', 'document_back', 'liveness_frame']);
  });
});

describe('order and validation', () => {
  test('consent comes first; sides come after the document choice and only those of its type', async () => {
    const token = await newSession(t, await openCase(t));
    let res = await journey(t, 'POST', '/applicant', token, { body: { given_names: 'A', surname: 'B', birth_date: '1990-01-01' } });
    assert.equal(res.statusCode, 409);
    assert.deepEqual([errorOf(res).code, errorOf(res).field], ['journey_step_blocked', 'consent']);
    await journey(t, 'POST', '/consent', token, { body: { accepted: true } });
    res = await put(token, 'document_front', fixture(IMAGES.passport));
    assert.equal(res.statusCode, 409);
    assert.equal(errorOf(res).code, 'document_not_chosen');
    await journey(t, 'POST', '/document', token, { body: { country: 'BE', type: 'passport' } });
    res = await put(token, 'document_back', fixture(IMAGES.idBack));
    assert.equal(res.statusCode, 422);
    assert.deepEqual([errorOf(res).code, errorOf(res).field], ['piece_not_expected', 'kind']);
    res = await put(token, 'liveness_look_up', fixture(IMAGES.selfie));
    assert.equal(errorOf(res).code, 'piece_not_expected', 'the standard flow asks left and right only');
    res = await put(token, 'portrait', fixture(IMAGES.selfie));
    assert.equal(res.statusCode, 422);
    assert.equal(errorOf(res).code, 'parameter_invalid');
  });

  test('entered data and answers are validated against the flow', async () => {
    const token = await newSession(t, await openCase(t));
    await journey(t, 'POST', '/consent', token, { body: { accepted: true } });
    const bad: [unknown, string][] = [
      [{ given_names: 'A', surname: 'B', birth_date: '1990-02-31' }, 'birth_date'],
      [{ given_names: 'A', birth_date: '1990-01-01' }, 'surname'],
      [{ given_names: 'A', surname: 'B', birth_date: '1990-01-01', phone: '+33 6 12 34 56 78' }, 'phone'],
      [{ given_names: 'A', surname: 'B', birth_date: '1990-01-01', email: 'nope' }, 'email'],
      [{ given_names: 'Anne\u202E', surname: 'B', birth_date: '1990-01-01' }, 'given_names'],
      [{ given_names: 'A', surname: '\u2066B\u2069', birth_date: '1990-01-01' }, 'surname'],
    ];
    for (const [body, field] of bad) {
      const res = await journey(t, 'POST', '/applicant', token, { body });
      assert.equal(res.statusCode, 422, JSON.stringify(body));
      const err = errorOf(res);
      assert.deepEqual([err.code, err.field], ['parameter_invalid', field]);
      assert.equal(err.message.includes('1990'), false, 'the value is not echoed back');
    }
    let res = await journey(t, 'POST', '/questionnaire', token, { body: { answers: { source_of_funds: 'lottery', politically_exposed: 'no' } } });
    assert.deepEqual([errorOf(res).code, errorOf(res).field], ['parameter_invalid', 'answers.source_of_funds']);
    res = await journey(t, 'POST', '/questionnaire', token, { body: { answers: { source_of_funds: 'salary' } } });
    assert.deepEqual([errorOf(res).code, errorOf(res).field], ['parameter_invalid', 'answers.politically_exposed']);
    res = await journey(t, 'POST', '/questionnaire', token, { body: { answers: { source_of_funds: 'other', politically_exposed: 'yes' } } });
    assert.equal(res.statusCode, 200);
    res = await journey(t, 'POST', '/consent', token, { body: { accepted: true, extra: 1 } });
    assert.deepEqual([errorOf(res).code, errorOf(res).field], ['parameter_unknown', 'extra']);
  });

  test('a document type or country the flow does not accept: 422 unsupported_document_type on subject', async () => {
    const token = await newSession(t, await openCase(t, { flow_name: 'strict', country: 'FR' }));
    await journey(t, 'POST', '/consent', token, { body: { accepted: true } });
    const state = (await journey(t, 'GET', '', token)).json();
    assert.deepEqual(state.document.types_for_case_country, ['id_card']);
    for (const body of [{ country: 'FR', type: 'passport' }, { country: 'DE', type: 'id_card' }, { country: 'ZZ', type: 'id_card' }]) {
      const res = await journey(t, 'POST', '/document', token, { body });
      assert.equal(res.statusCode, 422, JSON.stringify(body));
      const err = errorOf(res);
      assert.deepEqual([err.code, err.field], ['unsupported_document_type', 'subject']);
    }
    const res = await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'selfie_stick' } });
    assert.deepEqual([errorOf(res).code, errorOf(res).field], ['parameter_invalid', 'type']);
    assert.equal((await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'id_card' } })).statusCode, 200);
  });

  test('a flow without some steps does not accept them; file input only where the flow allows it outside the sandbox', async () => {
    const token = await newSession(t, await openCase(t, { flow_name: 'lean', country: 'FR' }));
    const state = (await journey(t, 'GET', '', token)).json();
    assert.deepEqual(state.steps, ['consent', 'document']);
    assert.equal(state.capture.allow_file_upload, true, 'always in the sandbox');
    await journey(t, 'POST', '/consent', token, { body: { accepted: true } });
    let res = await journey(t, 'POST', '/applicant', token, { body: { given_names: 'A', surname: 'B', birth_date: '1990-01-01' } });
    assert.deepEqual([res.statusCode, errorOf(res).code], [409, 'journey_step_not_asked']);
    await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'passport' } });
    res = await put(token, 'selfie', fixture(IMAGES.selfie));
    assert.equal(errorOf(res).code, 'journey_step_not_asked');
    res = await put(token, 'document_front', fixture(IMAGES.passport));
    assert.equal(res.json().step, 'check');
    assert.equal((await journey(t, 'POST', '/finish', token)).json().status, 'completed');
  });

  test('declining ends the journey: the case is abandoned and nothing more is accepted', async () => {
    const caseId = await openCase(t);
    const token = await newSession(t, caseId);
    const res = await journey(t, 'POST', '/consent', token, { body: { accepted: false } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'declined');
    assert.equal((await caseRead(caseId)).status, 'abandoned');
    const again = await journey(t, 'POST', '/consent', token, { body: { accepted: true } });
    assert.deepEqual([again.statusCode, errorOf(again).code], [409, 'journey_closed']);
    assert.equal((await journey(t, 'GET', '', token)).json().status, 'declined');
    assert.ok((await journalOf(caseId)).includes('journey.declined'));
  });
});

describe('upload limits', () => {
  let token: string;
  before(async () => {
    token = await newSession(t, await openCase(t));
    await journey(t, 'POST', '/consent', token, { body: { accepted: true } });
    await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'id_card' } });
  });

  test('larger than 10 MB: 413 image_too_large, whatever Content-Length says', async () => {
    // Random pixels do not compress: a real PNG of about 11.5 MB within the pixel bounds.
    const noise = Buffer.alloc(2000 * 1900 * 3);
    for (let i = 0; i < noise.length; i += 4) noise.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, Math.min(i, noise.length - 4));
    const big = await sharp(noise, { raw: { width: 2000, height: 1900, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
    assert.ok(big.length > 10 * 1024 * 1024);
    const res = await put(token, 'selfie', big, 'image/png');
    assert.equal(res.statusCode, 413);
    assert.equal(errorOf(res).code, 'image_too_large');
    // A chunked body without Content-Length is cut at the limit too.
    const { Readable } = await import('node:stream');
    const chunked = await t.app.inject({
      method: 'PUT',
      url: '/v1/sessions/current/pieces/selfie',
      headers: { authorization: `Session ${token}`, 'content-type': 'image/png', 'transfer-encoding': 'chunked' },
      payload: Readable.from([big.subarray(0, 6_000_000), big.subarray(6_000_000)]),
    });
    assert.equal(chunked.statusCode, 413);
    assert.equal(errorOf(chunked).code, 'image_too_large');
  });

  test('type from the bytes, not the name or Content-Type: GIF, PDF, text and HEIC refused; a JPEG sent as text/plain accepted', async () => {
    const gif = await sharp(fixture(IMAGES.selfie)).gif().toBuffer();
    const refused: [Buffer, string][] = [
      [gif, 'image/jpeg'],
      [Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n'), 'image/jpeg'],
      [Buffer.from('hello, not an image'), 'image/png'],
      [Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic'), Buffer.alloc(4), Buffer.from('mif1heic'), Buffer.alloc(64)]), 'image/heic'],
    ];
    for (const [bytes, type] of refused) {
      const res = await put(token, 'selfie', bytes, type);
      assert.equal(res.statusCode, 415, res.body);
      assert.equal(errorOf(res).code, 'image_type_unsupported');
    }
    const empty = await put(token, 'selfie', Buffer.alloc(0));
    assert.equal(errorOf(empty).code, 'image_type_unsupported');
    const ok = await put(token, 'selfie', fixture(IMAGES.selfie), 'text/plain');
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test('pixel bounds: too small, too long a side, and a decompression bomb refused from its header', async () => {
    for (const path of [IMAGES.tiny, IMAGES.smallFace]) {
      const res = await put(token, 'liveness_turn_left', fixture(path));
      assert.equal(res.statusCode, 422);
      const err = errorOf(res);
      assert.equal(err.code, 'image_dimensions_invalid');
      assert.match(err.message, /at least 480×320/);
    }
    const long = await sharp({ create: { width: 9000, height: 400, channels: 3, background: '#777' } }).jpeg().toBuffer();
    let res = await put(token, 'liveness_turn_left', long);
    assert.deepEqual([res.statusCode, errorOf(res).code], [422, 'image_dimensions_invalid']);
    // A 1000×1000 PNG whose header claims 8000×8000 (64 megapixels).
    const png = await sharp({ create: { width: 1000, height: 1000, channels: 3, background: '#777' } }).png().toBuffer();
    const bomb = Buffer.from(png);
    bomb.writeUInt32BE(8000, 16);
    bomb.writeUInt32BE(8000, 20);
    const { crc32 } = await import('node:zlib');
    bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)) >>> 0, 29);
    res = await put(token, 'liveness_turn_left', bomb, 'image/png');
    assert.equal(res.statusCode, 422);
    assert.equal(errorOf(res).code, 'image_dimensions_invalid');
    assert.match(errorOf(res).message, /megapixels/);
  });

  test('a truncated image: 422 image_unreadable', async () => {
    const photo = fixture(IMAGES.passport);
    const res = await put(token, 'document_front', photo.subarray(0, Math.floor(photo.length * 0.6)));
    assert.equal(res.statusCode, 422);
    assert.equal(errorOf(res).code, 'image_unreadable');
  });

  test('count per kind: ten images of a kind over the case, then 409 piece_limit_reached', async () => {
    const base = fixture(IMAGES.turnLeft);
    for (let i = 0; i < 10; i++) {
      const variant = await sharp(base).modulate({ brightness: 1 + i / 50 }).jpeg({ quality: 80 }).toBuffer();
      const res = await put(token, 'liveness_turn_left', variant);
      assert.equal(res.statusCode, 200, `upload ${i + 1}: ${res.body}`);
    }
    const res = await put(token, 'liveness_turn_left', await sharp(base).negate().jpeg().toBuffer());
    assert.equal(res.statusCode, 409);
    assert.deepEqual([errorOf(res).code, errorOf(res).field], ['piece_limit_reached', 'kind']);
    const rows = await t.database.db.select().from(schema.pieces).where(eq(schema.pieces.kind, 'liveness_turn_left'));
    assert.equal(rows.filter((r) => !r.supersededAt && r.sessionId).length >= 1, true);
    assert.equal(blobFiles().filter((f) => rows.some((r) => r.supersededAt && f.endsWith(r.blobId))).length, 0, 'replaced blobs deleted');
  });
});

describe('resubmission', () => {
  test('after a resubmission decision the next round asks only the named steps, then the case goes back to processing', async () => {
    const caseId = await openCase(t);
    const token = await newSession(t, caseId);
    await fillStandardSteps(t, token);
    await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'passport' } });
    for (const [kind, path] of [
      ['document_front', IMAGES.passport],
      ['selfie', IMAGES.selfie],
      ['liveness_turn_left', IMAGES.turnLeft],
      ['liveness_turn_right', IMAGES.turnRight],
    ] as const) {
      assert.equal((await put(token, kind, fixture(path))).statusCode, 200);
    }
    assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 200);
    await t.database.db
      .update(schema.cases)
      .set({ state: 'resubmission_requested', status: 'collecting', resubmission: { steps: ['face'] } })
      .where(eq(schema.cases.id, caseId));

    const again = await newSession(t, caseId);
    const state = (await journey(t, 'GET', '', again)).json();
    assert.equal(state.status, 'open');
    assert.equal(state.round, 2);
    assert.deepEqual(state.steps, ['face']);
    assert.equal(state.step, 'face');
    assert.deepEqual(state.required_pieces, ['selfie', 'liveness_frame']);
    assert.equal((await put(again, 'document_front', fixture(IMAGES.passport))).statusCode, 409, 'the document is not asked again');
    for (const [kind, path] of [
      ['selfie', IMAGES.selfie],
      ['liveness_turn_left', IMAGES.turnLeft],
      ['liveness_turn_right', IMAGES.turnRight],
    ] as const) {
      assert.equal((await put(again, kind, fixture(path))).statusCode, 200);
    }
    const done = await journey(t, 'POST', '/finish', again);
    assert.equal(done.statusCode, 200, done.body);
    const read = await caseRead(caseId);
    assert.equal(read.state, 'processing');
    assert.equal(read.resubmission, null);
    assert.equal(read.pieces.length, 7, 'both rounds are listed');
    assert.ok((await journalOf(caseId)).includes('journey.round_started'));
  });
});

describe('journey embedding', () => {
  test('GET is empty until set; POST is signed, idempotent, normalised and journaled; the journey reads its own client list', async () => {
    let res = await t.request('GET', '/v1/journey-embedding');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { object: 'journey_embedding', origins: [], updated_at: null });

    const unsigned = await t.request('POST', '/v1/journey-embedding', { body: { origins: ['https://shop.example.com'] } });
    assert.equal(errorOf(unsigned).code, 'signature_missing');

    const body = { origins: ['https://Shop.Example.com:443', 'http://127.0.0.1:5173', 'https://shop.example.com'] };
    res = await t.request('POST', '/v1/journey-embedding', { signed: true, body, idempotencyKey: 'embedding-0001' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().origins, ['https://shop.example.com', 'http://127.0.0.1:5173']);
    const replay = await t.request('POST', '/v1/journey-embedding', { signed: true, body, idempotencyKey: 'embedding-0001' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), res.json());
    assert.deepEqual((await t.request('GET', '/v1/journey-embedding')).json().origins, ['https://shop.example.com', 'http://127.0.0.1:5173']);
    const journal = await t.database.db.select().from(schema.clientJournal).where(eq(schema.clientJournal.action, 'journey_embedding.updated'));
    assert.equal(journal.length, 1, 'a replay is not journaled twice');
    assert.equal(journal[0].actor, `key:${t.demoKey.id}`);
    assert.deepEqual(journal[0].detail.added, ['https://shop.example.com', 'http://127.0.0.1:5173']);

    const token = await newSession(t, await openCase(t));
    const frame = (await journey(t, 'GET', '/embedding', token)).json();
    assert.deepEqual(frame, {
      object: 'journey_frame',
      origins: ['https://shop.example.com', 'http://127.0.0.1:5173'],
      frame_path: `/embed/${t.demo.client_id}/sandbox`,
    });
    // Nothing outlives the link it came from: an expired link learns nothing of its client's frame,
    // answered as every other journey route answers it.
    const start = t.clock.now();
    t.clock.advance(3_600_000 + 1000);
    try {
      assert.equal((await journey(t, 'GET', '', token)).statusCode, 401);
      const expired = await journey(t, 'GET', '/embedding', token);
      assert.deepEqual([expired.statusCode, errorOf(expired).code], [401, 'session_expired'], expired.body);
    } finally {
      t.clock.set(start);
    }
    assert.equal((await journey(t, 'GET', '/embedding', 'B'.repeat(43))).statusCode, 401, 'an unknown token still gets nothing');
    // Another client's list is its own.
    const other = await otherClient(t);
    const otherToken = await newSession(t, await openCase(t, undefined, other.key), 'en', other.key);
    assert.deepEqual((await journey(t, 'GET', '/embedding', otherToken)).json().origins, []);
    assert.deepEqual((await t.request('GET', '/v1/journey-embedding', { key: other.key })).json().origins, []);
  });

  test('only a key trusted with personal data (or an administrator in the console) lets a new site frame the journey', async () => {
    const before = (await t.request('GET', '/v1/journey-embedding')).json().origins;
    for (const permissions of [[], ['decisions']]) {
      const made = (await t.request('POST', '/v1/api-keys', { body: { permissions } })).json();
      const key = { id: made.id, secret: made.secret, signingSecret: made.signing_secret };
      const res = await t.request('POST', '/v1/journey-embedding', { signed: true, key, body: { origins: ['https://evil.example.com'] } });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(errorOf(res).code, 'permission_denied');
      assert.deepEqual((await t.request('GET', '/v1/journey-embedding', { key })).json().origins, before, 'nothing changed; reading stays open');
    }
    const made = (await t.request('POST', '/v1/api-keys', { body: { permissions: ['personal_data'] } })).json();
    const trusted = { id: made.id, secret: made.secret, signingSecret: made.signing_secret };
    const res = await t.request('POST', '/v1/journey-embedding', { signed: true, key: trusted, body: { origins: before } });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('422 beyond twenty origins, or for a path, query, fragment, wildcard or scheme', async () => {
    const twentyOne = Array.from({ length: 21 }, (_, i) => `https://s${i}.example.com`);
    let res = await t.request('POST', '/v1/journey-embedding', { signed: true, body: { origins: twentyOne } });
    assert.equal(res.statusCode, 422);
    assert.equal(errorOf(res).field, 'origins');
    const bad = ['https://example.com/', 'https://example.com/embed', 'https://example.com?a=1', 'https://example.com#x', 'https://*.example.com', 'javascript://x', 'example.com'];
    for (const origin of bad) {
      res = await t.request('POST', '/v1/journey-embedding', { signed: true, body: { origins: ['https://ok.example.com', origin] } });
      assert.equal(res.statusCode, 422, origin);
      const err = errorOf(res);
      assert.deepEqual([err.code, err.field], ['embedding_origin_invalid', 'origins.1'], origin);
    }
    res = await t.request('POST', '/v1/journey-embedding', { signed: true, body: { origins: Array.from({ length: 20 }, (_, i) => `https://s${i}.example.com`) } });
    assert.equal(res.statusCode, 200);
    res = await t.request('POST', '/v1/journey-embedding', { signed: true, body: { origins: [] } });
    assert.deepEqual(res.json().origins, [], 'an empty list: no page may frame the journey');
  });
});
