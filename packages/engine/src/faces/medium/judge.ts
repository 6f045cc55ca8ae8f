import type { FaceBox } from '../../types.ts';
import type { RgbImage } from '../decode-image.ts';
import { liveLogOdds } from './anti-spoof-net.ts';
import { MEDIUM_MODEL, Z_LIMIT, type MediumFeature, type MediumModel } from './model.ts';
import { grainMeasures } from './grain.ts';
import { colourMeasures, faceWindow, straightEdges } from './pixels.ts';
import { spectrumMeasures } from './spectrum.ts';
import { textureMeasures } from './texture.ts';

/**
 * Is this still a live face, or a face shown on a screen or a print? Pure, on one decoded image
 * and the face's box in it (the image at its own resolution: the texture measured is lost by
 * any resize). The measures (medium.ts words in the catalogue) and one score: a logistic model
 * over them, whose weights and threshold were fitted on the training half of the attack set
 * (scripts/fit-pad-model.ts, bench/checks/pad.ts for the figures).
 */
export interface StillMediumMeasures {
  /** Isolated peaks of the face's spectrum over its smooth level (log10): moiré, a pixel grid, a halftone. */
  medium_spectrum_peaks: number;
  /** Share of the face's spectral power at the highest frequencies (log10): dither, subpixels. */
  medium_high_frequency: number;
  /** Mean colour saturation of the face. */
  medium_saturation: number;
  /** Luminance spread of the face (2nd to 98th percentile, 0..1). */
  medium_dynamic_range: number;
  /** Share of the face's pixels in colourless glare. */
  medium_glare: number;
  /** The longest straight edge outside the face, over the image's diagonal. */
  medium_straight_edges: number;
  /** The face's finest texture at its own resolution (log10 grey levels): a print's dither or dots, a screen's grid, the camera's noise. */
  medium_grain: number;
  /** That grain over the detail of the face a little blurred (log10): grain on a soft, re-photographed picture. */
  medium_grain_to_detail: number;
  /** Micro-texture of the face brought to 64×64: share of straight-edge local binary patterns. */
  medium_lbp_edges: number;
  /** Micro-texture of the face brought to 64×64: share of irregular (non-uniform) local binary patterns. */
  medium_lbp_irregular: number;
  /** The trained anti-spoofing network's probability that the face is live (anti-spoof-net.ts), when it was run. */
  medium_network_live?: number;
  /** This project's texture network's log-odds that the face is a screen or a print (texture-net.ts), when it was run. */
  medium_texture_net?: number;
}

export interface StillMediumJudgement {
  measures: StillMediumMeasures & { medium_attack_score: number };
  /** The combined score (0..1, higher: more likely a screen or a print). */
  score: number;
  /** Whether the score passes the threshold chosen on the training half. */
  attack: boolean;
}

/** human's passive scores of the same face, when the model uses them. */
interface PassiveScores {
  antispoof?: number;
  liveness?: number;
  /** The anti-spoofing network's live probability (anti-spoof-net.ts). */
  network?: number;
  /** The texture network's logit (texture-net.ts). */
  texture?: number;
}

function measureStillMedium(image: RgbImage, box: FaceBox): StillMediumMeasures {
  const clamped = clampBox(box, image);
  const { lum, n } = faceWindow(image, clamped);
  const spectrum = spectrumMeasures(lum, n);
  const grain = grainMeasures(lum, n);
  const colour = colourMeasures(image, clamped);
  const texture = textureMeasures(image, clamped);
  return {
    medium_spectrum_peaks: round(spectrum.peaks),
    medium_high_frequency: round(spectrum.highFrequency),
    medium_saturation: round(colour.saturation),
    medium_dynamic_range: round(colour.dynamicRange),
    medium_glare: round(colour.glare),
    medium_straight_edges: round(straightEdges(image, clamped)),
    medium_grain: round(grain.grain),
    medium_grain_to_detail: round(grain.grainToDetail),
    medium_lbp_edges: round(texture.edges),
    medium_lbp_irregular: round(texture.irregular),
  };
}

/** The features the model reads, from the measures and the passive scores. */
export function mediumFeatures(m: StillMediumMeasures, passive: PassiveScores = {}): Record<MediumFeature, number> {
  return {
    spectrum_peaks: m.medium_spectrum_peaks,
    high_frequency: m.medium_high_frequency,
    saturation: m.medium_saturation,
    dynamic_range: m.medium_dynamic_range,
    glare: Math.sqrt(m.medium_glare),
    straight_edges: m.medium_straight_edges,
    grain: m.medium_grain,
    grain_to_detail: m.medium_grain_to_detail,
    lbp_edges: m.medium_lbp_edges,
    lbp_irregular: m.medium_lbp_irregular,
    antispoof: passive.antispoof ?? 0.5,
    liveness: passive.liveness ?? 0.5,
    // Its log-odds: the network's probabilities crowd at 0 and 1, where the differences are.
    network_live: liveLogOdds(m.medium_network_live ?? passive.network ?? 0.5),
    // 0, undecided, when the face was too small for the network's patches.
    texture_net: m.medium_texture_net ?? passive.texture ?? 0,
  };
}

/** The model's score of a feature vector (0..1). */
export function mediumScore(features: Record<MediumFeature, number>, model: Omit<MediumModel, 'threshold'> = MEDIUM_MODEL): number {
  const z = standardised(features, model);
  let sum = model.bias;
  for (const f of model.features) sum += f.weight * z.get(f.name)!;
  for (const p of model.pairs) sum += p.weight * ((z.get(p.a)! * z.get(p.b)! - p.mean) / p.scale);
  return 1 / (1 + Math.exp(-sum));
}

/** Each of the model's features standardised by its training mean and scale, held within ±Z_LIMIT. */
export function standardised(features: Record<MediumFeature, number>, model: { features: Array<{ name: MediumFeature; mean: number; scale: number }> }): Map<MediumFeature, number> {
  return new Map(model.features.map((f) => [f.name, Math.max(-Z_LIMIT, Math.min(Z_LIMIT, (features[f.name] - f.mean) / f.scale))]));
}

/**
 * The still's judgement, for a selfie or for one frame of a challenge: measures, score, and
 * whether it is taken for an attack at the model's threshold.
 */
export function judgeStillMedium(image: RgbImage, face: { box: FaceBox } & PassiveScores): StillMediumJudgement {
  const measures: StillMediumMeasures = {
    ...measureStillMedium(image, face.box),
    ...(face.network === undefined ? {} : { medium_network_live: Math.round(face.network * 10000) / 10000 }),
    ...(face.texture === undefined ? {} : { medium_texture_net: round(face.texture) }),
  };
  const score = mediumScore(mediumFeatures(measures, face));
  return { measures: { ...measures, medium_attack_score: round(score) }, score, attack: score >= MEDIUM_MODEL.threshold };
}

function clampBox(box: FaceBox, image: RgbImage): FaceBox {
  const x = Math.max(0, Math.min(image.width - 1, Math.round(box.x)));
  const y = Math.max(0, Math.min(image.height - 1, Math.round(box.y)));
  return { x, y, width: Math.max(1, Math.min(image.width - x, Math.round(box.width))), height: Math.max(1, Math.min(image.height - y, Math.round(box.height))) };
}

const round = (v: number) => Math.round(v * 1000) / 1000;
