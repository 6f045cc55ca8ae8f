/**
 * Where to cut a document portrait from an ordinary photo, without a face detector (the generator
 * must stay light): the largest blob of skin-coloured pixels (Kovač's RGB rule) on a small copy
 * of the photo is taken for the face, and the crop frames it the way ICAO portraits do (face
 * about 60 % of the height, some room above the head). Grey or skinless photos get null, and the
 * caller falls back to a saliency crop. Pure: pixels in, box out.
 */
export interface CropBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** `rgb`: width×height×3 bytes. The box is in the same pixel units, aspect 3:4. */
export function faceCropBox(rgb: Uint8Array, width: number, height: number): CropBox | null {
  const skin = new Uint8Array(width * height);
  for (let i = 0; i < width * height; i++) {
    const r = rgb[i * 3]!;
    const g = rgb[i * 3 + 1]!;
    const b = rgb[i * 3 + 2]!;
    const spread = Math.max(r, g, b) - Math.min(r, g, b);
    // Kovač's RGB rule and the usual Cb/Cr box together: fewer wood and curtain tones pass both.
    const cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
    const cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
    skin[i] = r > 95 && g > 40 && b > 20 && spread > 15 && r - g > 15 && r > b && cb >= 77 && cb <= 127 && cr >= 133 && cr <= 173 ? 1 : 0;
  }
  const blob = bestBlob(erode(skin, width, height), width, height);
  if (!blob || blob.size < width * height * 0.005) return null;
  // Erosion took one pixel off each side.
  blob.left = Math.max(0, blob.left - 1);
  blob.top = Math.max(0, blob.top - 1);
  blob.right = Math.min(width - 1, blob.right + 1);
  blob.bottom = Math.min(height - 1, blob.bottom + 1);
  const faceWidth = blob.right - blob.left + 1;
  // The blob may run down the neck or chest: a face is at most about 1.4 times as tall as wide.
  const faceHeight = Math.min(blob.bottom - blob.top + 1, faceWidth * 1.4);
  let cropHeight = faceHeight / 0.6;
  let cropWidth = cropHeight * 0.75;
  // Shrink to fit the photo, keeping the aspect.
  const fit = Math.min(1, width / cropWidth, height / cropHeight);
  cropHeight *= fit;
  cropWidth *= fit;
  const centreX = (blob.left + blob.right + 1) / 2;
  const left = clamp(centreX - cropWidth / 2, 0, width - cropWidth);
  const top = clamp(blob.top - cropHeight * 0.17, 0, height - cropHeight);
  return { left: Math.round(left), top: Math.round(top), width: Math.round(cropWidth), height: Math.round(cropHeight) };
}

interface Blob {
  size: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Keeps a pixel only when its four neighbours are skin too: cuts thin bridges to the background. */
function erode(mask: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const p = y * width + x;
      out[p] = mask[p] & mask[p - 1]! & mask[p + 1]! & mask[p - width]! & mask[p + width]!;
    }
  }
  return out;
}

/**
 * The 4-connected region of ones most likely to be a face: large, and not a band running along
 * the photo's sides (curtains, walls and wood that pass the skin test touch two or more edges).
 */
function bestBlob(mask: Uint8Array, width: number, height: number): Blob | null {
  const seen = new Uint8Array(mask.length);
  const stack: number[] = [];
  let best: Blob | null = null;
  let bestScore = 0;
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    const blob: Blob = { size: 0, left: width, right: 0, top: height, bottom: 0 };
    stack.push(start);
    seen[start] = 1;
    while (stack.length > 0) {
      const p = stack.pop()!;
      const x = p % width;
      const y = (p - x) / width;
      blob.size++;
      if (x < blob.left) blob.left = x;
      if (x > blob.right) blob.right = x;
      if (y < blob.top) blob.top = y;
      if (y > blob.bottom) blob.bottom = y;
      for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, y > 0 ? p - width : -1, y < height - 1 ? p + width : -1]) {
        if (q >= 0 && mask[q] && !seen[q]) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    const edges = Number(blob.left <= 1) + Number(blob.right >= width - 2) + Number(blob.top <= 1) + Number(blob.bottom >= height - 2);
    const score = blob.size * (edges >= 2 ? 0.2 : 1);
    if (score > bestScore) {
      best = blob;
      bestScore = score;
    }
  }
  return best;
}

function clamp(v: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, v));
}
