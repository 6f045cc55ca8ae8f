import type { CheckReason, CheckReport } from './check-reasons.ts';
import type { FlowDefinition } from './flow.ts';
import { attackAction, attackRule, isAttackReason, type AttackReason } from './presentation-attacks.ts';
import { RISK_MAX, RISK_MIN, RESUBMISSION_STEPS, type ReasonCode, type ResubmissionStepName } from './review.ts';
import type { SandboxForce } from './sandbox-outcomes.ts';

/**
 * The flow's policy: check reports in, one outcome out (pure; the checks runner applies it). In
 * order (docs/checks.md, "The decision"): a sandbox value forces the outcome; a refusal no retake
 * can change rejects; a suspected presentation attack the flow refuses rejects, one it reviews goes
 * to review; a capture problem, or an attack the flow answers with a retake, asks for a retake, up
 * to `decision.max_resubmissions`, then review; another failure rejects; the questionnaire's
 * attention goes to review, any other follows `decision.on_attention`; otherwise approved.
 *
 * An attack reason counts whatever status its check gave it, so no flow and no report can let a
 * case carrying one be approved (a property test holds the policy to it).
 */

export type PolicyDecision =
  | { outcome: 'approved'; reasons: CheckReason[] }
  | { outcome: 'rejected'; reasonCode: ReasonCode; reasons: CheckReason[] }
  | { outcome: 'in_review'; riskScore: number; reasons: CheckReason[]; dueAt: Date }
  | { outcome: 'resubmission_requested'; steps: ResubmissionStepName[]; reasonCode: ReasonCode | null; reasons: CheckReason[] };

export interface PolicyInput {
  reports: readonly CheckReport[];
  flow: FlowDefinition;
  /** Resubmissions already requested for this case (its journey round minus one). */
  resubmissions: number;
  now: Date;
  /** A sandbox test value (see sandbox-outcomes.ts); null in production. */
  forced?: SandboxForce | null;
}

/** Failures no retake can cure, with the rejection reason each gives. */
const DEFINITIVE: Partial<Record<CheckReason, ReasonCode>> = {
  document_expired: 'document_expired',
  under_minimum_age: 'underage',
  document_not_accepted: 'document_not_accepted',
  mrz_specimen: 'document_specimen',
};

/** Capture problems: the step to retake and the resubmission reason shown to the client. */
const CAPTURE: Partial<Record<CheckReason, { step: ResubmissionStepName; reasonCode: ReasonCode }>> = {
  image_unreadable: { step: 'document', reasonCode: 'document_blurred' },
  resolution_too_low: { step: 'document', reasonCode: 'document_blurred' },
  image_blurred: { step: 'document', reasonCode: 'document_blurred' },
  image_glare: { step: 'document', reasonCode: 'document_glare' },
  document_not_found: { step: 'document', reasonCode: 'document_cropped' },
  document_cut_off: { step: 'document', reasonCode: 'document_cropped' },
  mrz_not_found: { step: 'document', reasonCode: 'document_blurred' },
  mrz_unreadable: { step: 'document', reasonCode: 'document_blurred' },
  mrz_low_confidence: { step: 'document', reasonCode: 'document_blurred' },
  barcode_not_found: { step: 'document', reasonCode: 'document_side_missing' },
  barcode_unreadable: { step: 'document', reasonCode: 'document_blurred' },
  printed_zone_unreadable: { step: 'document', reasonCode: 'document_blurred' },
  document_type_differs: { step: 'document', reasonCode: 'document_side_missing' },
  document_face_not_found: { step: 'document', reasonCode: 'document_blurred' },
  document_face_too_small: { step: 'document', reasonCode: 'document_blurred' },
  selfie_face_not_found: { step: 'face', reasonCode: 'face_unclear' },
  selfie_several_faces: { step: 'face', reasonCode: 'face_unclear' },
  selfie_face_too_small: { step: 'face', reasonCode: 'face_unclear' },
  selfie_not_frontal: { step: 'face', reasonCode: 'face_unclear' },
  selfie_face_unclear: { step: 'face', reasonCode: 'face_unclear' },
  challenge_missing: { step: 'face', reasonCode: 'face_unclear' },
  challenge_face_not_found: { step: 'face', reasonCode: 'face_unclear' },
  challenges_not_judged: { step: 'face', reasonCode: 'face_unclear' },
};

/** The rejection reason of any other failure (or of attention when the flow rejects on attention). */
const REJECTION: Partial<Record<CheckReason, ReasonCode>> = {
  ...DEFINITIVE,
  mrz_check_digit_failed: 'document_tampered',
  mrz_invalid_code: 'document_tampered',
  barcode_differs: 'document_tampered',
  printed_zone_differs: 'document_tampered',
  birth_date_implausible: 'document_tampered',
  faces_differ: 'face_mismatch',
  faces_uncertain: 'face_mismatch',
  challenge_not_performed: 'liveness_failed',
  challenge_person_differs: 'liveness_failed',
  duplicate_document: 'duplicate_identity',
  duplicate_face: 'duplicate_identity',
  subject_mismatch: 'data_mismatch',
  subject_missing: 'data_mismatch',
  // The wallet's refusals, as a failed document check would be named (docs/wallet.md).
  wallet_issuer_untrusted: 'document_not_accepted',
  wallet_credential_expired: 'document_expired',
  wallet_credential_revoked: 'document_not_accepted',
  wallet_device_binding_invalid: 'document_tampered',
  wallet_presentation_invalid: 'document_tampered',
  wallet_claims_not_requested: 'document_not_accepted',
  wallet_status_unavailable: 'document_not_accepted',
};

/**
 * Risk score of a case sent to review, 0–100, a plain sum a supervisor can read: 10 to start,
 * 30 per failed check, 15 per check needing attention, 20 more for a duplicate (someone else's
 * case may carry the same person), 20 more for a suspected presentation attack (the queue shows
 * it before ordinary doubts), 10 more for a questionnaire flag.
 */
export function riskScore(reports: readonly CheckReport[]): number {
  let score = 10;
  for (const r of reports) {
    if (r.status === 'failed') score += 30;
    else if (r.status === 'attention') score += 15;
    if (r.type === 'duplicates' && r.status !== 'ok') score += 20;
    if (r.reasons.some(isAttackReason)) score += 20;
    if (r.reasons.includes('questionnaire_flagged')) score += 10;
  }
  return Math.max(RISK_MIN, Math.min(RISK_MAX, score));
}

const HOUR = 3_600_000;

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

function reasonsOf(reports: readonly CheckReport[], status: CheckReport['status']): CheckReason[] {
  return unique(reports.filter((r) => r.status === status).flatMap((r) => r.reasons));
}

export function decideCase(input: PolicyInput): PolicyDecision {
  const { reports, flow, now } = input;
  const review = (reasons: CheckReason[]): PolicyDecision => ({
    outcome: 'in_review',
    riskScore: riskScore(reports),
    reasons,
    dueAt: new Date(now.getTime() + flow.decision.review_due_hours * HOUR),
  });
  const canResubmit = input.resubmissions < flow.decision.max_resubmissions;

  if (input.forced) {
    const f = input.forced;
    const reasons: CheckReason[] = ['sandbox_forced'];
    switch (f.outcome) {
      case 'approve':
        return { outcome: 'approved', reasons };
      case 'reject':
        return { outcome: 'rejected', reasonCode: f.reasonCode, reasons };
      case 'review':
        return review(reasons);
      case 'resubmit':
        // The same limit as a real resubmission, so an integrator also sees what happens past it.
        return canResubmit ? { outcome: 'resubmission_requested', steps: [...f.steps], reasonCode: f.reasonCode, reasons } : review(reasons);
    }
  }

  const failed = reasonsOf(reports, 'failed');
  const definitive = failed.filter((r) => DEFINITIVE[r]);
  if (definitive.length) return { outcome: 'rejected', reasonCode: DEFINITIVE[definitive[0]]!, reasons: definitive };

  const raised = unique([...failed, ...reasonsOf(reports, 'attention')]);
  // Attack reasons from every report, an `ok` one included: a detector's status never lets one through.
  const attacks = unique(reports.flatMap((r) => r.reasons)).filter(isAttackReason);
  const answered = (action: 'reject' | 'retake' | 'review') => attacks.filter((r) => attackAction(flow.decision.presentation_attacks, r) === action);
  const refused = answered('reject');
  if (refused.length) return { outcome: 'rejected', reasonCode: attackRule(refused[0]).rejectCode, reasons: refused };
  // Before any retake: a person sees the frames the flow wants seen before a new capture follows them.
  if (answered('review').length) return review(unique([...raised, ...attacks]));

  // Capture problems count whatever status their check gave them (some parts report them as
  // attention, since they are no verdict on the person); so do attacks answered with a retake.
  const capture = raised.filter((r) => CAPTURE[r]);
  const retakes: AttackReason[] = answered('retake');
  if (capture.length || retakes.length) {
    if (!canResubmit) return review(unique([...raised, ...attacks]));
    const stepOf = (r: CheckReason) => (isAttackReason(r) ? attackRule(r).step : CAPTURE[r]!.step);
    const asked = [...capture, ...retakes];
    const steps = RESUBMISSION_STEPS.filter((s) => asked.some((r) => stepOf(r) === s));
    // A capture problem names its reason first; an attack's retake reason only when no capture problem does.
    const reasonCode = capture.length ? CAPTURE[capture[0]]!.reasonCode : attackRule(retakes[0]).retakeCode;
    return { outcome: 'resubmission_requested', steps, reasonCode, reasons: asked };
  }

  if (failed.length) {
    const named = failed.find((r) => REJECTION[r]);
    return { outcome: 'rejected', reasonCode: named ? REJECTION[named]! : 'suspected_fraud', reasons: failed };
  }

  const attention = reasonsOf(reports, 'attention');
  if (attention.length) {
    const questionnaireOnly = reports.every((r) => r.status === 'ok' || r.type === 'questionnaire');
    if (questionnaireOnly || flow.decision.on_attention === 'review') return review(attention);
    const fromQuestionnaire = new Set<CheckReason>(['questionnaire_threshold', 'questionnaire_flagged']);
    const named = attention.find((r) => !fromQuestionnaire.has(r) && REJECTION[r]);
    return { outcome: 'rejected', reasonCode: named ? REJECTION[named]! : 'suspected_fraud', reasons: attention.filter((r) => !fromQuestionnaire.has(r)) };
  }

  return { outcome: 'approved', reasons: [] };
}
