import type { CheckReason, CheckReport } from '@idv/domain';
import { decodeImage, ImageUnreadableError, toGrey, type DecodedImage } from './decode.ts';
import { locateDocument, warpDocument, type DocumentLocation, type Point } from './locate.ts';
import { mediumMeasures, mediumReasons, type MediumMeasures } from './medium/medium.ts';
import { glareMeasures, laplacianVariance } from './quality-measures.ts';

/**
 * The document_quality check: decoding, resolution, sharpness, glare, and the whole document in the
 * frame. Every such failure asks for a new photo. The thresholds' calibration is in docs/checks-document.md.
 * Then the medium the document was shown on (medium/medium.ts): a screen or a copy raises
 * `document_screen_replay_suspected` or `document_photocopy_suspected` with the status `attention`,
 * not a retake (docs/checks.md, "The document side": a retake would teach the fraudster what was
 * seen and invite the same screen again; a person looks instead).
 */
export const QUALITY_THRESHOLDS = {
  /** Fewest pixels along the document's long side (specimens go down to 250). */
  minDocumentLongSide: 240,
  /** Sharpness is measured on the document straightened to at most this width. */
  measureWidth: 600,
  /** Least variance of the Laplacian (sharp photos ≥ 400; Gaussian σ 3 px on a 1600 px photo ≤ 110). */
  minSharpness: 150,
  /** Glare: a saturated blob at least this share of the document… */
  glareBlobShare: 0.03,
  /** …fading out into a halo at least this bright (white paper ends at print, ≤ 239 measured). */
  glareHaloLuminance: 242,
} as const;

export interface QualityMeasures extends MediumMeasures {
  document_found: number;
  document_long_side_px: number;
  document_area_fraction: number;
  borders_touched: number;
  sharpness: number;
  saturated_share: number;
  glare_blob_share: number;
  glare_halo_luminance: number;
  text_density: number;
}

export interface DocumentQuality {
  report: CheckReport;
  /** The upright RGB pixels (EXIF applied), for the other analysers; null when unreadable. */
  decoded: DecodedImage | null;
  /** Where the document is in `decoded`; null when not found. */
  location: DocumentLocation | null;
}

/**
 * Which side the photo shows. A card's back often carries little or no colour (a barcode, a
 * machine-readable zone, black text on a pale ground): it is never taken for a copy, and the
 * medium network, trained on fronts, does not read it; a screen's pixel grid and moiré are
 * measured on either side.
 */
export type DocumentSide = 'front' | 'back';

/** The reasons a set of measures gives (pure: the thresholds, nothing else). */
export function qualityReasons(m: QualityMeasures, cut: boolean, side: DocumentSide = 'front'): CheckReason[] {
  const t = QUALITY_THRESHOLDS;
  const reasons: CheckReason[] = [];
  if (!m.document_found) reasons.push('document_not_found');
  else {
    if (cut) reasons.push('document_cut_off');
    if (m.document_long_side_px < t.minDocumentLongSide) reasons.push('resolution_too_low');
  }
  if (m.sharpness < t.minSharpness) reasons.push('image_blurred');
  if (m.glare_blob_share >= t.glareBlobShare && m.glare_halo_luminance >= t.glareHaloLuminance) reasons.push('image_glare');
  // The medium is judged on a document found, sharp and large enough: blur erases a screen's
  // moiré, and a document too small holds no window to measure.
  const measurable = m.document_found && !reasons.includes('image_blurred') && !reasons.includes('resolution_too_low');
  if (measurable) reasons.push(...mediumReasons(m).filter((r) => side === 'front' || r !== 'document_photocopy_suspected'));
  return reasons;
}

/** Reasons that ask for no retake: the presentation-attack ones, for a person to look at. */
const ATTENTION_REASONS: ReadonlySet<CheckReason> = new Set<CheckReason>(['document_screen_replay_suspected', 'document_photocopy_suspected']);

/**
 * The document_quality report of a set of measures (pure): a capture problem fails it (each asks for
 * a retake); a suspected screen or copy alone asks for attention.
 */
export function qualityReport(measures: QualityMeasures, cut: boolean, side: DocumentSide = 'front'): CheckReport {
  const reasons = qualityReasons(measures, cut, side);
  const status = reasons.some((r) => !ATTENTION_REASONS.has(r)) ? 'failed' : reasons.length ? 'attention' : 'ok';
  return { type: 'document_quality', status, reasons, measures: { ...measures } };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function sideLength(a: Point, b: Point): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

/** A decoded photo, the document found in it (or null) and the corners measures use. */
export interface LocatedPhoto {
  decoded: DecodedImage;
  grey: DecodedImage;
  location: DocumentLocation | null;
  /** The document's corners, or the whole image's when none was found. */
  corners: Point[];
}

/** Decodes a photo and locates the document in it; null when the bytes are not a readable image. */
export async function locatePhoto(bytes: Uint8Array): Promise<LocatedPhoto | null> {
  let decoded: DecodedImage;
  try {
    decoded = await decodeImage(bytes);
  } catch (err) {
    if (!(err instanceof ImageUnreadableError)) throw err;
    return null;
  }
  const grey = toGrey(decoded);
  const location = await locateDocument(grey);
  // Without a document, sharpness and glare are measured on the whole frame: a blurred photo
  // hides the document's print too, and "blurred" is the more useful thing to tell the person.
  const corners: Point[] = location?.corners ?? [[0, 0], [grey.width, 0], [grey.width, grey.height], [0, grey.height]];
  return { decoded, grey, location, corners };
}

export async function assessDocumentQuality(bytes: Uint8Array, side: DocumentSide = 'front'): Promise<DocumentQuality> {
  const photo = await locatePhoto(bytes);
  if (!photo) return { report: { type: 'document_quality', status: 'failed', reasons: ['image_unreadable'], measures: {} }, decoded: null, location: null };
  const { decoded, grey, location, corners } = photo;
  const [tl, tr, br, bl] = corners as [Point, Point, Point, Point];
  const docWidth = (sideLength(tl, tr) + sideLength(bl, br)) / 2;
  const docHeight = (sideLength(tl, bl) + sideLength(tr, br)) / 2;
  const straight = await warpDocument(grey, corners, Math.max(8, Math.round(Math.min(docWidth, QUALITY_THRESHOLDS.measureWidth))));
  const glare = glareMeasures(straight);
  const measures: QualityMeasures = {
    document_found: location ? 1 : 0,
    document_long_side_px: Math.round(Math.max(docWidth, docHeight)),
    document_area_fraction: round(location?.areaFraction ?? 0, 3),
    borders_touched: location?.bordersTouched ?? 0,
    sharpness: Math.round(laplacianVariance(straight)),
    saturated_share: round(glare.saturatedShare, 4),
    glare_blob_share: round(glare.largestBlobShare, 4),
    glare_halo_luminance: Math.round(glare.blobHaloLuminance),
    text_density: round(location?.textDensity ?? 0, 4),
    ...(await mediumMeasures(decoded, corners, { network: side === 'front' })),
  };
  return { report: qualityReport(measures, location?.source === 'cut', side), decoded, location };
}
