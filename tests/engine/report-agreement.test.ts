import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CHECK_MEASURES, LIVENESS_CHALLENGES, reportContradictions, STANDARD_FLOW, type CheckReport, type FlowDefinition, type IdentityValues } from '@idv/domain';
import { compareData, judgeFaceMatch, judgeLiveness, mrzReport, questionnaireReport, type DocumentFields, type FaceAnalysis, type MrzReading } from '@idv/engine';
import { finishFacePart } from '../../packages/engine/src/case-finish.ts';
import { barcodePresenceReport, compareBarcode } from '../../packages/engine/src/document/barcode-compare.ts';
import { printedZoneReport, type OcrPass } from '../../packages/engine/src/document/printed-zone.ts';
import { qualityReport } from '../../packages/engine/src/document/quality.ts';
import { checkValidity } from '../../packages/engine/src/document/validity.ts';

/**
 * Issue 37: a check's status, reasons and measures must agree (reportContradictions, in the
 * domain), for every report the engine's judging functions can make. Each property draws the
 * inputs those functions take, from small pools so that agreements, disagreements and missing
 * fields all occur, and asks the report to agree with itself. The judging of images is pure past
 * the models (judgeFaceMatch, judgeLiveness, qualityReport, printedZoneReport take what the
 * models found), so these are the reports the service stores.
 */

const RUNS = { numRuns: 400 };

function agrees(report: CheckReport | null): void {
  if (!report) return;
  const problems = reportContradictions(report);
  assert.deepEqual(problems, [], `${JSON.stringify(report)}: ${problems.join('; ')}`);
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const names = fc.constantFrom('MARTIN', 'Martin', 'Müller', 'MUELLER', 'Dupont', '');
const dates = fc.constantFrom('1990-04-12', '1990-04-13', '2031-01-01', '2001-13-45', '1850-01-01', '2020-02-29', '');
const fields: fc.Arbitrary<DocumentFields> = fc.record(
  {
    document_code: maybe(fc.constantFrom('P', 'I', 'ID', 'AC', 'V', 'D')),
    issuing_country: maybe(fc.constantFrom('FRA', 'D', 'UTO', 'XXX', 'BEL', '')),
    document_number: maybe(fc.constantFrom('C4J7K2P9X', 'C4J7K2P9X<', 'X1234567', '')),
    surname: maybe(names),
    given_names: maybe(names),
    nationality: maybe(fc.constantFrom('FRA', 'D', 'UTO')),
    birth_date: maybe(dates),
    sex: maybe(fc.constantFrom('M' as const, 'F' as const, 'X' as const)),
    expiry_date: maybe(dates),
  },
  { requiredKeys: [] },
);
const identity: fc.Arbitrary<IdentityValues> = fc.record(
  { surname: maybe(names), given_names: maybe(names), birth_date: maybe(dates), nationality: maybe(fc.constantFrom('FR', 'DE', 'XX')), document_number: maybe(fc.constantFrom('C4J7K2P9X', 'X1234567')) },
  { requiredKeys: [] },
) as fc.Arbitrary<IdentityValues>;

const reading: fc.Arbitrary<MrzReading> = fc.record({
  format: fc.constantFrom('TD1' as const, 'TD3' as const),
  lines: fc.constant([]),
  fields,
  checkDigitsValid: fc.boolean(),
  failedCheckDigits: fc.constant([]),
  corrections: fc.nat(3),
  codesValid: fc.boolean(),
  specimen: fc.boolean(),
  confidence: fc.double({ min: 0, max: 1, noNaN: true }),
});

test('mrz: failed / mrz_unreadable only with check digits that fail; a low confidence says so; every measure agrees', () => {
  fc.assert(
    fc.property(fc.option(reading, { nil: null }), fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean(), (r, sandbox, min, confirmed) => {
      agrees(mrzReport(r, sandbox, min, confirmed));
    }),
    RUNS,
  );
});

test('data comparison: nothing compared is not a pass; mismatches and missing fields are counted as they are reasoned', () => {
  fc.assert(
    fc.property(fc.option(identity, { nil: null }), fc.option(identity, { nil: null }), fc.option(identity, { nil: null }), (declared, entered, read) => {
      agrees(compareData(declared, entered, read));
    }),
    RUNS,
  );
});

test('barcode: a comparison of nothing is no agreement; differences and unreadable barcodes are reasoned', () => {
  fc.assert(
    fc.property(fields, fields, fc.constantFrom('mrz' as const, 'printed_zone' as const), fc.nat(3), fc.boolean(), fc.nat(3), (a, b, source, found, expected, undecodable) => {
      agrees(compareBarcode(a, b, source));
      agrees(barcodePresenceReport(found, expected, undecodable));
    }),
    RUNS,
  );
});

test('document quality, validity and the printed zone agree with their measures', () => {
  const flow = STANDARD_FLOW as FlowDefinition;
  const text = fc.array(fc.constantFrom('MARTIN', 'CLAIRE', '12.04.1990', 'C4J7K2P9X', 'FRANÇAISE', 'F', '01.01.2031', 'NOM', '\n', ' '), { maxLength: 14 }).map((p) => p.join(' '));
  fc.assert(
    fc.property(
      fc.record({
        document_found: fc.constantFrom(0, 1),
        document_long_side_px: fc.nat(3000),
        document_area_fraction: fc.double({ min: 0, max: 1, noNaN: true }),
        borders_touched: fc.nat(4),
        sharpness: fc.nat(2000),
        saturated_share: fc.double({ min: 0, max: 1, noNaN: true }),
        glare_blob_share: fc.double({ min: 0, max: 1, noNaN: true }),
        glare_halo_luminance: fc.nat(255),
        text_density: fc.double({ min: 0, max: 1, noNaN: true }),
        colour_spread: fc.double({ min: 0, max: 40, noNaN: true }),
        pixel_grid_peak: fc.double({ min: 0, max: 6, noNaN: true }),
        colour_moire_peak: fc.double({ min: 0, max: 6, noNaN: true }),
        screen_network: fc.double({ min: -20, max: 20, noNaN: true }),
        copy_network: fc.double({ min: -20, max: 20, noNaN: true }),
        network_patches: fc.nat(24),
      }),
      fc.boolean(),
      fields,
      fc.constantFrom('FR', 'DE', 'BE'),
      fc.constantFrom('passport' as const, 'id_card' as const, 'residence_permit' as const, 'driving_licence' as const),
      fc.boolean(),
      fc.array(fc.record({ text, confidence: fc.nat(100), lines: fc.constant([] as OcrPass['lines']), scope: fc.constantFrom('page' as const, 'lines' as const) }), { minLength: 1, maxLength: 3 }),
      fc.option(reading, { nil: null }),
      (quality, cut, f, country, type, sandbox, passes, mrz) => {
        agrees(qualityReport(quality, cut));
        agrees(checkValidity({ fields: f, chosen: { country, type }, flow, today: new Date('2026-11-29T00:00:00Z'), sandbox }));
        agrees(printedZoneReport(passes, mrz).report);
      },
    ),
    { numRuns: 200 },
  );
});

/** A face as the models would report it, with a 4-value unit descriptor (the judging only needs distances). */
const face: fc.Arbitrary<FaceAnalysis> = fc
  .record({
    h: fc.integer({ min: 10, max: 600 }),
    relativeSize: fc.double({ min: 0.01, max: 0.9, noNaN: true }),
    yaw: fc.integer({ min: -60, max: 60 }),
    pitch: fc.integer({ min: -40, max: 40 }),
    roll: fc.integer({ min: -20, max: 20 }),
    d: fc.array(fc.double({ min: 0.05, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
    quality: fc.double({ min: 0, max: 6, noNaN: true }),
  })
  .map(({ h, d, ...rest }) => ({ ...rest, box: { x: 0, y: 0, width: h, height: h }, descriptor: d.map((v) => v / Math.hypot(...d)), score: 0.9 }));

test('face match and liveness: ok only when the faces were compared and every movement performed', () => {
  const thresholds = { face_match_max_distance: 0.8, face_review_max_distance: 1.0 };
  fc.assert(
    fc.property(
      fc.option(fc.array(face, { maxLength: 2 }), { nil: null }),
      fc.option(fc.array(face, { maxLength: 2 }), { nil: null }),
      fc.subarray([...LIVENESS_CHALLENGES], { minLength: 1 }),
      fc.array(fc.option(fc.array(face, { maxLength: 2 }), { nil: null }), { minLength: 4, maxLength: 4 }),
      fc.boolean(),
      (portrait, selfie, challenges, found, mirrored) => {
        const match = judgeFaceMatch(portrait, selfie, thresholds);
        agrees(match.report);
        const selfieFace = selfie?.[0];
        if (selfieFace) {
          const byChallenge = Object.fromEntries(challenges.map((c, i) => [c, found[i]]).filter(([, v]) => v !== undefined));
          agrees(judgeLiveness({ challenges, selfieFace, found: byChallenge, mirrored }));
        }
      },
    ),
    RUNS,
  );
});

test('liveness not judged for want of a selfie face says why (not "attention" with no reason)', () => {
  const flow = { ...STANDARD_FLOW, liveness: { ...STANDARD_FLOW.liveness, challenges: ['turn_left', 'turn_right'] } } as FlowDefinition;
  const part = finishFacePart(
    { flow, pieces: { selfie: new Uint8Array(1), document_front: new Uint8Array(1) } } as Parameters<typeof finishFacePart>[0],
    { portrait: null, selfie: [], challenges: {} },
    0,
  );
  const liveness = part.reports.find((r) => r.type === 'liveness');
  assert.deepEqual(liveness?.reasons, ['challenges_not_judged']);
  for (const r of part.reports) agrees(r);
});

test('questionnaire: points at the threshold and flags are reasoned as measured', () => {
  fc.assert(
    fc.property(fc.nat(120), fc.array(fc.constantFrom('funds_other', 'pep'), { maxLength: 2 }), (points, flags) => {
      agrees(questionnaireReport({ points, flags }, STANDARD_FLOW as FlowDefinition));
    }),
    RUNS,
  );
});

test('the agreement rules themselves catch the contradictions issue 37 found', () => {
  const mrz: CheckReport = {
    type: 'mrz',
    status: 'failed',
    reasons: ['mrz_unreadable'],
    measures: { found: 1, confidence: 0.5, min_confidence: 0.6, corrections: 0, check_digits_valid: 1, codes_valid: 1, confirmed_by_printed_zone: 0 },
  };
  assert.ok(reportContradictions(mrz).some((p) => p.includes('mrz_unreadable')));
  const data: CheckReport = { type: 'data_comparison', status: 'ok', reasons: [], measures: { fields_compared: 0, fields_mismatched: 0, fields_missing: 0, document_read: 0 } };
  assert.deepEqual(reportContradictions(data), ['ok, but nothing was compared']);
  const unknown: CheckReport = { type: 'face_match', status: 'attention', reasons: [], measures: { made_up: 1 } };
  assert.deepEqual(reportContradictions(unknown), ['made_up is not a measure of face_match', 'attention without a reason']);
  // Every catalogued measure name is one a report may carry.
  for (const [type, measures] of Object.entries(CHECK_MEASURES)) for (const name of Object.keys(measures)) assert.match(name, /^[a-z][a-z_]*$/, `${type}.${name}`);
});
