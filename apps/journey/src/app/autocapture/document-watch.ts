import { glareBlobs, laplacianVariance } from '@idv/engine/quality-measures';
import { h } from '../dom.ts';
import { grey, type Region } from '../quality.ts';
import { findDocumentEdges, type Quad } from './document-edges.ts';
import { DOCUMENT_THRESHOLDS, DocumentSteadiness, documentProblem, type DocumentHint, type DocumentLook } from './document-verdict.ts';
import { lookLoop } from './look-loop.ts';

/** Width of the small grey copy the edges are searched on. */
const EDGE_WIDTH = 320;
/** The document_quality check measures sharpness on the document at most this wide. */
const MEASURE_WIDTH = 600;

export interface DocumentLookResult {
  hint: DocumentHint;
  quad: Quad | null;
  look: DocumentLook;
}

/**
 * Looks at the live view several times a second and tells the hint of each look; calls `fire`
 * once when the document has been found, sharp, free of glare and steady for a few looks (then
 * stops looking). The caller takes the photo. Returns a stop function.
 */
export function watchDocument(video: HTMLVideoElement, guide: () => Region, onLook: (result: DocumentLookResult) => void, fire: () => void): () => void {
  const small = h('canvas');
  const detail = h('canvas');
  const steadiness = new DocumentSteadiness();
  return lookLoop(video, () => {
    const look = lookAt(video, guide(), small, detail);
    const quad = look.edges.quad;
    const verdict = steadiness.look(documentProblem(look), quad);
    onLook({ hint: verdict.hint, quad, look });
    if (verdict.fire) {
      fire();
      return false;
    }
    return true;
  });
}

/** One look: the edges on a small grey copy, then, once the document is there, sharpness and glare on its inside. */
function lookAt(source: HTMLVideoElement, guide: Region, small: HTMLCanvasElement, detail: HTMLCanvasElement): DocumentLook {
  const vw = source.videoWidth;
  const vh = source.videoHeight;
  const width = EDGE_WIDTH;
  const height = Math.max(1, Math.round((vh / vw) * width));
  small.width = width;
  small.height = height;
  const ctx = small.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(source, 0, 0, width, height);
  const g = grey(ctx.getImageData(0, 0, width, height).data, width, height);
  const edges = findDocumentEdges(g, width, height, guide);
  const look: DocumentLook = { edges, guide, frameAspect: vw / vh, light: lightOf(g, width, height, edges.quad, guide) };
  if (documentProblem(look) !== 'measure') return look;
  // The inside of the document (corners' bounding box, 6% in from each side), at the check's scale.
  const xs = edges.quad!.corners.map((c) => c[0] * vw);
  const ys = edges.quad!.corners.map((c) => c[1] * vh);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const inset = 0.06;
  const sx = Math.max(0, x0 + (x1 - x0) * inset);
  const sy = Math.max(0, y0 + (y1 - y0) * inset);
  const sw = Math.min(vw - sx, (x1 - x0) * (1 - 2 * inset));
  const sh = Math.min(vh - sy, (y1 - y0) * (1 - 2 * inset));
  const scale = Math.min(1, MEASURE_WIDTH / Math.max(1, x1 - x0));
  detail.width = Math.max(8, Math.round(sw * scale));
  detail.height = Math.max(8, Math.round(sh * scale));
  const dctx = detail.getContext('2d', { willReadFrequently: true })!;
  dctx.drawImage(source, sx, sy, sw, sh, 0, 0, detail.width, detail.height);
  const rgba = dctx.getImageData(0, 0, detail.width, detail.height).data;
  const pixels = new Uint8Array(detail.width * detail.height);
  for (let i = 0, p = 0; i < pixels.length; i++, p += 4) pixels[i] = Math.round(0.299 * rgba[p] + 0.587 * rgba[p + 1] + 0.114 * rgba[p + 2]);
  const image = { data: pixels, width: detail.width, height: detail.height, channels: 1 };
  return { ...look, sharpness: laplacianVariance(image), glare: glareBlobs(image, DOCUMENT_THRESHOLDS.glareBlobShare) };
}

/**
 * How lit the view is: the mean luminance inside the document's corners when it was found;
 * otherwise the 90th percentile of the guide's (a document on the dark surface the journey asks
 * for is a small bright part of a dark guide: only a guide dark throughout is "too dark").
 */
function lightOf(g: Float32Array, width: number, height: number, quad: Quad | null, guide: Region): number {
  const xs = quad ? quad.corners.map((c) => c[0]) : [guide.x, guide.x + guide.w];
  const ys = quad ? quad.corners.map((c) => c[1]) : [guide.y, guide.y + guide.h];
  const x0 = Math.max(0, Math.floor(Math.min(...xs) * width));
  const x1 = Math.min(width, Math.ceil(Math.max(...xs) * width));
  const y0 = Math.max(0, Math.floor(Math.min(...ys) * height));
  const y1 = Math.min(height, Math.ceil(Math.max(...ys) * height));
  const histogram = new Uint32Array(256);
  let sum = 0;
  let n = 0;
  for (let y = y0; y < y1; y += 2) {
    for (let x = x0; x < x1; x += 2) {
      const v = g[y * width + x];
      sum += v;
      histogram[Math.min(255, Math.max(0, Math.round(v)))]++;
      n++;
    }
  }
  if (!n) return 0;
  if (quad) return sum / n;
  let level = 0;
  for (let acc = 0; level < 255; level++) {
    acc += histogram[level];
    if (acc >= 0.9 * n) break;
  }
  return level;
}
