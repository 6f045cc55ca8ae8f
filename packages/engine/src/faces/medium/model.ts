/**
 * The combined presentation-attack score's weights: written by scripts/fit-pad-model.ts from the
 * TRAINING half of the attack set (people and subjects split by a hash; never pad-dev subjects
 * 0001-0008, which are not here). Do not edit by hand: rerun the script.
 */
export type MediumFeature = 'spectrum_peaks' | 'high_frequency' | 'saturation' | 'dynamic_range' | 'glare' | 'straight_edges' | 'grain' | 'grain_to_detail' | 'lbp_edges' | 'lbp_irregular' | 'antispoof' | 'liveness' | 'network_live';

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
 * model was fitted on (a handful of the 1,700 stills of bench:pad's set are past 4, none past 4.6).
 */
export const Z_LIMIT = 4;

export const MEDIUM_MODEL: MediumModel = {
  features: [
    { name: 'spectrum_peaks', mean: 1.62019, scale: 0.71548, weight: 0.5831 },
    { name: 'high_frequency', mean: -1.30847, scale: 0.59106, weight: 0.2637 },
    { name: 'dynamic_range', mean: 0.66084, scale: 0.13507, weight: -0.3817 },
    { name: 'straight_edges', mean: 0.27734, scale: 0.18333, weight: 0.3594 },
    { name: 'grain', mean: 0.13456, scale: 0.42517, weight: 0.3354 },
    { name: 'grain_to_detail', mean: -0.62373, scale: 0.42068, weight: 0.5282 },
    { name: 'liveness', mean: 0.88638, scale: 0.18518, weight: -0.3899 },
    { name: 'network_live', mean: 1.71305, scale: 6.05044, weight: -1.3708 },
  ],
  pairs: [
    { a: 'spectrum_peaks', b: 'spectrum_peaks', mean: 1, scale: 2.20818, weight: 0.285 },
    { a: 'spectrum_peaks', b: 'high_frequency', mean: 0.5755, scale: 1.46827, weight: -0.162 },
    { a: 'spectrum_peaks', b: 'dynamic_range', mean: -0.02204, scale: 1.10135, weight: -0.1109 },
    { a: 'spectrum_peaks', b: 'straight_edges', mean: 0.10149, scale: 1.02986, weight: 0.0945 },
    { a: 'spectrum_peaks', b: 'grain', mean: 0.5488, scale: 1.85178, weight: 0.2711 },
    { a: 'spectrum_peaks', b: 'grain_to_detail', mean: 0.70544, scale: 1.98937, weight: 0.1004 },
    { a: 'spectrum_peaks', b: 'liveness', mean: -0.09472, scale: 1.02291, weight: 0.0147 },
    { a: 'spectrum_peaks', b: 'network_live', mean: -0.05729, scale: 0.73466, weight: 0.5175 },
    { a: 'high_frequency', b: 'high_frequency', mean: 1, scale: 1.25933, weight: 0.3517 },
    { a: 'high_frequency', b: 'dynamic_range', mean: -0.0191, scale: 0.99821, weight: -0.2534 },
    { a: 'high_frequency', b: 'straight_edges', mean: 0.00063, scale: 1.02852, weight: -0.0442 },
    { a: 'high_frequency', b: 'grain', mean: 0.53746, scale: 1.43304, weight: 0.5216 },
    { a: 'high_frequency', b: 'grain_to_detail', mean: 0.78772, scale: 1.51335, weight: 0.4089 },
    { a: 'high_frequency', b: 'liveness', mean: 0.0034, scale: 1.03639, weight: 0.0741 },
    { a: 'high_frequency', b: 'network_live', mean: -0.06431, scale: 0.85613, weight: 0.1773 },
    { a: 'dynamic_range', b: 'dynamic_range', mean: 1, scale: 1.26213, weight: 0.0451 },
    { a: 'dynamic_range', b: 'straight_edges', mean: -0.22347, scale: 0.96835, weight: 0.112 },
    { a: 'dynamic_range', b: 'grain', mean: 0.07258, scale: 1.07857, weight: -0.0694 },
    { a: 'dynamic_range', b: 'grain_to_detail', mean: -0.09225, scale: 1.10311, weight: -0.1525 },
    { a: 'dynamic_range', b: 'liveness', mean: 0.14347, scale: 0.90289, weight: 0.0436 },
    { a: 'dynamic_range', b: 'network_live', mean: 0.12509, scale: 1.00259, weight: -0.1505 },
    { a: 'straight_edges', b: 'straight_edges', mean: 1, scale: 1.0249, weight: -0.0046 },
    { a: 'straight_edges', b: 'grain', mean: 0.08096, scale: 1.00214, weight: -0.2033 },
    { a: 'straight_edges', b: 'grain_to_detail', mean: 0.09871, scale: 0.97376, weight: -0.14 },
    { a: 'straight_edges', b: 'liveness', mean: -0.29524, scale: 1.0904, weight: -0.1385 },
    { a: 'straight_edges', b: 'network_live', mean: -0.32094, scale: 0.90272, weight: -0.0195 },
    { a: 'grain', b: 'grain', mean: 1, scale: 1.82265, weight: -0.2475 },
    { a: 'grain', b: 'grain_to_detail', mean: 0.87148, scale: 1.93459, weight: 0.1074 },
    { a: 'grain', b: 'liveness', mean: 0.00427, scale: 1.03193, weight: 0.2486 },
    { a: 'grain', b: 'network_live', mean: 0.08792, scale: 0.77875, weight: 0.2549 },
    { a: 'grain_to_detail', b: 'grain_to_detail', mean: 1, scale: 2.08636, weight: 0.2246 },
    { a: 'grain_to_detail', b: 'liveness', mean: -0.05539, scale: 1.09378, weight: 0.1923 },
    { a: 'grain_to_detail', b: 'network_live', mean: -0.0118, scale: 0.76292, weight: 0.4756 },
    { a: 'liveness', b: 'liveness', mean: 0.97371, scale: 2.5365, weight: 0.1077 },
    { a: 'liveness', b: 'network_live', mean: 0.30459, scale: 1.00917, weight: -0.0213 },
    { a: 'network_live', b: 'network_live', mean: 1, scale: 0.9356, weight: 0.3576 },
  ],
  bias: 0.5184,
  threshold: 0.5279,
};

/**
 * The document as the selfie: a selfie whose face is this near the document's portrait (the
 * descriptor distance of distance.ts) is the portrait itself photographed again. Chosen by the
 * same script, on the training half, between the distances of the same photo re-photographed
 * and those of two different photos of one person.
 */
export const SELFIE_IS_PORTRAIT_MAX_DISTANCE = 0.506;
