/**
 * When the document photo takes itself: the four edges found around the guide, the document
 * large enough in it, lit, sharp, free of glare, and in the same place over a few consecutive
 * looks. Each look gives the one hint the person sees (the first thing in the way), or `ready`.
 * Pure: measures in, verdict out; `bench:journey` sets the thresholds from the fixtures' photos
 * played through Chromium's fake camera (figures in docs/journey.md).
 */
import { cornerShift, quadArea, type EdgeSearch, type Quad } from './document-edges.ts';
import type { GlareBlob } from '@idv/engine/quality-measures';
import type { Region } from '../quality.ts';

export type DocumentHint = 'dark' | 'edges' | 'far' | 'glare' | 'blurry' | 'steady' | 'ready';

export const DOCUMENT_THRESHOLDS = {
  /** Light (DocumentLook.light) below this: too dark. */
  dark: 55,
  /** The document's area as a share of the guide's, at least. */
  minFill: 0.45,
  /** Width over height of the document seen (ID-1 cards 1.59, passport pages 1.42), within. */
  aspect: [1.2, 1.95] as const,
  /**
   * Variance of the Laplacian of the document at most 600 pixels wide (the document_quality
   * check's own measure and scale, which refuses below 150), at least.
   */
  minSharpness: 260,
  /** Glare: a saturated blob of at least this share of the document's inside… */
  glareBlobShare: 0.01,
  /** …fading out into a halo at least this bright (a white background or paper ends at print, in a darker ring)… */
  glareHaloLuminance: 235,
  /**
   * …and solid: the widest square in it at least this share of the inside's shorter side in
   * half-width. Near-white paper between lines of print (id1.jpg's machine-readable zone: strips
   * of 1.3–2.2% with a 246–247 ring) is a thin strip, 0.016–0.032; the fixtures' glare spots
   * are 0.100–0.151 (bench:journey, docs/journey.md).
   */
  glareMinCore: 0.06,
  /** Largest move of a corner between two looks for the view to count as steady (frame fractions). */
  maxShift: 0.012,
  /** Consecutive good, steady looks before the shutter fires. */
  steadyLooks: 3,
};

export interface DocumentLook {
  edges: EdgeSearch;
  /** The guide in frame fractions, and the frame's width over its height. */
  guide: Region;
  frameAspect: number;
  /** How lit the view is, 0..255: the document's mean luminance, or the guide's 90th percentile when no document was found. */
  light: number;
  /** Measured only once the document is found and large enough (costlier). */
  sharpness?: number;
  /** The saturated blobs of at least `glareBlobShare` of the document's inside, with their halos. */
  glare?: GlareBlob[];
}

/** What stands in the way before the steadiness check, or null when this look is good. */
export function documentProblem(look: DocumentLook, t = DOCUMENT_THRESHOLDS): Exclude<DocumentHint, 'steady' | 'ready'> | 'measure' | null {
  if (look.light < t.dark) return 'dark';
  const quad = look.edges.quad;
  if (!quad) return 'edges';
  const area = quadArea(quad.corners) / (look.guide.w * look.guide.h);
  if (area < t.minFill) return 'far';
  const aspect = quadAspect(quad, look.frameAspect);
  if (aspect < t.aspect[0] || aspect > t.aspect[1]) return 'edges';
  if (look.sharpness === undefined || !look.glare) return 'measure';
  if (look.glare.some((b) => isGlare(b, t))) return 'glare';
  if (look.sharpness < t.minSharpness) return 'blurry';
  return null;
}

/** A saturated blob that is a glare spot: large enough, fading out softly, and solid. */
export function isGlare(b: GlareBlob, t = DOCUMENT_THRESHOLDS): boolean {
  return b.share >= t.glareBlobShare && b.haloLuminance >= t.glareHaloLuminance && b.core >= t.glareMinCore;
}

/** Width over height of a quad seen in a frame of the given aspect (mean of opposite sides). */
function quadAspect(quad: Quad, frameAspect: number): number {
  const [tl, tr, br, bl] = quad.corners;
  const len = (a: [number, number], b: [number, number]) => Math.hypot((a[0] - b[0]) * frameAspect, a[1] - b[1]);
  const w = (len(tl, tr) + len(bl, br)) / 2;
  const h = (len(tl, bl) + len(tr, br)) / 2;
  return h > 0 ? w / h : 0;
}

/**
 * Counts consecutive good looks at the same place; `look` returns the hint to show and whether
 * the shutter fires now. A problem, or a corner that moved too far, starts the count again.
 */
export class DocumentSteadiness {
  private streak = 0;
  private last: Quad | null = null;

  constructor(private readonly t = DOCUMENT_THRESHOLDS) {}

  look(problem: ReturnType<typeof documentProblem>, quad: Quad | null): { hint: DocumentHint; fire: boolean } {
    if (problem === 'measure') throw new Error('measure the sharpness and glare before judging the look');
    if (problem || !quad) {
      this.streak = 0;
      this.last = null;
      return { hint: problem ?? 'edges', fire: false };
    }
    this.streak = this.last && cornerShift(this.last, quad) <= this.t.maxShift ? this.streak + 1 : 1;
    this.last = quad;
    if (this.streak >= this.t.steadyLooks) return { hint: 'ready', fire: true };
    return { hint: 'steady', fire: false };
  }
}
