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
    { name: 'spectrum_peaks', mean: 1.62019, scale: 0.71548, weight: 0.7094 },
    { name: 'high_frequency', mean: -1.30847, scale: 0.59106, weight: 0.1823 },
    { name: 'dynamic_range', mean: 0.66084, scale: 0.13507, weight: -0.211 },
    { name: 'straight_edges', mean: 0.27734, scale: 0.18333, weight: 0.4504 },
    { name: 'grain', mean: 0.13456, scale: 0.42517, weight: 0.6043 },
    { name: 'grain_to_detail', mean: -0.62373, scale: 0.42068, weight: 0.7356 },
    { name: 'liveness', mean: 0.88638, scale: 0.18518, weight: -0.62 },
    { name: 'network_live', mean: 1.71305, scale: 6.05044, weight: -2.0082 },
  ],
  bias: 0.2644,
  threshold: 0.6558,
};

/**
 * The document as the selfie: a selfie whose face is this near the document's portrait (the
 * descriptor distance of distance.ts) is the portrait itself photographed again. Chosen by the
 * same script, on the training half, between the distances of the same photo re-photographed
 * and those of two different photos of one person.
 */
export const SELFIE_IS_PORTRAIT_MAX_DISTANCE = 0.506;
