/**
 * The combined presentation-attack score's weights: written by scripts/fit-pad-model.ts from the
 * TRAINING half of the attack set (people and subjects split by a hash; never pad-dev subjects
 * 0001-0008, which are not here). Do not edit by hand: rerun the script.
 */
export type MediumFeature = 'spectrum_peaks' | 'high_frequency' | 'saturation' | 'dynamic_range' | 'glare' | 'straight_edges' | 'lbp_edges' | 'lbp_irregular' | 'antispoof' | 'liveness' | 'network_live';

export interface MediumModel {
  features: Array<{ name: MediumFeature; mean: number; scale: number; weight: number }>;
  bias: number;
  /** Score at or above which a still is taken for an attack (chosen for BPCER ≤ 3% on the training half's bona fide). */
  threshold: number;
}

export const MEDIUM_MODEL: MediumModel = {
  features: [
    { name: 'spectrum_peaks', mean: 1.4277, scale: 0.43794, weight: 0.8855 },
    { name: 'dynamic_range', mean: 0.72692, scale: 0.14304, weight: -0.3417 },
    { name: 'glare', mean: 0.1019, scale: 0.11346, weight: -0.4033 },
    { name: 'straight_edges', mean: 0.20743, scale: 0.12625, weight: 0.357 },
    { name: 'liveness', mean: 0.90976, scale: 0.13902, weight: -0.3099 },
  ],
  bias: -0.266,
  threshold: 0.784,
};

/**
 * The document as the selfie: a selfie whose face is this near the document's portrait (the
 * descriptor distance of distance.ts) is the portrait itself photographed again. Chosen by the
 * same script, on the training half, between the distances of the same photo re-photographed
 * and those of two different photos of one person.
 */
export const SELFIE_IS_PORTRAIT_MAX_DISTANCE = 0.506;
