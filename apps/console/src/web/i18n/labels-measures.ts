import { CHECK_MEASURES, isFlagMeasure, type CheckMeasures, type CheckType } from '../domain.ts';
import type { Locale } from './locale.ts';

/**
 * Check measures in plain words. English comes from the domain's catalogue (written once there);
 * French is here, typed over the same lists so that a measure added there fails the typecheck
 * until it has its words. A name neither knows is shown as itself (an older report, say).
 */
const MEASURES_FR: { [T in CheckType]: Record<keyof CheckMeasures[T], string> } = {
  document_quality: {
    document_found: 'Document trouvé',
    document_long_side_px: 'Grand côté du document, en pixels',
    document_area_fraction: 'Part de la photo occupée par le document',
    borders_touched: 'Bords de la photo touchés par le document',
    sharpness: 'Netteté',
    saturated_share: 'Part de pixels surexposés',
    glare_blob_share: 'Part du plus grand reflet',
    glare_halo_luminance: 'Luminosité autour du reflet',
    text_density: 'Densité du texte imprimé',
    colour_spread: 'Couleur sur le document (sous 1,02 : pas plus qu’une photocopie)',
    pixel_grid_peak: 'Motif fin et régulier, comme les pixels d’un écran (2,49 ou plus : un écran)',
    colour_moire_peak: 'Bandes colorées, comme le moiré d’un écran (2,49 ou plus : un écran)',
    screen_network: "Log-cote, selon le réseau du service pour les documents, que la texture fine du document soit celle d'un écran (−0,09 ou plus : un écran)",
    copy_network: "Log-cote, selon le réseau du service pour les documents, que la texture fine du document soit celle d'une copie sur papier (0,74 ou plus : une copie)",
    network_patches: 'Carrés du document lus par le réseau (0 : non lu)',
  },
  mrz: {
    found: 'Bande trouvée',
    confidence: 'Confiance de lecture',
    min_confidence: 'Confiance requise',
    corrections: 'Caractères corrigés',
    check_digits_valid: 'Chiffres de contrôle concordants',
    codes_valid: 'Codes pays valides',
    confirmed_by_printed_zone: 'Noms confirmés par la zone imprimée',
  },
  barcode: {
    barcodes_found: 'Codes-barres décodés',
    barcodes_undecodable: 'Codes-barres vus mais non décodés',
    fields_compared: 'Champs comparés',
    fields_differing: 'Champs qui diffèrent',
    surname_agrees: 'Nom concordant',
    given_names_agrees: 'Prénoms concordants',
    birth_date_agrees: 'Date de naissance concordante',
    expiry_date_agrees: 'Date d’expiration concordante',
    document_number_agrees: 'Numéro du document concordant',
    sex_agrees: 'Sexe concordant',
  },
  printed_zone: {
    characters_read: 'Caractères lus',
    ocr_confidence: 'Confiance de la reconnaissance du texte (0 à 100)',
    fields_agree: 'Champs concordants',
    fields_differ: 'Champs qui diffèrent',
    fields_absent: 'Champs non trouvés',
    surname_agrees: 'Nom concordant',
    given_names_agrees: 'Prénoms concordants',
    birth_date_agrees: 'Date de naissance concordante',
    document_number_agrees: 'Numéro du document concordant',
    expiry_date_agrees: 'Date d’expiration concordante',
    nationality_agrees: 'Nationalité concordante',
    sex_agrees: 'Sexe concordant',
  },
  document_validity: {
    expiry_present: 'Date d’expiration présente',
    birth_date_present: 'Date de naissance présente',
    minimum_age: 'Âge minimum du parcours',
    issuer_is_chosen_country: 'Émis par le pays choisi',
  },
  face_match: {
    document_faces: 'Visages trouvés sur le document',
    selfie_faces: 'Visages trouvés sur le selfie',
    document_face_size: 'Hauteur du portrait dans la photo',
    document_face_quality: 'Qualité d’image du portrait',
    selfie_face_size: 'Hauteur du visage du selfie dans la photo',
    selfie_yaw: 'Rotation de la tête sur le selfie (degrés)',
    selfie_pitch: 'Inclinaison de la tête sur le selfie (degrés)',
    selfie_quality: 'Qualité d’image du visage du selfie',
    distance: 'Distance entre les visages',
    similarity: 'Ressemblance des visages',
    match_score: 'Score de correspondance : la distance corrigée selon la qualité d’image des deux visages (comparé aux seuils du parcours)',
    selfie_antispoof: 'Score anti-usurpation du selfie (modèle de human)',
    selfie_liveness: 'Score de vivacité du selfie (modèle de human)',
    medium_spectrum_peaks: 'Selfie : motifs réguliers dans le visage (grille d’écran, moiré, trame d’impression)',
    medium_high_frequency: 'Selfie : part de texture très fine dans le visage',
    medium_saturation: 'Selfie : saturation des couleurs du visage',
    medium_dynamic_range: 'Selfie : écart entre les tons les plus sombres et les plus clairs du visage',
    medium_glare: 'Selfie : part du visage sous un reflet',
    medium_straight_edges: 'Selfie : plus long bord droit autour du visage (un écran, un tirage, une carte)',
    medium_grain: 'Selfie : grain le plus fin du visage (trame ou points d’un tirage, grille d’un écran, bruit de l’appareil)',
    medium_grain_to_detail: 'Selfie : ce grain rapporté au détail du visage (du grain sur une image floue : un tirage ou un écran photographié)',
    medium_lbp_edges: 'Selfie : part de la texture fine du visage faite de bords nets (un tirage lisse la peau)',
    medium_lbp_irregular: 'Selfie : part de la texture fine du visage en grain ou en bruit (un tirage tramé ou un écran)',
    medium_network_live: 'Selfie : probabilité que le visage soit vivant selon un réseau anti-fraude entraîné (0 à 1)',
    medium_texture_net: "Selfie : log-cote, selon le réseau de texture du service, que la texture fine du visage soit celle d'un écran ou d'un tirage (au-dessus de 0 : plus probable)",
    medium_attack_score: 'Selfie : score écran ou tirage (0 à 1)',
  },
  liveness: {
    challenges: 'Mouvements demandés',
    challenges_performed: 'Mouvements faits',
    judged: 'Mouvements jugés',
    mirrored: 'Images en miroir',
    turn_left_distance: 'Tourner à gauche : distance au selfie',
    turn_left_yaw_delta: 'Tourner à gauche : rotation de la tête (degrés)',
    turn_left_pitch_delta: 'Tourner à gauche : inclinaison de la tête (degrés)',
    turn_right_distance: 'Tourner à droite : distance au selfie',
    turn_right_yaw_delta: 'Tourner à droite : rotation de la tête (degrés)',
    turn_right_pitch_delta: 'Tourner à droite : inclinaison de la tête (degrés)',
    look_up_distance: 'Lever la tête : distance au selfie',
    look_up_yaw_delta: 'Lever la tête : rotation de la tête (degrés)',
    look_up_pitch_delta: 'Lever la tête : inclinaison de la tête (degrés)',
    look_down_distance: 'Baisser la tête : distance au selfie',
    look_down_yaw_delta: 'Baisser la tête : rotation de la tête (degrés)',
    look_down_pitch_delta: 'Baisser la tête : inclinaison de la tête (degrés)',
    passive_antispoof_min: 'Score anti-usurpation le plus bas',
    passive_liveness_min: 'Score de vivacité le plus bas',
    sequence_frames: 'Séquence en direct : images reçues',
    sequence_frames_read: 'Séquence en direct : images lues par les modèles du visage',
    sequence_duration_ms: 'Séquence en direct : durée de la prise (ms)',
    sequence_issue_to_upload_s: 'Séquence en direct : du défi émis aux images reçues (s)',
    sequence_fps: 'Séquence en direct : images par seconde',
    sequence_max_gap_ms: 'Séquence en direct : plus long écart entre deux images (ms)',
    sequence_max_frame_change: 'Séquence en direct : plus grand changement entre deux images (0–255)',
    sequence_single_face_share: 'Séquence en direct : part des images lues avec un seul visage',
    sequence_max_box_speed: 'Séquence en direct : mouvement le plus rapide du visage (largeurs de visage par seconde)',
    planarity_judged_frames: 'Séquence en direct : images assez tournées pour juger plat ou en relief',
    planarity_residual: 'Séquence en direct : écart à une image plate (en écarts des yeux ; un tirage reste sous 0,073)',
    sequence_network_frames: 'Séquence en direct : images lues par le réseau anti-fraude entraîné',
    sequence_network_live_median: 'Séquence en direct : log-cote médiane que le visage soit vivant selon le réseau (sous −1,9 : un écran ou un tirage)',
    sequence_network_frames_under: 'Séquence en direct : images que le réseau seul lit comme un écran ou un tirage',
    sequence_yaw_max: 'Séquence en direct : rotation la plus forte vers la gauche (degrés)',
    sequence_yaw_min: 'Séquence en direct : rotation la plus forte vers la droite (degrés, négatif)',
    sequence_pitch_max: 'Séquence en direct : tête levée au plus haut (degrés)',
    sequence_pitch_min: 'Séquence en direct : tête baissée au plus bas (degrés, négatif)',
    sequence_movements_made: 'Séquence en direct : mouvements faits',
    sequence_frames_distance_max: 'Séquence en direct : plus grande distance entre les visages des images',
    sequence_selfie_distance_max: 'Séquence en direct : plus grande distance au selfie',
    camera_virtual_label: 'Caméra nommée comme une caméra virtuelle',
    camera_label_missing: 'Caméra sans nom',
    camera_regular_timing: 'Images datées trop régulièrement pour une caméra',
    camera_aspect_mismatch: 'Images d’une autre forme que celle annoncée par la caméra',
    camera_signals: 'Signes d’une caméra injectée',
    frame_interval_jitter_ms: 'Dispersion des intervalles entre images (ms)',
  },
  duplicates: {
    same_document: 'Autres dossiers avec le même document',
    same_face: 'Autres dossiers avec le même visage',
    faces_compared: 'Visages comparés',
  },
  data_comparison: {
    document_read: 'Document lu',
    fields_compared: 'Champs comparés',
    fields_mismatched: 'Champs qui diffèrent',
    fields_missing: 'Champs manquants d’un côté',
  },
  questionnaire: {
    points: 'Points obtenus',
    threshold: 'Seuil de révision',
    flags: 'Réponses signalées',
  },
  wallet: {
    presentation_accepted: 'Présentation acceptée',
    credential_mdoc: 'Attestation au format mdoc (ISO/IEC 18013-5) ; sinon SD-JWT VC',
    issuer_trusted: 'Émetteur rattaché aux ancres de confiance du client',
    device_binding_valid: "Signée par l'appareil auquel l'attestation est liée",
    status_checked: 'Statut de révocation vérifié',
    claims_disclosed: 'Données divulguées',
    credential_days_left: "Jours avant l'expiration de l'attestation",
    presentations_refused: "Présentations refusées avant celle acceptée",
  },
};

/** A measure of a check in plain words; the name itself when unknown (the checks panel shows the name on hover either way). */
export function measureWords(type: string, name: string, locale: Locale): string {
  if (!Object.hasOwn(CHECK_MEASURES, type)) return name;
  const words: Record<string, string> = locale === 'fr' ? MEASURES_FR[type as CheckType] : CHECK_MEASURES[type as CheckType];
  return Object.hasOwn(words, name) ? words[name]! : name;
}

const YES_NO: Record<Locale, [yes: string, no: string]> = { en: ['yes', 'no'], fr: ['oui', 'non'] };

/** A measure's value as shown: a flag as yes or no, a whole number as is, any other to three decimals in the locale's way. */
export function measureValue(name: string, value: number, locale: Locale): string {
  if (isFlagMeasure(name) && (value === 0 || value === 1)) return YES_NO[locale][value === 1 ? 0 : 1];
  return Number.isInteger(value) ? String(value) : value.toLocaleString(locale, { maximumFractionDigits: 3 });
}

/** A report's measures in the catalogue's order (the order they are best read in), unknown ones last. */
export function orderedMeasures(type: string, measures: Record<string, number>): [string, number][] {
  const order: readonly string[] = Object.hasOwn(CHECK_MEASURES, type) ? Object.keys(CHECK_MEASURES[type as CheckType]) : [];
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return Object.entries(measures).sort(([a], [b]) => rank(a) - rank(b));
}
