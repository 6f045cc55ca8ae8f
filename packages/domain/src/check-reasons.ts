/**
 * The closed list of reasons a check may report, shared by the engine, the API, the console and
 * the docs (docs/checks.md is checked against it). A reason names what was found, never a value
 * read from the person's data. Each reason belongs to one check type.
 */
export const CHECK_TYPES = [
  'document_quality',
  'mrz',
  'barcode',
  'printed_zone',
  'document_validity',
  'face_match',
  'liveness',
  'duplicates',
  'data_comparison',
  'questionnaire',
  'wallet',
] as const;
export type CheckType = (typeof CHECK_TYPES)[number];
type CheckStatus = 'ok' | 'attention' | 'failed';

const r = (check: CheckType, label: string) => ({ check, label });

export const CHECK_REASONS = {
  // document_quality: failures ask the person to retake the document, they never refuse
  image_unreadable: r('document_quality', 'The image could not be decoded.'),
  resolution_too_low: r('document_quality', 'The image has too few pixels to read the document.'),
  image_blurred: r('document_quality', 'The document photo is blurred.'),
  image_glare: r('document_quality', 'Glare hides part of the document.'),
  document_not_found: r('document_quality', 'No document was found in the photo.'),
  document_cut_off: r('document_quality', 'Part of the document is outside the photo.'),
  document_screen_replay_suspected: r('document_quality', 'The document looks photographed from a screen, not held in hand.'),
  document_photocopy_suspected: r('document_quality', 'The document looks like a photocopy or a print, not the original.'),
  // mrz
  mrz_not_found: r('mrz', 'No machine-readable zone was found on the document.'),
  mrz_unreadable: r('mrz', 'The machine-readable zone was found but could not be read with valid check digits.'),
  mrz_low_confidence: r('mrz', 'The check digits match, but characters they do not cover (such as the names) were read with too little confidence.'),
  mrz_check_digit_failed: r('mrz', 'A check digit of the machine-readable zone does not match.'),
  mrz_invalid_code: r('mrz', 'The issuing state or nationality is not a valid code.'),
  mrz_specimen: r('mrz', 'The document carries a specimen code (such as UTO).'),
  mrz_corrected: r('mrz', 'Characters were corrected with the check digits (one correction only was possible).'),
  // barcode
  barcode_not_found: r('barcode', 'No barcode was found where the document should carry one.'),
  barcode_unreadable: r('barcode', 'A barcode was found but could not be decoded.'),
  barcode_differs: r('barcode', 'The barcode disagrees with the machine-readable or printed zone.'),
  // printed_zone
  printed_zone_unreadable: r('printed_zone', 'The printed zone could not be read.'),
  printed_zone_differs: r('printed_zone', 'The printed zone disagrees with the machine-readable zone.'),
  printed_zone_not_compared: r('printed_zone', 'The printed zone was read, but no field of the machine-readable zone could be compared with it.'),
  // document_validity
  document_expired: r('document_validity', 'The document has expired.'),
  birth_date_implausible: r('document_validity', 'The date of birth is not plausible.'),
  under_minimum_age: r('document_validity', 'The person is under the minimum age of the flow.'),
  document_not_accepted: r('document_validity', 'The document type or issuing country is not accepted by the flow.'),
  document_type_differs: r('document_validity', 'The document read is not the type the person chose.'),
  // face_match
  document_face_not_found: r('face_match', 'No face was found on the document.'),
  document_face_too_small: r('face_match', 'The portrait on the document is too small to compare.'),
  selfie_face_not_found: r('face_match', 'No face was found on the selfie.'),
  selfie_several_faces: r('face_match', 'The selfie shows more than one face.'),
  selfie_face_too_small: r('face_match', 'The face on the selfie is too small.'),
  selfie_not_frontal: r('face_match', 'The face on the selfie is not facing the camera.'),
  selfie_face_unclear: r('face_match', 'The face on the selfie is too unclear to compare (blurred, dark or partly hidden).'),
  faces_uncertain: r('face_match', 'The selfie and the portrait are close but not close enough to match.'),
  faces_differ: r('face_match', 'The selfie does not match the document portrait.'),
  presentation_attack_suspected: r('face_match', 'The selfie looks like a screen or a print held to the camera.'),
  selfie_is_document_portrait: r('face_match', "The selfie looks like the document's own portrait photographed again."),
  // liveness
  challenge_missing: r('liveness', 'An image of the active challenge is missing.'),
  challenge_not_performed: r('liveness', 'The head movement asked for was not performed.'),
  challenge_face_not_found: r('liveness', 'No single face was found on a challenge image.'),
  challenge_person_differs: r('liveness', 'The challenge images do not show the person of the selfie.'),
  challenges_not_judged: r('liveness', 'The head movements could not be judged without one usable face on the selfie.'),
  challenge_not_live: r('liveness', 'The face moved like a flat picture, not like a head turning.'),
  challenge_screen_or_print: r('liveness', 'The challenge frames look like a face on a screen or a print held to the camera.'),
  challenge_expired: r('liveness', 'The capture does not answer the challenge issued for it in time (stale, reused or another challenge).'),
  challenge_not_continuous: r('liveness', 'The challenge frames are not one continuous capture of one face.'),
  challenge_stills: r('liveness', 'The head movements came as one still per movement, not filmed for a challenge drawn by the service (the flow allows stills).'),
  camera_injection_suspected: r('liveness', 'What the browser said about the camera points to an injected or virtual camera.'),
  // duplicates
  duplicate_document: r('duplicates', 'Another case of the client carries the same document.'),
  duplicate_face: r('duplicates', 'Another case of the client carries the same face.'),
  // data_comparison
  subject_mismatch: r('data_comparison', 'What was declared or entered differs from the document.'),
  subject_missing: r('data_comparison', 'A field to compare is missing on one side.'),
  // questionnaire
  questionnaire_threshold: r('questionnaire', 'The answers reach the review threshold of the flow.'),
  questionnaire_flagged: r('questionnaire', 'An answer carries a flag of the flow.'),
  // wallet: a presentation from a digital identity wallet (docs/wallet.md). A refused presentation is
  // stored nowhere; its reason is told to the person and journaled, and the case's check reports it
  // when the journey ends without an accepted one.
  wallet_issuer_untrusted: r('wallet', "The credential's issuer does not chain to a trust anchor of the client."),
  wallet_credential_expired: r('wallet', 'The credential has expired or is not yet valid.'),
  wallet_credential_revoked: r('wallet', 'The issuer has revoked or suspended the credential.'),
  wallet_device_binding_invalid: r('wallet', 'The presentation is not signed by the device the credential is bound to, for this request.'),
  wallet_presentation_invalid: r('wallet', 'The presentation is malformed, tampered with, or answers another request.'),
  wallet_claims_not_requested: r('wallet', 'The presentation discloses claims the request did not ask for.'),
  wallet_status_unavailable: r('wallet', "The credential's status list could not be fetched or verified."),
  // any check, sandbox only
  sandbox_forced: r('document_validity', 'The outcome was forced by a sandbox test value.'),
} as const satisfies Record<string, { check: CheckType; label: string }>;
export type CheckReason = keyof typeof CHECK_REASONS;
export const CHECK_REASON_LIST = Object.keys(CHECK_REASONS) as CheckReason[];

/** Why a review task was opened other than a check's reason: the checks runner's own. */
export const TASK_ONLY_REASONS = {
  checks_unavailable: 'The checks could not run; a person must look at the case.',
} as const;
/** A review task's reasons: its checks' reasons, or the runner's own. */
export type TaskReason = CheckReason | keyof typeof TASK_ONLY_REASONS;

/** One check's report, as stored on the case and returned by GET /v1/cases/{id}: no personal data. */
export interface CheckReport {
  type: CheckType;
  status: CheckStatus;
  reasons: CheckReason[];
  measures: Record<string, number>;
}
