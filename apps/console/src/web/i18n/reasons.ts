import { CHECK_REASONS, REASON_CODES, TASK_ONLY_REASONS, type CheckReason, type CheckType, type ReasonCode } from '../domain.ts';
import type { Locale } from './locale.ts';

/**
 * Reason codes in plain words. English comes from the domain's own labels (written once there);
 * French is here, typed over the same closed lists so that a new code fails the typecheck until it
 * has its words. A code this console does not know yet is shown as the code itself.
 */
const CHECK_REASONS_FR: Record<CheckReason, string> = {
  image_unreadable: "L'image n'a pas pu être décodée.",
  resolution_too_low: "L'image a trop peu de pixels pour lire le document.",
  image_blurred: 'La photo du document est floue.',
  image_glare: 'Un reflet cache une partie du document.',
  document_not_found: "Aucun document n'a été trouvé sur la photo.",
  document_cut_off: 'Une partie du document est hors de la photo.',
  document_screen_replay_suspected: 'Le document semble photographié sur un écran, et non tenu en main.',
  document_photocopy_suspected: 'Le document semble être une photocopie ou un tirage, et non l’original.',
  mrz_not_found: "Aucune bande de lecture automatique n'a été trouvée sur le document.",
  mrz_unreadable: 'La bande de lecture automatique a été trouvée mais pas lue avec des chiffres de contrôle valides.',
  mrz_low_confidence: 'Les chiffres de contrôle concordent, mais des caractères qu’ils ne couvrent pas (comme les noms) ont été lus avec trop peu de confiance.',
  mrz_check_digit_failed: 'Un chiffre de contrôle de la bande de lecture automatique ne correspond pas.',
  mrz_invalid_code: "L'État émetteur ou la nationalité n'est pas un code valide.",
  mrz_specimen: 'Le document porte un code de spécimen (comme UTO).',
  mrz_corrected: 'Des caractères ont été corrigés grâce aux chiffres de contrôle (une seule correction était possible).',
  barcode_not_found: "Aucun code-barres n'a été trouvé là où le document devrait en porter un.",
  barcode_unreadable: "Un code-barres a été trouvé mais n'a pas pu être décodé.",
  barcode_differs: 'Le code-barres ne concorde pas avec la bande de lecture automatique ou la zone imprimée.',
  printed_zone_unreadable: "La zone imprimée n'a pas pu être lue.",
  printed_zone_not_compared: "La zone imprimée a été lue, mais aucun champ de la bande de lecture automatique n'a pu y être comparé.",
  printed_zone_differs: 'La zone imprimée ne concorde pas avec la bande de lecture automatique.',
  document_expired: 'Le document a expiré.',
  birth_date_implausible: "La date de naissance n'est pas plausible.",
  under_minimum_age: "La personne n'a pas l'âge minimum du parcours.",
  document_not_accepted: "Le type de document ou le pays émetteur n'est pas accepté par le parcours.",
  document_type_differs: "Le document lu n'est pas du type choisi par la personne.",
  document_face_not_found: "Aucun visage n'a été trouvé sur le document.",
  document_face_too_small: 'Le portrait du document est trop petit pour être comparé.',
  selfie_face_not_found: "Aucun visage n'a été trouvé sur le selfie.",
  selfie_several_faces: 'Le selfie montre plus d’un visage.',
  selfie_face_too_small: 'Le visage du selfie est trop petit.',
  selfie_not_frontal: 'Le visage du selfie ne fait pas face à la caméra.',
  selfie_face_unclear: 'Le visage du selfie est trop peu net pour être comparé (flou, sombre ou en partie caché).',
  faces_uncertain: 'Le selfie et le portrait sont proches mais pas assez pour concorder.',
  faces_differ: 'Le selfie ne correspond pas au portrait du document.',
  presentation_attack_suspected: 'Le selfie semble montrer un écran ou un tirage papier tenu devant la caméra.',
  selfie_is_document_portrait: 'Le selfie semble être le portrait du document photographié à nouveau.',
  challenge_missing: "Une image du défi actif manque.",
  challenge_not_performed: "Le mouvement de tête demandé n'a pas été fait.",
  challenge_face_not_found: "Aucun visage unique n'a été trouvé sur une image du défi.",
  challenge_person_differs: 'Les images du défi ne montrent pas la personne du selfie.',
  challenges_not_judged: 'Les mouvements de tête n’ont pas pu être jugés sans un visage exploitable sur le selfie.',
  challenge_not_live: 'Le visage a bougé comme une image plate, pas comme une tête qui tourne.',
  challenge_screen_or_print: 'Les images du défi ressemblent à un visage sur un écran ou sur un tirage tenu devant la caméra.',
  challenge_expired: 'La capture ne répond pas à temps au défi émis pour elle (périmé, réutilisé ou autre défi).',
  challenge_not_continuous: 'Les images du défi ne sont pas une seule capture continue d’un seul visage.',
  challenge_stills: 'Les mouvements de la tête sont arrivés en une photo par mouvement, non filmés pour un défi tiré par le service (le flux accepte les photos).',
  camera_injection_suspected: 'Ce que le navigateur a dit de la caméra indique une caméra injectée ou virtuelle.',
  duplicate_document: 'Un autre dossier du client porte le même document.',
  duplicate_face: 'Un autre dossier du client porte le même visage.',
  subject_mismatch: 'Ce qui a été déclaré ou saisi diffère du document.',
  subject_missing: "Un champ à comparer manque d'un côté.",
  questionnaire_threshold: 'Les réponses atteignent le seuil de révision du parcours.',
  questionnaire_flagged: 'Une réponse porte un signalement du parcours.',
  wallet_issuer_untrusted: "L'émetteur de l'attestation ne se rattache à aucune ancre de confiance du client.",
  wallet_credential_expired: "L'attestation a expiré ou n'est pas encore valide.",
  wallet_credential_revoked: "L'émetteur a révoqué ou suspendu l'attestation.",
  wallet_device_binding_invalid: "La présentation n'est pas signée, pour cette demande, par l'appareil auquel l'attestation est liée.",
  wallet_presentation_invalid: 'La présentation est mal formée, altérée, ou répond à une autre demande.',
  wallet_claims_not_requested: "La présentation divulgue des données que la demande n'a pas demandées.",
  wallet_status_unavailable: "La liste de statut de l'attestation n'a pas pu être obtenue ou vérifiée.",
  sandbox_forced: 'Le résultat a été imposé par une valeur de test du bac à sable.',
};

const DECISION_REASONS_FR: Record<ReasonCode, string> = {
  document_expired: 'Le document a expiré.',
  document_not_accepted: "Le type de document ou le pays émetteur n'est pas accepté.",
  document_tampered: 'Le document montre des signes de falsification ou de contrefaçon.',
  document_specimen: 'Le document est un spécimen ou une copie.',
  face_mismatch: 'Le visage ne correspond pas au portrait du document.',
  liveness_failed: "La présence de la personne n'a pas été démontrée.",
  data_mismatch: "L'identité lue ne correspond pas à ce qui a été déclaré.",
  underage: "La personne n'a pas l'âge minimum du parcours.",
  duplicate_identity: 'Un autre dossier porte le même document ou visage.',
  suspected_fraud: 'Autres signes de fraude.',
  document_blurred: 'La photo du document est floue.',
  document_glare: 'Un reflet cache une partie du document.',
  document_cropped: 'Une partie du document est hors de la photo.',
  document_side_missing: 'Une face du document manque.',
  face_unclear: 'Le selfie est trop sombre, flou ou en partie caché.',
};

/** Reasons a task carries that are not check reasons (the checks runner's own). */
const TASK_ONLY_REASONS_FR: Record<keyof typeof TASK_ONLY_REASONS, string> = {
  checks_unavailable: "Les contrôles n'ont pas pu s'exécuter ; une personne doit examiner le dossier.",
};

const CHECK_TYPES_WORDS: Record<CheckType, Record<Locale, string>> = {
  document_quality: { en: 'Document photo quality', fr: 'Qualité de la photo du document' },
  mrz: { en: 'Machine-readable zone', fr: 'Bande de lecture automatique' },
  barcode: { en: 'Barcode', fr: 'Code-barres' },
  printed_zone: { en: 'Printed zone', fr: 'Zone imprimée' },
  document_validity: { en: 'Document validity', fr: 'Validité du document' },
  face_match: { en: 'Face match', fr: 'Correspondance des visages' },
  liveness: { en: 'Liveness', fr: 'Vivacité' },
  duplicates: { en: 'Duplicates', fr: 'Doublons' },
  data_comparison: { en: 'Data comparison', fr: 'Comparaison des données' },
  questionnaire: { en: 'Questionnaire', fr: 'Questionnaire' },
  wallet: { en: 'Identity wallet', fr: "Portefeuille d'identité" },
};

/** A check reason (or a task reason) in plain words. */
export function checkReasonWords(code: string, locale: Locale): string {
  if (code in CHECK_REASONS) return locale === 'fr' ? CHECK_REASONS_FR[code as CheckReason] : CHECK_REASONS[code as CheckReason].label;
  if (code in TASK_ONLY_REASONS) return locale === 'fr' ? TASK_ONLY_REASONS_FR[code as keyof typeof TASK_ONLY_REASONS] : TASK_ONLY_REASONS[code as keyof typeof TASK_ONLY_REASONS];
  return code;
}

/** A decision reason (the closed list of REASON_CODES) in plain words. */
export function decisionReasonWords(code: string, locale: Locale): string {
  if (code in REASON_CODES) return locale === 'fr' ? DECISION_REASONS_FR[code as ReasonCode] : REASON_CODES[code as ReasonCode].label;
  return code;
}

export function checkTypeWords(type: string, locale: Locale): string {
  return CHECK_TYPES_WORDS[type as CheckType]?.[locale] ?? type;
}
