import type { CheckType } from './check-reasons.ts';

/**
 * The closed list of measures each check may report, in each check's order of reading, with what
 * each one is in plain English (the console shows these words, the raw name on hover; its French
 * is in the console's labels). A measure is a count, a score or a 1/0 flag (FLAG_MEASURES, shown as
 * yes or no), never a value read from the person's data. The engine's reports are checked against
 * this list by a property test (tests/engine/report-agreement.test.ts).
 */
export const CHECK_MEASURES = {
  document_quality: {
    document_found: 'Document found',
    document_long_side_px: "Document's long side, in pixels",
    document_area_fraction: 'Share of the photo the document fills',
    borders_touched: 'Photo edges the document touches',
    sharpness: 'Sharpness',
    saturated_share: 'Share of over-exposed pixels',
    glare_blob_share: 'Share of the largest glare spot',
    glare_halo_luminance: 'Brightness around the glare spot',
    text_density: 'Density of printed text',
    colour_spread: 'Colour on the document (under 1.02: no more than a copy shows)',
    pixel_grid_peak: 'Fine regular pattern, such as a screen\'s pixels (2.49 or more: a screen)',
    colour_moire_peak: 'Coloured bands, such as a screen\'s moiré (2.49 or more: a screen)',
  },
  mrz: {
    found: 'Zone found',
    confidence: 'Reading confidence',
    min_confidence: 'Confidence needed',
    corrections: 'Characters corrected',
    check_digits_valid: 'Check digits match',
    codes_valid: 'Country codes valid',
    confirmed_by_printed_zone: 'Names confirmed by the printed zone',
  },
  barcode: {
    barcodes_found: 'Barcodes decoded',
    barcodes_undecodable: 'Barcodes seen but not decoded',
    fields_compared: 'Fields compared',
    fields_differing: 'Fields that differ',
    surname_agrees: 'Surname agrees',
    given_names_agrees: 'Given names agree',
    birth_date_agrees: 'Date of birth agrees',
    expiry_date_agrees: 'Expiry date agrees',
    document_number_agrees: 'Document number agrees',
    sex_agrees: 'Sex agrees',
  },
  printed_zone: {
    characters_read: 'Characters read',
    ocr_confidence: 'Text recognition confidence (0 to 100)',
    fields_agree: 'Fields that agree',
    fields_differ: 'Fields that differ',
    fields_absent: 'Fields not found',
    surname_agrees: 'Surname agrees',
    given_names_agrees: 'Given names agree',
    birth_date_agrees: 'Date of birth agrees',
    document_number_agrees: 'Document number agrees',
    expiry_date_agrees: 'Expiry date agrees',
    nationality_agrees: 'Nationality agrees',
    sex_agrees: 'Sex agrees',
  },
  document_validity: {
    expiry_present: 'Expiry date present',
    birth_date_present: 'Date of birth present',
    minimum_age: 'Minimum age of the flow',
    issuer_is_chosen_country: 'Issued by the country chosen',
  },
  face_match: {
    document_faces: 'Faces found on the document',
    selfie_faces: 'Faces found on the selfie',
    document_face_size: "Portrait's height in the photo",
    document_face_quality: "Portrait's image quality",
    selfie_face_size: "Selfie face's height in the photo",
    selfie_yaw: 'Selfie head turn (degrees)',
    selfie_pitch: 'Selfie head tilt (degrees)',
    selfie_quality: "Selfie face's image quality",
    distance: 'Distance between the faces',
    similarity: 'Similarity of the faces',
    match_score: "Match score: the distance corrected for both faces' image quality (judged against the flow's face thresholds)",
    selfie_antispoof: "Selfie's anti-spoofing score (human's model)",
    selfie_liveness: "Selfie's liveness score (human's model)",
    medium_spectrum_peaks: 'Selfie: regular patterns in the face (screen grid, moiré, print dots)',
    medium_high_frequency: 'Selfie: share of very fine texture in the face',
    medium_saturation: "Selfie: colour saturation of the face",
    medium_dynamic_range: "Selfie: spread from the face's darkest to its brightest tones",
    medium_glare: 'Selfie: share of the face under glare',
    medium_straight_edges: 'Selfie: longest straight edge around the face (a screen, a print, a card)',
    medium_lbp_edges: "Selfie: share of the face's fine texture made of straight edges (a print smooths the skin)",
    medium_lbp_irregular: "Selfie: share of the face's fine texture that is grain or noise (a dithered print or a screen)",
    medium_network_live: "Selfie: a trained anti-spoofing network's probability that the face is live (0 to 1)",
    medium_attack_score: 'Selfie: screen or print score (0 to 1)',
  },
  liveness: {
    challenges: 'Movements asked for',
    challenges_performed: 'Movements performed',
    judged: 'Movements judged',
    mirrored: 'Images mirrored',
    turn_left_distance: 'Turn left: distance to the selfie',
    turn_left_yaw_delta: 'Turn left: head turn (degrees)',
    turn_left_pitch_delta: 'Turn left: head tilt (degrees)',
    turn_right_distance: 'Turn right: distance to the selfie',
    turn_right_yaw_delta: 'Turn right: head turn (degrees)',
    turn_right_pitch_delta: 'Turn right: head tilt (degrees)',
    look_up_distance: 'Look up: distance to the selfie',
    look_up_yaw_delta: 'Look up: head turn (degrees)',
    look_up_pitch_delta: 'Look up: head tilt (degrees)',
    look_down_distance: 'Look down: distance to the selfie',
    look_down_yaw_delta: 'Look down: head turn (degrees)',
    look_down_pitch_delta: 'Look down: head tilt (degrees)',
    passive_antispoof_min: 'Lowest anti-spoofing score',
    passive_liveness_min: 'Lowest liveness score',
    sequence_frames: 'Live sequence: frames received',
    sequence_frames_read: 'Live sequence: frames read by the face models',
    sequence_duration_ms: 'Live sequence: length of the capture (ms)',
    sequence_issue_to_upload_s: 'Live sequence: challenge issued to frames received (s)',
    sequence_fps: 'Live sequence: frames a second',
    sequence_max_gap_ms: 'Live sequence: longest gap between two frames (ms)',
    sequence_max_frame_change: 'Live sequence: largest change between two frames (0–255)',
    sequence_single_face_share: 'Live sequence: share of frames read with exactly one face',
    sequence_max_box_speed: 'Live sequence: fastest face movement (face widths a second)',
    planarity_judged_frames: 'Live sequence: frames turned enough to judge flat or round',
    planarity_residual: 'Live sequence: departure from a flat picture (eye distances; a print stays under 0.073)',
    sequence_network_frames: 'Live sequence: frames read by the trained anti-spoofing network',
    sequence_network_live_median: 'Live sequence: the network\'s median log-odds that the face is live (under −1.9: a screen or a print)',
    sequence_network_frames_under: 'Live sequence: frames the network alone reads as a screen or a print',
    sequence_yaw_max: 'Live sequence: furthest turn to the left (degrees)',
    sequence_yaw_min: 'Live sequence: furthest turn to the right (degrees, negative)',
    sequence_pitch_max: 'Live sequence: furthest look up (degrees)',
    sequence_pitch_min: 'Live sequence: furthest look down (degrees, negative)',
    sequence_movements_made: 'Live sequence: movements made',
    sequence_frames_distance_max: 'Live sequence: largest distance between the faces of the frames',
    sequence_selfie_distance_max: 'Live sequence: largest distance to the selfie',
    camera_virtual_label: 'Camera named like a virtual camera',
    camera_label_missing: 'Camera without a name',
    camera_regular_timing: 'Frames timed too regularly for a camera',
    camera_aspect_mismatch: 'Frames shaped unlike the camera said',
    camera_signals: 'Signals of an injected camera',
    frame_interval_jitter_ms: 'Spread of the intervals between frames (ms)',
  },
  duplicates: {
    same_document: 'Other cases with the same document',
    same_face: 'Other cases with the same face',
    faces_compared: 'Faces compared',
  },
  data_comparison: {
    document_read: 'Document read',
    fields_compared: 'Fields compared',
    fields_mismatched: 'Fields that differ',
    fields_missing: 'Fields missing on one side',
  },
  questionnaire: {
    points: 'Points scored',
    threshold: 'Review threshold',
    flags: 'Flagged answers',
  },
  wallet: {
    presentation_accepted: 'Presentation accepted',
    credential_mdoc: 'Credential in mdoc format (ISO/IEC 18013-5); otherwise SD-JWT VC',
    issuer_trusted: "Issuer chains to the client's trust anchors",
    device_binding_valid: 'Signed by the device the credential is bound to',
    status_checked: 'Revocation status checked',
    claims_disclosed: 'Claims disclosed',
    credential_days_left: 'Days until the credential expires',
    presentations_refused: 'Presentations refused before the accepted one',
  },
} as const satisfies Record<CheckType, Record<string, string>>;

export type CheckMeasures = typeof CHECK_MEASURES;

/** Measures that are 1 (yes) or 0 (no). */
const FLAG_MEASURES: ReadonlySet<string> = new Set([
  'document_found',
  'found',
  'check_digits_valid',
  'codes_valid',
  'confirmed_by_printed_zone',
  'expiry_present',
  'birth_date_present',
  'issuer_is_chosen_country',
  'mirrored',
  'document_read',
]);

export function isFlagMeasure(name: string): boolean {
  return FLAG_MEASURES.has(name) || name.endsWith('_agrees');
}

/** Whether `name` is a measure the check `type` may report. */
export function isCheckMeasure(type: CheckType, name: string): boolean {
  return Object.hasOwn(CHECK_MEASURES[type], name);
}
