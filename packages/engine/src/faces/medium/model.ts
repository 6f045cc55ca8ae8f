/**
 * The combined presentation-attack score's weights: written by scripts/fit-pad-model.ts from the
 * TRAINING half of the attack set (people and subjects split by a hash; never pad-dev subjects
 * 0001-0008, which are not here). Do not edit by hand: rerun the script.
 */
export type MediumFeature = 'spectrum_peaks' | 'high_frequency' | 'saturation' | 'dynamic_range' | 'glare' | 'straight_edges' | 'grain' | 'grain_to_detail' | 'lbp_edges' | 'lbp_irregular' | 'antispoof' | 'liveness' | 'network_live';

export interface MediumModel {
  features: Array<{ name: MediumFeature; mean: number; scale: number; weight: number }>;
  bias: number;
  /** Score at or above which a still is taken for an attack (chosen for BPCER ≤ 3% on the training half's bona fide). */
  threshold: number;
}

export const MEDIUM_MODEL: MediumModel = {
  features: [
    { name: 'spectrum_peaks', mean: 1.63223, scale: 0.7319, weight: 0.7077 },
    { name: 'dynamic_range', mean: 0.66173, scale: 0.13219, weight: -0.2431 },
    { name: 'straight_edges', mean: 0.27726, scale: 0.18187, weight: 0.3693 },
    { name: 'grain', mean: 0.14725, scale: 0.42969, weight: 0.5103 },
    { name: 'grain_to_detail', mean: -0.60606, scale: 0.43715, weight: 0.7131 },
    { name: 'liveness', mean: 0.88104, scale: 0.19152, weight: -0.7535 },
    { name: 'network_live', mean: 1.51619, scale: 6.08802, weight: -1.9896 },
  ],
  bias: 0.1546,
  threshold: 0.6016,
};

/**
 * The document as the selfie: a selfie whose face is this near the document's portrait (the
 * descriptor distance of distance.ts) is the portrait itself photographed again. Chosen by the
 * same script, on the training half, between the distances of the same photo re-photographed
 * and those of two different photos of one person.
 */
export const SELFIE_IS_PORTRAIT_MAX_DISTANCE = 0.506;
