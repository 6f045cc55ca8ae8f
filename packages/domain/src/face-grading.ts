import type { CheckReason, CheckReport } from './check-reasons.ts';
import type { FlowDefinition } from './flow.ts';

export type FaceThresholds = Pick<FlowDefinition['checks'], 'face_match_max_distance' | 'face_review_max_distance'>;

/**
 * The verdict on the distance between the selfie and the document portrait, under a flow's two
 * thresholds: at most `face_match_max_distance` matches, above `face_review_max_distance` differs,
 * in between is uncertain. The checks engine grades with it, and so does the dry run of a draft
 * (from the distance stored in the report), so both always agree.
 */
export function gradeFaceDistance(distance: number, t: FaceThresholds): { status: CheckReport['status']; reason: CheckReason | null } {
  if (distance > t.face_review_max_distance) return { status: 'failed', reason: 'faces_differ' };
  if (distance > t.face_match_max_distance) return { status: 'attention', reason: 'faces_uncertain' };
  return { status: 'ok', reason: null };
}

const DISTANCE_REASONS: ReadonlySet<CheckReason> = new Set(['faces_uncertain', 'faces_differ']);

/**
 * A stored face_match report graded again under other thresholds. Only a report whose verdict came
 * from the distance alone is regraded (its only reasons, if any, are distance reasons); one with a
 * capture problem (no face, too small…) was never graded on the distance and stays as it is.
 * The value regraded is the one the engine graded: the quality-corrected `match_score` when the
 * report has one, the plain `distance` for reports made before it (docs/face-match.md).
 */
export function regradeFaceMatch(report: CheckReport, t: FaceThresholds): CheckReport {
  const distance = report.measures.match_score ?? report.measures.distance;
  if (report.type !== 'face_match' || typeof distance !== 'number') return report;
  if (!report.reasons.every((r) => DISTANCE_REASONS.has(r))) return report;
  const { status, reason } = gradeFaceDistance(distance, t);
  return { ...report, status, reasons: reason ? [reason] : [] };
}
