/**
 * The combined presentation-attack score's weights: written by scripts/fit-pad-model.ts from the
 * TRAINING half of the attack set (people and subjects split by a hash; never pad-dev subjects
 * 0001-0008, which are not here). Do not edit by hand: rerun the script.
 */
export type MediumFeature = 'spectrum_peaks' | 'high_frequency' | 'saturation' | 'dynamic_range' | 'glare' | 'straight_edges' | 'grain' | 'grain_to_detail' | 'lbp_edges' | 'lbp_irregular' | 'antispoof' | 'liveness' | 'network_live' | 'texture_net';

export interface MediumModel {
  /** Each feature standardised by its training mean and scale (then held within ±Z_LIMIT), and its weight. */
  features: Array<{ name: MediumFeature; mean: number; scale: number; weight: number }>;
  /**
   * Products of two standardised features (a square when a = b), themselves standardised: the
   * model is a logistic regression over the features and their pairwise products, so that one
   * measure can count for more where another says little (fit-pad-model.ts says why).
   */
  pairs: Array<{ a: MediumFeature; b: MediumFeature; mean: number; scale: number; weight: number }>;
  bias: number;
  /** Score at or above which a still is taken for an attack (the training half's rule: fit-pad-model.ts). */
  threshold: number;
}

/**
 * How many standard deviations a feature may stand from its training mean before it is held
 * there: a product of two far-out values would otherwise decide alone, on a still unlike any the
 * model was fitted on (23 values of the 2,892 stills of bench:pad's set are past 4, none past 4.6).
 */
export const Z_LIMIT = 4;

export const MEDIUM_MODEL: MediumModel = {
  features: [
    { name: 'spectrum_peaks', mean: 1.68633, scale: 0.79687, weight: 0.479 },
    { name: 'straight_edges', mean: 0.29148, scale: 0.18995, weight: 0.4453 },
    { name: 'grain', mean: 0.16288, scale: 0.45482, weight: 0.3755 },
    { name: 'grain_to_detail', mean: -0.58267, scale: 0.46045, weight: 0.5656 },
    { name: 'liveness', mean: 0.88442, scale: 0.19024, weight: -0.2406 },
    { name: 'network_live', mean: 1.92654, scale: 5.65963, weight: -1.0752 },
    { name: 'texture_net', mean: 0.06043, scale: 6.26598, weight: 1.4537 },
  ],
  pairs: [
    { a: 'spectrum_peaks', b: 'spectrum_peaks', mean: 1, scale: 1.91871, weight: 0.2397 },
    { a: 'spectrum_peaks', b: 'straight_edges', mean: 0.12165, scale: 0.99293, weight: 0.0399 },
    { a: 'spectrum_peaks', b: 'grain', mean: 0.62285, scale: 1.65932, weight: 0.2043 },
    { a: 'spectrum_peaks', b: 'grain_to_detail', mean: 0.77182, scale: 1.74623, weight: 0.0797 },
    { a: 'spectrum_peaks', b: 'liveness', mean: -0.05411, scale: 0.94111, weight: -0.0533 },
    { a: 'spectrum_peaks', b: 'network_live', mean: -0.09951, scale: 0.74885, weight: 0.4498 },
    { a: 'spectrum_peaks', b: 'texture_net', mean: 0.63184, scale: 1.39624, weight: -0.2223 },
    { a: 'straight_edges', b: 'straight_edges', mean: 1, scale: 0.93649, weight: -0.1483 },
    { a: 'straight_edges', b: 'grain', mean: 0.10412, scale: 0.99557, weight: -0.158 },
    { a: 'straight_edges', b: 'grain_to_detail', mean: 0.12845, scale: 0.9748, weight: -0.1523 },
    { a: 'straight_edges', b: 'liveness', mean: -0.30382, scale: 0.96548, weight: -0.0514 },
    { a: 'straight_edges', b: 'network_live', mean: -0.33029, scale: 0.94305, weight: 0.0358 },
    { a: 'straight_edges', b: 'texture_net', mean: 0.30828, scale: 0.92376, weight: 0.1011 },
    { a: 'grain', b: 'grain', mean: 1, scale: 1.71663, weight: -0.0747 },
    { a: 'grain', b: 'grain_to_detail', mean: 0.88555, scale: 1.78424, weight: 0.1463 },
    { a: 'grain', b: 'liveness', mean: 0.032, scale: 0.99286, weight: 0.192 },
    { a: 'grain', b: 'network_live', mean: 0.04133, scale: 0.81216, weight: 0.2251 },
    { a: 'grain', b: 'texture_net', mean: 0.52714, scale: 1.4785, weight: -0.162 },
    { a: 'grain_to_detail', b: 'grain_to_detail', mean: 1, scale: 1.87297, weight: 0.2387 },
    { a: 'grain_to_detail', b: 'liveness', mean: -0.0134, scale: 1.03061, weight: 0.1118 },
    { a: 'grain_to_detail', b: 'network_live', mean: -0.08112, scale: 0.78537, weight: 0.4211 },
    { a: 'grain_to_detail', b: 'texture_net', mean: 0.69078, scale: 1.46879, weight: -0.0576 },
    { a: 'liveness', b: 'liveness', mean: 0.97724, scale: 2.53911, weight: 0.1096 },
    { a: 'liveness', b: 'network_live', mean: 0.33116, scale: 1.05672, weight: -0.0236 },
    { a: 'liveness', b: 'texture_net', mean: -0.29963, scale: 0.84372, weight: 0.1142 },
    { a: 'network_live', b: 'network_live', mean: 1, scale: 1.02434, weight: 0.2918 },
    { a: 'network_live', b: 'texture_net', mean: -0.4868, scale: 0.66985, weight: -0.0017 },
    { a: 'texture_net', b: 'texture_net', mean: 0.97306, scale: 1.41164, weight: -0.0261 },
  ],
  bias: 0.1681,
  threshold: 0.488,
};

/**
 * The document as the selfie: a selfie whose face is this near the document's portrait (the
 * descriptor distance of distance.ts) is the portrait itself photographed again. Chosen by the
 * same script, on the training half, between the distances of the same photo re-photographed
 * and those of two different photos of one person.
 */
export const SELFIE_IS_PORTRAIT_MAX_DISTANCE = 0.506;
