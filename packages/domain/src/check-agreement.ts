import { isCheckMeasure } from './check-measures.ts';
import { CHECK_REASONS, type CheckReason, type CheckReport } from './check-reasons.ts';

/**
 * What makes a check report say one thing: its status, its reasons and its measures must agree.
 * An operator reads all three side by side, so "failed: the zone could not be read with valid
 * check digits" beside "check digits match: 1" is a report nobody can act on. Pure; the engine's
 * reports are held to it by a property test (tests/engine/report-agreement.test.ts).
 *
 * The rules, for every check: each reason belongs to the check (the sandbox's excepted), each
 * measure is in the check's catalogue (check-measures.ts), a status other than ok gives at least
 * one reason, an ok status gives only informational ones. Then per check, what the measures
 * imply about the reasons, and that nothing compared is not a pass.
 */

/** Reasons that inform without judging: they may stand beside an ok status. */
const INFORMATIONAL: ReadonlySet<CheckReason> = new Set<CheckReason>(['mrz_corrected', 'mrz_specimen', 'sandbox_forced']);

type Rule = (m: Readonly<Record<string, number>>, has: (r: CheckReason) => boolean, status: CheckReport['status']) => string | null;

/** `reason` is given exactly when `when` holds (`because` says what `when` is). */
function matches(when: boolean, given: boolean, reason: CheckReason, because: string): string | null {
  if (when && !given) return `${because}, but ${reason} is not given`;
  if (!when && given) return `${reason} is given, but not ${because}`;
  return null;
}

const RULES: Partial<Record<CheckReport['type'], Rule[]>> = {
  document_quality: [(m, has) => (m.document_found === undefined ? null : matches(m.document_found === 0, has('document_not_found'), 'document_not_found', 'document_found is 0'))],
  mrz: [
    (m, has) => matches(m.found === 0, has('mrz_not_found'), 'mrz_not_found', 'found is 0'),
    (m, has) => (m.found === 1 ? matches(m.check_digits_valid === 0, has('mrz_check_digit_failed'), 'mrz_check_digit_failed', 'check_digits_valid is 0') : null),
    (m, has) => (m.found === 1 ? matches(m.check_digits_valid === 0, has('mrz_unreadable'), 'mrz_unreadable', 'check_digits_valid is 0') : null),
    (m, has) =>
      m.found === 1
        ? matches(
            m.check_digits_valid === 1 && m.confidence! < m.min_confidence! && m.confirmed_by_printed_zone === 0,
            has('mrz_low_confidence'),
            'mrz_low_confidence',
            'check digits match with confidence under min_confidence and no confirmation by the printed zone',
          )
        : null,
    (m, has) => (m.codes_valid === 1 && has('mrz_invalid_code') ? 'mrz_invalid_code is given, but codes_valid is 1' : null),
    (m, has) => (m.found === 1 ? matches(m.corrections! > 0, has('mrz_corrected'), 'mrz_corrected', 'corrections is over 0') : null),
  ],
  barcode: [
    (m) => (m.fields_compared === 0 ? 'fields_compared is 0: a comparison of nothing' : null),
    (m, has) => (m.fields_differing === undefined ? null : matches(m.fields_differing > 0, has('barcode_differs'), 'barcode_differs', 'fields_differing is over 0')),
    (m, has) => (m.barcodes_found === undefined ? null : matches(m.barcodes_found === 0 && m.barcodes_undecodable! > 0, has('barcode_unreadable'), 'barcode_unreadable', 'a barcode was seen and none decoded')),
  ],
  printed_zone: [
    (m, has) => (m.fields_differ! > 0 && !has('printed_zone_differs') ? 'fields_differ is over 0, but printed_zone_differs is not given' : null),
    (m, _has, status) => (status === 'ok' && !(m.fields_agree! > 0) ? 'ok, but no field was compared' : null),
  ],
  face_match: [
    (m, has) => (m.document_faces === 0 && !has('document_face_not_found') ? 'document_faces is 0, but document_face_not_found is not given' : null),
    (m, has) => (m.selfie_faces === 0 && !has('selfie_face_not_found') ? 'selfie_faces is 0, but selfie_face_not_found is not given' : null),
    (m, has) => (m.selfie_faces! > 1 && !has('selfie_several_faces') ? 'selfie_faces is over 1, but selfie_several_faces is not given' : null),
    (m, _has, status) => (status === 'ok' && m.distance === undefined ? 'ok without a distance: the faces were not compared' : null),
  ],
  liveness: [
    (m, _has, status) => (status === 'ok' && !(m.challenges! > 0 && m.challenges_performed === m.challenges) ? 'ok, but not every movement asked for was performed' : null),
    (m, has) => (m.judged === undefined ? null : matches(m.judged === 0, has('challenges_not_judged'), 'challenges_not_judged', 'judged is 0')),
  ],
  duplicates: [
    (m, has) => matches(m.same_document! > 0, has('duplicate_document'), 'duplicate_document', 'same_document is over 0'),
    (m, has) => matches(m.same_face! > 0, has('duplicate_face'), 'duplicate_face', 'same_face is over 0'),
  ],
  data_comparison: [
    (m, _has, status) => (status === 'ok' && !(m.fields_compared! > 0 && m.document_read === 1) ? 'ok, but nothing was compared' : null),
    (m, has) => matches(m.fields_mismatched! > 0, has('subject_mismatch'), 'subject_mismatch', 'fields_mismatched is over 0'),
    (m, has) => matches(m.fields_missing! > 0, has('subject_missing'), 'subject_missing', 'fields_missing is over 0'),
  ],
  questionnaire: [
    (m, has) => matches(m.points! >= m.threshold!, has('questionnaire_threshold'), 'questionnaire_threshold', 'points reach the threshold'),
    (m, has) => matches(m.flags! > 0, has('questionnaire_flagged'), 'questionnaire_flagged', 'flags is over 0'),
  ],
};

/** What in `report` contradicts itself, in words for a developer (empty when it agrees). Never a value of the person's. */
export function reportContradictions(report: CheckReport): string[] {
  const problems: string[] = [];
  for (const r of report.reasons) {
    if (!(r in CHECK_REASONS)) problems.push(`${r} is not a known reason`);
    else if (r !== 'sandbox_forced' && CHECK_REASONS[r].check !== report.type) problems.push(`${r} belongs to ${CHECK_REASONS[r].check}`);
  }
  for (const [name, value] of Object.entries(report.measures)) {
    if (!isCheckMeasure(report.type, name)) problems.push(`${name} is not a measure of ${report.type}`);
    if (!Number.isFinite(value)) problems.push(`${name} is not a finite number`);
  }
  if (report.status !== 'ok' && report.reasons.length === 0) problems.push(`${report.status} without a reason`);
  if (report.status === 'ok') for (const r of report.reasons) if (!INFORMATIONAL.has(r)) problems.push(`ok, but ${r} is given`);
  const has = (r: CheckReason) => report.reasons.includes(r);
  for (const rule of RULES[report.type] ?? []) {
    const problem = rule(report.measures, has, report.status);
    if (problem) problems.push(problem);
  }
  return problems;
}
