import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { compareData, confirmedByPrintedZone, mrzReport, questionnaireReport, readIdentity, type MrzReading } from '@idv/engine';

const READ = readIdentity({
  document_code: 'P',
  issuing_country: 'D',
  document_number: 'C4J7K2P9X',
  surname: 'MUELLER LUEDENSCHEIDT',
  given_names: 'JOERG FRIEDRICH',
  nationality: 'D',
  birth_date: '1971-03-14',
  sex: 'M',
  expiry_date: '2031-01-01',
});

test('the identity read: ICAO codes as ISO alpha-2 (D is Germany), dates as read, empty fields left out', () => {
  assert.deepEqual(READ, {
    surname: 'MUELLER LUEDENSCHEIDT',
    given_names: 'JOERG FRIEDRICH',
    birth_date: '1971-03-14',
    document_number: 'C4J7K2P9X',
    nationality: 'DE',
    sex: 'M',
    document_expiry_date: '2031-01-01',
    issuing_country: 'DE',
    document_code: 'P',
  });
  assert.equal(readIdentity({ issuing_country: 'UTO', surname: '' }).issuing_country, 'UTO');
  assert.equal('surname' in readIdentity({ surname: '' }), false);
});

test('data comparison: accents, ß, hyphens and transliteration agree; a different birth date is subject_mismatch; counts only', () => {
  const declared = { surname: 'Müller-Lüdenscheidt', given_names: 'Jörg Friedrich', birth_date: '1971-03-14', nationality: 'DE' };
  const ok = compareData(declared, { surname: 'Mueller Luedenscheidt', given_names: 'Joerg Friedrich', birth_date: '1971-03-14' }, READ);
  assert.deepEqual(ok, { type: 'data_comparison', status: 'ok', reasons: [], measures: { fields_compared: 7, fields_mismatched: 0, fields_missing: 0, document_read: 1 } });
  const wrong = compareData(null, { surname: 'Müller-Lüdenscheidt', given_names: 'Jörg', birth_date: '1971-03-15' }, READ);
  assert.equal(wrong?.status, 'attention');
  assert.deepEqual(wrong?.reasons, ['subject_mismatch']);
  assert.equal(wrong?.measures.fields_mismatched, 2);
  assert.ok(!JSON.stringify(wrong).includes('1971'), 'no value in the report');
  const missing = compareData({ surname: 'Müller', nationality: 'DE' }, null, { surname: 'MULLER' });
  assert.deepEqual(missing?.reasons, ['subject_missing']);
});

test('data comparison: nothing compared is not a pass (an unread document leaves every field given missing); nothing given, no report', () => {
  const declared = { surname: 'Müller', birth_date: '1971-03-14' };
  assert.deepEqual(compareData(declared, null, null), {
    type: 'data_comparison',
    status: 'attention',
    reasons: ['subject_missing'],
    measures: { fields_compared: 0, fields_mismatched: 0, fields_missing: 2, document_read: 0 },
  });
  assert.equal(compareData(null, null, READ), null);
  assert.equal(compareData({}, null, null), null);
});

test('questionnaire: points at the threshold or a flag need attention; no step, no report', () => {
  assert.deepEqual(questionnaireReport({ points: 10, flags: [] }, STANDARD_FLOW)?.status, 'ok');
  assert.deepEqual(questionnaireReport({ points: 50, flags: [] }, STANDARD_FLOW)?.reasons, ['questionnaire_threshold']);
  assert.deepEqual(questionnaireReport({ points: 20, flags: ['funds_other'] }, STANDARD_FLOW)?.reasons, ['questionnaire_flagged']);
  const noQuestions: FlowDefinition = { ...STANDARD_FLOW, steps: ['document', 'face'] };
  assert.equal(questionnaireReport({ points: 90, flags: [] }, noQuestions), null);
});

const reading = (patch: Partial<MrzReading>): MrzReading => ({
  format: 'TD3',
  lines: [],
  fields: {},
  checkDigitsValid: true,
  failedCheckDigits: [],
  corrections: 0,
  codesValid: true,
  specimen: false,
  confidence: 0.9,
  ...patch,
});

test('MRZ report: not found, failing check digits, uncertain unless the printed zone confirms, specimen outside the sandbox', () => {
  assert.deepEqual(mrzReport(null, false, 0.6).reasons, ['mrz_not_found']);
  assert.deepEqual(mrzReport(reading({ checkDigitsValid: false }), false, 0.6).reasons, ['mrz_unreadable', 'mrz_check_digit_failed']);
  // Check digits that match are not "unreadable": the reason names the low confidence, and the measures show it.
  const unsure = mrzReport(reading({ confidence: 0.5 }), false, 0.6);
  assert.deepEqual([unsure.status, unsure.reasons], ['failed', ['mrz_low_confidence']]);
  assert.deepEqual([unsure.measures.check_digits_valid, unsure.measures.confidence, unsure.measures.min_confidence], [1, 0.5, 0.6]);
  assert.equal(mrzReport(reading({ confidence: 0.5 }), false, 0.6, true).status, 'ok');
  assert.equal(mrzReport(reading({ specimen: true }), false, 0.6).status, 'failed');
  assert.deepEqual(mrzReport(reading({ specimen: true }), true, 0.6), {
    type: 'mrz',
    status: 'ok',
    reasons: ['mrz_specimen'],
    measures: { found: 1, confidence: 0.9, min_confidence: 0.6, corrections: 0, check_digits_valid: 1, codes_valid: 1, confirmed_by_printed_zone: 0 },
  });
  assert.deepEqual(mrzReport(reading({ codesValid: false, corrections: 1 }), false, 0.6).reasons, ['mrz_invalid_code', 'mrz_corrected']);
});

test('the printed zone confirms an uncertain zone only with both names agreeing and no decisive field differing', () => {
  const all = { surname: 'agree', given_names: 'agree', birth_date: 'agree', document_number: 'agree', expiry_date: 'agree', nationality: 'absent', sex: 'absent' } as const;
  assert.equal(confirmedByPrintedZone(all), true);
  assert.equal(confirmedByPrintedZone({ ...all, given_names: 'absent' }), false);
  assert.equal(confirmedByPrintedZone({ ...all, expiry_date: 'differ' }), false);
  assert.equal(confirmedByPrintedZone({ ...all, birth_date: 'absent' }), true);
});
