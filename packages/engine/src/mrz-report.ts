import type { CheckReason, CheckReport } from '@idv/domain';
import type { MrzReading } from './types.ts';

/**
 * The `mrz` check report of a reading (or of none): failed when no zone is found, when check
 * digits still fail (mrz_unreadable, mrz_check_digit_failed), or when they match but confidence
 * stays under the acceptance level unless the printed zone confirms the names
 * (mrz_low_confidence: not "unreadable", which would contradict `check_digits_valid: 1` beside it);
 * attention for a code that is not ICAO's; a specimen code fails outside the sandbox; corrections
 * are informational. The reasons are listed in docs/checks.md.
 */
export function mrzReport(reading: MrzReading | null, sandbox: boolean, minConfidence: number, confirmedByPrintedZone = false): CheckReport {
  if (!reading) return { type: 'mrz', status: 'failed', reasons: ['mrz_not_found'], measures: { found: 0 } };
  const failed: CheckReason[] = [];
  const attention: CheckReason[] = [];
  const info: CheckReason[] = [];
  // Judged on the confidence as reported, so that the verdict and the measure beside it agree.
  const confidence = Math.round(reading.confidence * 1000) / 1000;
  if (!reading.checkDigitsValid) failed.push('mrz_unreadable', 'mrz_check_digit_failed');
  // Check digits pass but the reader is unsure of characters no check digit covers (names…).
  // Unless the printed zone, read independently, shows the same names (analyse-case.ts).
  else if (confidence < minConfidence && !confirmedByPrintedZone) failed.push('mrz_low_confidence');
  if (reading.specimen) (sandbox ? info : failed).push('mrz_specimen');
  else if (!reading.codesValid) attention.push('mrz_invalid_code');
  if (reading.corrections > 0) info.push('mrz_corrected');
  return {
    type: 'mrz',
    status: failed.length ? 'failed' : attention.length ? 'attention' : 'ok',
    reasons: [...failed, ...attention, ...info],
    measures: {
      found: 1,
      confidence,
      min_confidence: minConfidence,
      corrections: reading.corrections,
      check_digits_valid: reading.checkDigitsValid ? 1 : 0,
      codes_valid: reading.codesValid ? 1 : 0,
      confirmed_by_printed_zone: confirmedByPrintedZone ? 1 : 0,
    },
  };
}

/** Whether the report vouches for its reading: validity, comparison and duplicates rest only on such a reading. */
export function mrzVouched(report: CheckReport): boolean {
  return report.reasons.every((r) => r !== 'mrz_not_found' && r !== 'mrz_unreadable' && r !== 'mrz_low_confidence');
}
