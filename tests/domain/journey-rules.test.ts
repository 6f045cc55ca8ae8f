import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  STANDARD_FLOW,
  dimensionProblem,
  documentChoiceProblem,
  missingItems,
  nextStep,
  normalizeOrigin,
  normalizeOrigins,
  pieceExpectation,
  pieceKeyClass,
  requiredPieces,
  sniffImageType,
  validateAnswers,
  validateApplicant,
  validateFlowDefinition,
  type FlowDefinition,
  type JourneyProgress,
} from '@idv/domain';

const empty: JourneyProgress = { consented: false, applicantDone: false, questionnaireDone: false, document: null, pieces: [], resubmission: null };
const flow = STANDARD_FLOW;

describe('journey steps', () => {
  test('steps come in the flow order; document sides follow the chosen type; face asks selfie then the live sequence (or, where the flow allows stills, each challenge\'s still)', () => {
    assert.equal(nextStep(flow, empty), 'consent');
    let p: JourneyProgress = { ...empty, consented: true };
    assert.equal(nextStep(flow, p), 'applicant');
    p = { ...p, applicantDone: true, questionnaireDone: true };
    assert.equal(nextStep(flow, p), 'document');
    assert.deepEqual(missingItems(flow, p), ['document_choice', 'selfie', 'liveness_frame']);
    p = { ...p, document: { country: 'FR', type: 'id_card' } };
    assert.deepEqual(requiredPieces(flow, p), ['document_front', 'document_back', 'selfie', 'liveness_frame']);
    p = { ...p, pieces: ['document_front'] };
    assert.equal(nextStep(flow, p), 'document', 'the back of an identity card is still missing');
    p = { ...p, document: { country: 'FR', type: 'passport' } };
    assert.equal(nextStep(flow, p), 'face', 'a passport has one side');
    assert.deepEqual(missingItems({ ...flow, liveness: { challenges: [] } }, { ...p, pieces: ['document_front'] }), ['selfie'], 'no movement: no sequence');
    p = { ...p, pieces: ['document_front', 'selfie', 'liveness_turn_left'] };
    assert.equal(nextStep(flow, p), 'face', 'one still of two');
    p = { ...p, pieces: ['document_front', 'selfie', 'liveness_frame'] };
    assert.equal(nextStep(flow, p), 'check', 'the live sequence');
    assert.deepEqual(missingItems(flow, p), []);
    p = { ...p, pieces: ['document_front', 'selfie', 'liveness_turn_left', 'liveness_turn_right'] };
    const stills = { ...flow, liveness: { ...flow.liveness, allow_stills: true } };
    assert.equal(nextStep(stills, p), 'check', 'every still, in a flow that allows stills');
    assert.deepEqual(missingItems(stills, p), []);
    assert.equal(nextStep(flow, p), 'face', 'stills do not complete the face step of a flow that refuses them');
    assert.deepEqual(missingItems(flow, p), ['liveness_frame']);
  });

  test('stills: refused by the standard flow and by a flow without the setting (face_sequence_required), accepted where allowed', () => {
    const p: JourneyProgress = { ...empty, consented: true, applicantDone: true, questionnaireDone: true, document: { country: 'FR', type: 'passport' } };
    assert.equal(STANDARD_FLOW.liveness.allow_stills, false, 'the standard flow says it');
    const older = { ...flow, liveness: { challenges: flow.liveness.challenges } };
    for (const def of [STANDARD_FLOW, older]) {
      const refused = pieceExpectation(def, p, 'liveness_turn_left');
      assert.equal(refused.ok === false && refused.code, 'face_sequence_required');
    }
    const allowed = { ...flow, liveness: { ...flow.liveness, allow_stills: true } };
    assert.equal(pieceExpectation(allowed, p, 'liveness_turn_left').ok, true);
    const notAsked = pieceExpectation(allowed, p, 'liveness_look_up');
    assert.equal(notAsked.ok === false && notAsked.code, 'piece_not_expected', 'a movement the flow does not ask is not expected, stills or not');
    assert.deepEqual(validateFlowDefinition(allowed), []);
    assert.deepEqual(validateFlowDefinition(older), []);
    assert.match(validateFlowDefinition({ ...flow, liveness: { ...flow.liveness, allow_stills: 'yes' } }).join('\n'), /\/liveness\/allow_stills/);
  });

  test('a resubmission round asks only the steps it names, without consent again', () => {
    const p: JourneyProgress = { ...empty, resubmission: ['face'] };
    assert.equal(nextStep(flow, p), 'face');
    assert.deepEqual(requiredPieces(flow, p), ['selfie', 'liveness_frame']);
    assert.equal(pieceExpectation(flow, p, 'document_front').ok, false);
    assert.equal(pieceExpectation(flow, p, 'selfie').ok, true);
    assert.equal(pieceExpectation({ ...flow, liveness: { ...flow.liveness, allow_stills: true } }, p, 'liveness_turn_left').ok, true, 'a still, where the flow allows stills');
    assert.equal(pieceExpectation(flow, p, 'liveness_frame').ok, false, 'frames come only with their challenge');
  });

  test('pieces: document sides only once the document is chosen, only those of its type, and the key class of each', () => {
    const chosen = (type: 'passport' | 'id_card'): JourneyProgress => ({ ...empty, consented: true, document: { country: 'DE', type } });
    const none = pieceExpectation(flow, empty, 'document_front');
    assert.equal(none.ok === false && none.code, 'document_not_chosen');
    const back = pieceExpectation(flow, chosen('passport'), 'document_back');
    assert.equal(back.ok === false && back.code, 'piece_not_expected');
    assert.equal(pieceExpectation(flow, chosen('id_card'), 'document_back').ok, true);
    const noLook = pieceExpectation(flow, chosen('id_card'), 'liveness_look_up');
    assert.equal(noLook.ok === false && noLook.code, 'piece_not_expected', 'the standard flow asks only left and right');
    assert.equal(pieceKeyClass('document_front'), 'data');
    assert.equal(pieceKeyClass('selfie'), 'biometric');
    assert.equal(pieceKeyClass('liveness_turn_left'), 'biometric');
  });

  test('a flow without face or questionnaire skips them', () => {
    const lean: FlowDefinition = { ...flow, steps: ['consent', 'document'] };
    const p: JourneyProgress = { ...empty, consented: true, document: { country: 'FR', type: 'passport' }, pieces: ['document_front'] };
    assert.equal(nextStep(lean, p), 'check');
    assert.deepEqual(requiredPieces(lean, p), ['document_front']);
  });
});

describe('entered data, answers, document choice', () => {
  const today = '2026-06-01';
  test('applicant: required fields, unknown fields, formats, trimmed values', () => {
    const ok = validateApplicant(flow, { given_names: ' Ada ', surname: 'Lovelace', birth_date: '1990-12-10', email: '' }, today);
    assert.deepEqual(ok, { ok: true, values: { given_names: 'Ada', surname: 'Lovelace', birth_date: '1990-12-10' } });
    const cases: [Record<string, unknown>, string][] = [
      [{ surname: 'L', birth_date: '1990-12-10' }, 'given_names'],
      [{ given_names: 'A', surname: 'L', birth_date: '1990-02-30' }, 'birth_date'],
      [{ given_names: 'A', surname: 'L', birth_date: '2030-01-01' }, 'birth_date'],
      [{ given_names: 'A', surname: 'L', birth_date: '1990-01-01', email: 'not-mail' }, 'email'],
      [{ given_names: 'A', surname: 'L', birth_date: '1990-01-01', phone: '+33 1 23 45 67 89' }, 'phone'],
      [{ given_names: 'A\nB', surname: 'L', birth_date: '1990-01-01' }, 'given_names'],
      [{ given_names: 'A'.repeat(201), surname: 'L', birth_date: '1990-01-01' }, 'given_names'],
      [{ given_names: 7, surname: 'L', birth_date: '1990-01-01' }, 'given_names'],
    ];
    for (const [input, field] of cases) {
      const r = validateApplicant(flow, input, today);
      assert.equal(r.ok, false, JSON.stringify(input));
      assert.equal(!r.ok && r.problem.field, field, JSON.stringify(input));
    }
  });

  test('answers: every question, known answers only; points and flags summed', () => {
    assert.deepEqual(validateAnswers(flow, { source_of_funds: 'other', politically_exposed: 'yes' }), { ok: true, points: 70, flags: ['funds_other', 'pep'] });
    const missing = validateAnswers(flow, { source_of_funds: 'salary' });
    assert.equal(!missing.ok && missing.problem.field, 'answers.politically_exposed');
    const wrong = validateAnswers(flow, { source_of_funds: 'lottery', politically_exposed: 'no' });
    assert.equal(!wrong.ok && wrong.problem.field, 'answers.source_of_funds');
    const extra = validateAnswers(flow, { source_of_funds: 'salary', politically_exposed: 'no', shoe_size: '42' });
    assert.equal(!extra.ok && extra.problem.field, 'answers.shoe_size');
  });

  test('document choice: country and type among those the flow accepts', () => {
    const strict: FlowDefinition = { ...flow, documents: [{ country: 'FR', types: ['id_card'] }] };
    assert.equal(documentChoiceProblem(strict, 'FR', 'id_card'), null);
    assert.match(documentChoiceProblem(strict, 'FR', 'passport')!, /id_card/);
    assert.match(documentChoiceProblem(strict, 'DE', 'id_card')!, /no document issued in DE/);
    assert.match(documentChoiceProblem(strict, 'XX', 'id_card')!, /ISO 3166/);
    assert.equal(documentChoiceProblem(flow, 'JP', 'passport'), null, '* accepts any country');
  });
});

describe('images', () => {
  test('type read from the first bytes', () => {
    const b = (...x: (number | string)[]) =>
      Uint8Array.from(x.flatMap((v) => (typeof v === 'string' ? [...v].map((c) => c.charCodeAt(0)) : [v])));
    assert.equal(sniffImageType(b(0xff, 0xd8, 0xff, 0xe0)), 'image/jpeg');
    assert.equal(sniffImageType(b(0x89, 'PNG', 0x0d, 0x0a, 0x1a, 0x0a)), 'image/png');
    assert.equal(sniffImageType(b('RIFF', 0, 0, 0, 0, 'WEBP')), 'image/webp');
    assert.equal(sniffImageType(b(0, 0, 0, 24, 'ftypheic', 0, 0, 0, 0, 'mif1heic')), 'image/heic');
    assert.equal(sniffImageType(b(0, 0, 0, 28, 'ftypavif', 0, 0, 0, 0, 'avifmif1miaf')), 'image/avif');
    assert.equal(sniffImageType(b('GIF89a')), null);
    assert.equal(sniffImageType(b('%PDF-1.7')), null);
    assert.equal(sniffImageType(b(0xff, 0xd8)), null, 'too short to tell');
  });

  test('pixel bounds', () => {
    assert.equal(dimensionProblem(1280, 720), null);
    assert.equal(dimensionProblem(480, 320), null);
    assert.match(dimensionProblem(479, 320)!, /at least/);
    assert.match(dimensionProblem(640, 300)!, /at least/);
    assert.match(dimensionProblem(9000, 1000)!, /at most/);
    assert.match(dimensionProblem(7000, 7000)!, /megapixels/);
  });
});

describe('embedding origins', () => {
  test('scheme and host (and port) only, in the browser form', () => {
    assert.deepEqual(normalizeOrigin('https://Shop.Example.com', 'prod'), { ok: true, origin: 'https://shop.example.com' });
    assert.deepEqual(normalizeOrigin('https://example.com:443', 'prod'), { ok: true, origin: 'https://example.com' });
    assert.deepEqual(normalizeOrigin('https://example.com:8443', 'prod'), { ok: true, origin: 'https://example.com:8443' });
    assert.deepEqual(normalizeOrigin('http://127.0.0.1:5173', 'sandbox'), { ok: true, origin: 'http://127.0.0.1:5173' });
    for (const bad of [
      'https://example.com/',
      'https://example.com/path',
      'https://example.com?x=1',
      'https://example.com#f',
      'https://user:pw@example.com',
      'https://*.example.com',
      'ftp://example.com',
      'example.com',
      'https://',
      `https://${'a'.repeat(300)}.com`,
    ]) {
      assert.equal(normalizeOrigin(bad, 'sandbox').ok, false, bad);
    }
    assert.equal(normalizeOrigin('http://example.com', 'prod').ok, false, 'https in production');
  });

  test('at most twenty; duplicates kept once', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `https://s${i}.example.com`);
    assert.equal(normalizeOrigins(twenty, 'prod').ok, true);
    assert.equal(normalizeOrigins([...twenty, 'https://x.example.com'], 'prod').ok, false);
    assert.deepEqual(normalizeOrigins(['https://a.com', 'https://A.com:443'], 'prod'), { ok: true, origins: ['https://a.com'] });
    const bad = normalizeOrigins(['https://a.com', 'https://b.com/x'], 'prod');
    assert.equal(!bad.ok && bad.index, 1);
  });
});
