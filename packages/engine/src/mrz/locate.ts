/**
 * Finds the machine-readable zone on a document photo: 2 or 3 parallel text lines of MRZ aspect
 * and similar length, close together, usually near the bottom. opencv.js does the morphology
 * (black-hat brings out dark print smaller than the kernel, Otsu binarises it, a horizontal
 * closing merges the characters of a line into one blob, contours give the blobs); the grouping
 * and the deskewed line crops are plain TypeScript.
 */
import { loadOpenCv } from '../opencv.ts';
import { closeRowsBinary } from './morphology.ts';
import type { GreyImage } from './segment.ts';

export interface TextLine {
  /** Centre, length along the line, height across it, in the located image's pixels. */
  cx: number;
  cy: number;
  length: number;
  height: number;
  /** Degrees, the line's direction (image y axis points down). */
  angle: number;
}

export interface MrzCandidate {
  lines: TextLine[];
  angle: number;
  /** Higher is more MRZ-like (regular spacing, equal lengths, low on the page). */
  score: number;
}

/** Working width of the morphology: large enough for small print, small enough for ~40 ms. */
const WORK = 1000;

function lineFromRect(rect: { center: { x: number; y: number }; size: { width: number; height: number }; angle: number }): TextLine {
  let { width, height } = rect.size;
  let angle = rect.angle;
  if (width < height) {
    [width, height] = [height, width];
    angle += 90;
  }
  while (angle > 90) angle -= 180;
  while (angle <= -90) angle += 180;
  return { cx: rect.center.x, cy: rect.center.y, length: width, height, angle };
}

/**
 * Candidate text lines (long thin blobs of dark print) of `grey`, in its own pixels, for each
 * closing width (in the order given). The print is brought out once (black-hat, Otsu) and closed
 * at each width: the closings share everything before them.
 */
async function textLines(grey: GreyImage, closeFactors: readonly number[]): Promise<TextLine[][]> {
  const { cv } = await loadOpenCv();
  const scale = WORK / grey.width;
  const mats: { delete(): void }[] = [];
  const keep = <T extends { delete(): void }>(m: T): T => {
    mats.push(m);
    return m;
  };
  try {
    const src = keep(cv.matFromArray(grey.height, grey.width, cv.CV_8UC1, grey.data));
    const small = keep(new cv.Mat());
    cv.resize(src, small, new cv.Size(WORK, Math.round(grey.height * scale)), 0, 0, cv.INTER_AREA);
    const blurred = keep(new cv.Mat());
    cv.GaussianBlur(small, blurred, new cv.Size(3, 3), 0);
    const blackhat = keep(new cv.Mat());
    const hatKernel = keep(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(31, 13)));
    cv.morphologyEx(blurred, blackhat, cv.MORPH_BLACKHAT, hatKernel);
    const binary = keep(new cv.Mat());
    cv.threshold(blackhat, binary, 0, 255, cv.THRESH_BINARY | cv.THRESH_OTSU);
    // Open vertically a little (after each closing) to cut thin bridges between lines and drop speckle.
    const openKernel = keep(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(5, 3)));
    // A copy: a view of the WebAssembly heap is detached when the heap grows (the Mats made below).
    const print = (binary.data as Uint8Array).slice();
    return closeFactors.map((closeFactor) => {
      // Merge the characters of a line, not the lines: wide and one pixel high (morphology.ts:
      // OpenCV's closing by a row kernel, the same pixels, faster).
      const closed = keep(cv.matFromArray(binary.rows, binary.cols, cv.CV_8UC1, closeRowsBinary(print, binary.cols, binary.rows, Math.round(WORK * closeFactor))));
      cv.morphologyEx(closed, closed, cv.MORPH_OPEN, openKernel);
      const contours = keep(new cv.MatVector());
      const hierarchy = keep(new cv.Mat());
      cv.findContours(closed, contours, hierarchy, cv.RETR_EXTERNAL, cv.CHAIN_APPROX_SIMPLE);
      const lines: TextLine[] = [];
      for (let i = 0; i < contours.size(); i++) {
        const c = contours.get(i);
        const l = lineFromRect(cv.minAreaRect(c));
        const area = cv.contourArea(c);
        c.delete();
        // MRZ lines: 30–44 characters about as wide as they are high, at least a fifth of the
        // image wide, solidly filled by their blob.
        if (l.height < 4 || l.length < WORK * 0.18) continue;
        const aspect = l.length / l.height;
        if (aspect < 10 || aspect > 80) continue;
        if (area < l.length * l.height * 0.3) continue;
        if (Math.abs(l.angle) > 30) continue;
        lines.push({ cx: l.cx / scale, cy: l.cy / scale, length: l.length / scale, height: l.height / scale, angle: l.angle });
      }
      return lines;
    });
  } finally {
    for (const m of mats) m.delete();
  }
}

/** Distance of b's centre from a's axis (across) and along it. */
function offsets(a: TextLine, b: TextLine): { across: number; along: number } {
  const t = (a.angle * Math.PI) / 180;
  const dx = b.cx - a.cx;
  const dy = b.cy - a.cy;
  return { along: dx * Math.cos(t) + dy * Math.sin(t), across: -dx * Math.sin(t) + dy * Math.cos(t) };
}

function groupScore(lines: TextLine[], imageHeight: number): number | null {
  const lengths = lines.map((l) => l.length);
  const maxLen = Math.max(...lengths);
  const minLen = Math.min(...lengths);
  if (minLen < maxLen * 0.8) return null;
  const heights = lines.map((l) => l.height);
  const h = heights.reduce((a, b) => a + b, 0) / heights.length;
  if (Math.max(...heights) > Math.min(...heights) * 1.8) return null;
  const angles = lines.map((l) => l.angle);
  if (Math.max(...angles) - Math.min(...angles) > 3) return null;
  let regularity = 0;
  for (let i = 1; i < lines.length; i++) {
    const o = offsets(lines[i - 1]!, lines[i]!);
    // Consecutive MRZ lines: about 1.3–2.6 character heights apart, left-aligned.
    if (o.across < h * 1.1 || o.across > h * 3.2) return null;
    if (Math.abs(o.along) > maxLen * 0.12) return null;
    regularity += Math.abs(o.along) / maxLen;
  }
  const low = lines[lines.length - 1]!.cy / imageHeight;
  return maxLen / 1000 + low * 0.3 - regularity - (maxLen - minLen) / maxLen + (lines.length === 3 ? 0.05 : 0);
}

/** MRZ candidates of `grey`, best first (at most a few). */
export async function locateMrz(grey: GreyImage): Promise<MrzCandidate[]> {
  const found: (MrzCandidate & { closeFactor: number })[] = [];
  // Characters are merged by closings of three widths: MRZ print ranges from small on a photo
  // of a whole page to large on a tight card scan, and `<` fillers leave wide gaps.
  const closeFactors = [0.02, 0.035, 0.055];
  const linesByClosing = await textLines(grey, closeFactors);
  for (const [k, closeFactor] of closeFactors.entries()) {
    const lines = linesByClosing[k]!.sort((a, b) => a.cy - b.cy);
    for (let i = 0; i < lines.length; i++) {
      for (const size of [3, 2]) {
        // Lines below line i, in order, that could continue the group.
        const group = [lines[i]!];
        for (let j = i + 1; j < lines.length && group.length < size; j++) {
          const last = group[group.length - 1]!;
          const o = offsets(last, lines[j]!);
          if (o.across > last.height * 1.1 && o.across < last.height * 3.2 && Math.abs(o.along) < last.length * 0.12) group.push(lines[j]!);
        }
        if (group.length !== size) continue;
        const score = groupScore(group, grey.height);
        if (score === null) continue;
        const angle = group.reduce((a, l) => a + l.angle, 0) / group.length;
        found.push({ lines: group, angle, score, closeFactor });
      }
    }
  }
  found.sort((a, b) => b.score - a.score);
  // Drop candidates that overlap a better one (the same zone seen by another closing), keep a few.
  const near = (a: TextLine, b: TextLine) => Math.hypot(a.cx - b.cx, a.cy - b.cy) < Math.max(a.height, b.height) * 1.5;
  const out: (MrzCandidate & { closeFactor: number })[] = [];
  for (const c of found) {
    const i = out.findIndex((o) => o.lines.some((l) => c.lines.some((m) => l === m || near(l, m))));
    if (i < 0) out.push(c);
    // The same zone from a narrower closing, nearly as long: fewer neighbours glued to its ends.
    else if (out[i]!.lines.length === c.lines.length && c.closeFactor < out[i]!.closeFactor && c.lines[0]!.length >= out[i]!.lines[0]!.length * 0.93) {
      out[i] = { ...c, score: out[i]!.score };
    }
  }
  return out.slice(0, 3).map(({ lines, angle, score }) => ({ lines, angle, score }));
}

/**
 * A deskewed crop of one located line: the line's box widened by `padX` line heights on each end
 * and `padY` times its height across, sampled bilinearly along the line's own axes.
 */
export function cropLine(grey: GreyImage, line: TextLine, angle: number, padX = 0.8, padY = 0.75, across = 0): GreyImage {
  const t = (angle * Math.PI) / 180;
  const cos = Math.cos(t);
  const sin = Math.sin(t);
  const width = Math.max(8, Math.round(line.length + 2 * padX * line.height));
  const height = Math.max(8, Math.round(line.height * (1 + 2 * padY)));
  const data = new Uint8Array(width * height);
  const { width: W, height: H, data: src } = grey;
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      const du = u - width / 2;
      const dv = v - height / 2 + across * line.height;
      const x = line.cx + du * cos - dv * sin;
      const y = line.cy + du * sin + dv * cos;
      let value = 255;
      if (x >= 0 && y >= 0 && x < W - 1 && y < H - 1) {
        const xi = Math.floor(x);
        const yi = Math.floor(y);
        const fx = x - xi;
        const fy = y - yi;
        const i = yi * W + xi;
        value = (src[i]! * (1 - fx) + src[i + 1]! * fx) * (1 - fy) + (src[i + W]! * (1 - fx) + src[i + W + 1]! * fx) * fy;
      }
      data[v * width + u] = Math.round(value);
    }
  }
  return { data, width, height };
}
