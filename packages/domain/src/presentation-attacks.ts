import type { CheckReason } from './check-reasons.ts';
import type { ReasonCode, ResubmissionStepName } from './review.ts';

/**
 * What a flow does with each presentation-attack reason (docs/checks.md, "The decision";
 * docs/flows.md, "Presentation attacks"): refuse it, ask the person to capture again, or send the
 * case to an operator. A suspected attack is never approved, whatever the flow says; the flow only
 * chooses which of the three the policy answers.
 */
export const ATTACK_ACTIONS = ['reject', 'retake', 'review'] as const;
export type AttackAction = (typeof ATTACK_ACTIONS)[number];

interface AttackRule {
  /** The step the person captures again on a retake. */
  step: ResubmissionStepName;
  /** What a bank would choose, applied when the flow does not say. */
  default: AttackAction;
  /** The rejection reason of the closed list (the list is closed: mapped, never extended). */
  rejectCode: ReasonCode;
  /**
   * The resubmission reason of the closed list shown with a retake, or null where none of the list
   * is true (no resubmission reason says "use the original document"; the check reason says it).
   */
  retakeCode: ReasonCode | null;
}

/**
 * Defaults, and why: a passive screen/print verdict on the selfie and a suspected injected camera
 * have innocent causes a person can tell apart on the frames (a glossy screen protector, a virtual
 * camera driver left installed), so an operator looks; a selfie that is the document's own
 * portrait is the document held to the camera, which no honest capture produces, so it is
 * refused; a face moving like a flat picture, or filmed frames a trained network reads as a
 * screen or a print, is reviewed (the frames show it); a stale challenge
 * or a broken sequence is most often a slow network or a capture that restarted, so the person
 * tries again; movements sent as stills (a flow that allows them, for a client that cannot film)
 * had no challenge drawn by the service, so photos of the person pass them: an operator looks; a document photographed from a screen or a copy goes to an operator: a retake would
 * tell a fraudster what was seen and invite the same screen again, and a genuine document with
 * little colour (some older cards, a greyscale scan) would be flagged again on every retake, so
 * only a person can clear it (bench:pad-documents: 2 of 30 real fixture documents). Every retake is capped by the flow's
 * `decision.max_resubmissions`, after which the case goes to review.
 */
export const PRESENTATION_ATTACKS = {
  presentation_attack_suspected: { step: 'face', default: 'review', rejectCode: 'liveness_failed', retakeCode: 'face_unclear' },
  selfie_is_document_portrait: { step: 'face', default: 'reject', rejectCode: 'liveness_failed', retakeCode: 'face_unclear' },
  challenge_not_live: { step: 'face', default: 'review', rejectCode: 'liveness_failed', retakeCode: 'face_unclear' },
  challenge_screen_or_print: { step: 'face', default: 'review', rejectCode: 'liveness_failed', retakeCode: 'face_unclear' },
  challenge_expired: { step: 'face', default: 'retake', rejectCode: 'liveness_failed', retakeCode: 'face_unclear' },
  challenge_not_continuous: { step: 'face', default: 'retake', rejectCode: 'liveness_failed', retakeCode: 'face_unclear' },
  challenge_stills: { step: 'face', default: 'review', rejectCode: 'liveness_failed', retakeCode: 'face_unclear' },
  camera_injection_suspected: { step: 'face', default: 'review', rejectCode: 'liveness_failed', retakeCode: 'face_unclear' },
  document_screen_replay_suspected: { step: 'document', default: 'review', rejectCode: 'document_specimen', retakeCode: null },
  document_photocopy_suspected: { step: 'document', default: 'review', rejectCode: 'document_specimen', retakeCode: null },
} as const satisfies Partial<Record<CheckReason, AttackRule>>;

export type AttackReason = keyof typeof PRESENTATION_ATTACKS;
export const ATTACK_REASONS = Object.keys(PRESENTATION_ATTACKS) as AttackReason[];

/** The flow's setting: an action per attack reason, each optional (absent: the default above). */
export type PresentationAttackSettings = Partial<Record<AttackReason, AttackAction>>;

export function isAttackReason(reason: string): reason is AttackReason {
  return Object.hasOwn(PRESENTATION_ATTACKS, reason);
}

export function attackRule(reason: AttackReason): AttackRule {
  return PRESENTATION_ATTACKS[reason];
}

/** What the flow does with one attack reason: its own setting, else the default. */
export function attackAction(settings: PresentationAttackSettings | undefined, reason: AttackReason): AttackAction {
  return settings?.[reason] ?? PRESENTATION_ATTACKS[reason].default;
}
