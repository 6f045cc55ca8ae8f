/**
 * Image quality measures as pure functions of grey pixels (Laplacian variance, glare), measured at
 * a fixed width. The journey runs the same functions on the phone (`@idv/engine/quality-measures`),
 * so automatic capture and the document_quality check agree.
 */

/** Grey or RGB pixels, row-major, no padding (a decoded image, or a canvas's pixels made grey). */
export interface PixelImage {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
  channels: number;
}

/** Variance of the 4-neighbour Laplacian over the interior pixels: low when edges are soft. */
export function laplacianVariance(grey: PixelImage): number {
  const { data, width: w, height: h } = grey;
  if (grey.channels !== 1) throw new Error('laplacianVariance needs a grey image');
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < h - 1; y++) {
    const row = y * w;
    for (let x = 1; x < w - 1; x++) {
      const i = row + x;
      const v = data[i - 1]! + data[i + 1]! + data[i - w]! + data[i + w]! - 4 * data[i]!;
      sum += v;
      sumSq += v * v;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sumSq / n - mean * mean;
}

export interface GlareMeasures {
  /** Share of pixels at or above the saturation level. */
  saturatedShare: number;
  /** The largest 4-connected blob of saturated pixels, as a share of all pixels. */
  largestBlobShare: number;
  /** Median luminance: the paper's own brightness on most documents. */
  medianLuminance: number;
  /**
   * Mean luminance of a 3-pixel ring around the largest blob. Glare fades out softly (a bright
   * halo); white paper or a white background ends at print or an edge (a darker ring).
   */
  blobHaloLuminance: number;
}

/** Luminance treated as clipped by the camera. */
const SATURATION_LEVEL = 250;

export function glareMeasures(grey: PixelImage, level = SATURATION_LEVEL): GlareMeasures {
  const { data, width: w, height: h } = grey;
  if (grey.channels !== 1) throw new Error('glareMeasures needs a grey image');
  const n = w * h;
  const histogram = new Uint32Array(256);
  let saturated = 0;
  for (let i = 0; i < n; i++) {
    histogram[data[i]!]!++;
    if (data[i]! >= level) saturated++;
  }
  let median = 0;
  for (let acc = 0; median < 256; median++) {
    acc += histogram[median]!;
    if (acc >= n / 2) break;
  }
  const largest = saturatedBlobs(grey, level).reduce<{ size: number; start: number } | null>((a, b) => (!a || b.size > a.size ? b : a), null);
  const halo = largest ? haloLuminance(grey, level, largest.start, 3) : 0;
  return { saturatedShare: saturated / n, largestBlobShare: (largest?.size ?? 0) / n, medianLuminance: median, blobHaloLuminance: halo };
}

export interface GlareBlob {
  /** Share of all pixels. */
  share: number;
  /** Mean luminance of a 3-pixel ring around it (see GlareMeasures.blobHaloLuminance). */
  haloLuminance: number;
  /**
   * How thick it is: the half-width of the widest square that fits in it, as a share of the
   * image's shorter side. A glare spot is a solid patch; saturated paper between lines of print
   * is a thin strip, however bright the paper around it.
   */
  core: number;
}

/**
 * Every saturated blob of at least `minShare` of the pixels, with its halo and its core. A white
 * background or white paper can be the largest blob (it ends at print, in a darker ring) while a
 * glare spot beside it is smaller: the journey's automatic capture looks at each.
 */
export function glareBlobs(grey: PixelImage, minShare: number, level = SATURATION_LEVEL): GlareBlob[] {
  if (grey.channels !== 1) throw new Error('glareBlobs needs a grey image');
  const n = grey.width * grey.height;
  const blobs = saturatedBlobs(grey, level).filter((b) => b.size / n >= minShare);
  if (!blobs.length) return [];
  const depth = saturatedDepth(grey, level);
  const short = Math.min(grey.width, grey.height);
  return blobs.map((b) => ({ share: b.size / n, haloLuminance: haloLuminance(grey, level, b.start, 3), core: deepest(grey, level, depth, b.start) / short }));
}

/**
 * For each saturated pixel, its distance (in 8-connected steps, 1 at the blob's edge) to the
 * nearest pixel that is not saturated or to the image's border: two passes of a chessboard
 * distance transform. The deepest pixel of a blob is the centre of the widest square in it.
 */
function saturatedDepth(grey: PixelImage, level: number): Uint16Array {
  const { data, width: w, height: h } = grey;
  const d = new Uint16Array(w * h);
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? 0 : d[y * w + x]!);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (data[i]! >= level) d[i] = 1 + Math.min(at(x - 1, y), at(x - 1, y - 1), at(x, y - 1), at(x + 1, y - 1));
    }
  }
  for (let y = h - 1; y >= 0; y--) {
    for (let x = w - 1; x >= 0; x--) {
      const i = y * w + x;
      if (d[i]) d[i] = Math.min(d[i]!, 1 + Math.min(at(x + 1, y), at(x + 1, y + 1), at(x, y + 1), at(x - 1, y + 1)));
    }
  }
  return d;
}

/** The largest depth over the blob holding `start` (4-connected, as saturatedBlobs). */
function deepest(grey: PixelImage, level: number, depth: Uint16Array, start: number): number {
  const { data, width: w } = grey;
  const n = w * grey.height;
  const seen = new Uint8Array(n);
  const stack = [start];
  seen[start] = 1;
  let best = 0;
  while (stack.length) {
    const i = stack.pop()!;
    if (depth[i]! > best) best = depth[i]!;
    const x = i % w;
    for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w]) {
      if (j < 0 || j >= n || seen[j] || data[j]! < level) continue;
      seen[j] = 1;
      stack.push(j);
    }
  }
  return best;
}

/** The 4-connected blobs of saturated pixels: their size and one pixel of each. */
function saturatedBlobs(grey: PixelImage, level: number): { size: number; start: number }[] {
  const { data, width: w } = grey;
  const n = w * grey.height;
  // Flood fill with an explicit stack (a recursion would overflow on a large blob).
  const seen = new Uint8Array(n);
  const stack = new Int32Array(n);
  const blobs: { size: number; start: number }[] = [];
  for (let start = 0; start < n; start++) {
    if (seen[start] || data[start]! < level) continue;
    let top = 0;
    let size = 0;
    stack[top++] = start;
    seen[start] = 1;
    while (top > 0) {
      const i = stack[--top]!;
      size++;
      const x = i % w;
      const neighbours = [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w];
      for (const j of neighbours) {
        if (j < 0 || j >= n || seen[j] || data[j]! < level) continue;
        seen[j] = 1;
        stack[top++] = j;
      }
    }
    blobs.push({ size, start });
  }
  return blobs;
}

/** Mean luminance of the pixels within `rings` steps outside the blob holding `start`. */
function haloLuminance(grey: PixelImage, level: number, start: number, rings: number): number {
  const { data, width: w, height: h } = grey;
  const n = w * h;
  // 1 = blob, 2 = halo; breadth-first from the blob outwards, one ring per step.
  const mark = new Uint8Array(n);
  const neighbours = (i: number) => {
    const x = i % w;
    return [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i >= w ? i - w : -1, i < n - w ? i + w : -1];
  };
  const blob: number[] = [start];
  mark[start] = 1;
  for (let k = 0; k < blob.length; k++) {
    for (const j of neighbours(blob[k]!)) {
      if (j >= 0 && !mark[j] && data[j]! >= level) {
        mark[j] = 1;
        blob.push(j);
      }
    }
  }
  let frontier = blob;
  let sum = 0;
  let count = 0;
  for (let r = 0; r < rings && frontier.length; r++) {
    const next: number[] = [];
    for (const i of frontier) {
      for (const j of neighbours(i)) {
        if (j >= 0 && !mark[j]) {
          mark[j] = 2;
          next.push(j);
          sum += data[j]!;
          count++;
        }
      }
    }
    frontier = next;
  }
  void h;
  return count ? sum / count : 0;
}
