/**
 * The MRZ locator's closings along rows of a binary image, as OpenCV's `morphologyEx(MORPH_CLOSE)`
 * computes them with a k × 1 MORPH_RECT kernel, its anchor at the centre and the default border
 * (pixels outside the image take no part): the same pixels (a test compares them with OpenCV's).
 *
 * Why not OpenCV's: opencv.js (WebAssembly) spends time in proportion to the kernel's length at
 * every pixel, and the locator closes its binary print at three lengths up to 55 pixels: those
 * closings were a fifth of the reader's time. On a binary row, a dilation is "is there ink within
 * the run" and an erosion "is there paper within the run": the last ink (or paper) pixel seen
 * while the run's end advances along the row answers it, in one step a pixel whatever k.
 */

/**
 * Closing (dilation then erosion) of a binary image (0 paper, anything else ink; the result 0 or
 * 255) by k pixels along its rows, the run of output x being [x - ⌊k/2⌋, x - ⌊k/2⌋ + k - 1].
 */
export function closeRowsBinary(data: Uint8Array, width: number, height: number, k: number): Uint8Array {
  const out = new Uint8Array(data.length);
  const anchor = k >> 1;
  const dilated = new Uint8Array(width);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    // Dilation: ink where the run [x - anchor, x - anchor + k - 1] (clipped) holds ink.
    let lastInk = -1 - k;
    let t = 0;
    for (let x = 0; x < width; x++) {
      const end = Math.min(width - 1, x - anchor + k - 1);
      for (; t <= end; t++) if (data[row + t] !== 0) lastInk = t;
      dilated[x] = lastInk >= x - anchor ? 1 : 0;
    }
    // Erosion of the dilation: ink where the same run holds no paper.
    let lastPaper = -1 - k;
    t = 0;
    for (let x = 0; x < width; x++) {
      const end = Math.min(width - 1, x - anchor + k - 1);
      for (; t <= end; t++) if (dilated[t] === 0) lastPaper = t;
      out[row + x] = lastPaper >= x - anchor ? 0 : 255;
    }
  }
  return out;
}
