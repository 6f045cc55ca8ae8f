/**
 * The MRZ locator's closings along rows of a binary image, as OpenCV's `morphologyEx(MORPH_CLOSE)`
 * computes them with a k × 1 MORPH_RECT kernel, its anchor at the centre and the default border
 * (pixels outside the image take no part): the same pixels (a test compares them with OpenCV's).
 *
 * Why not OpenCV's: opencv.js (WebAssembly) spends time in proportion to the kernel's length at
 * every pixel, and the locator closes its binary print at three lengths up to 55 pixels: those
 * closings were a fifth of the reader's time. On a binary row the closing follows from the ink
 * runs alone, found with the runtime's native byte search (the print is mostly paper).
 */

/**
 * Closing (dilation then erosion) of a binary image (0 paper, 255 ink; other values are not
 * binary and not allowed) by k pixels along its rows, the run of output x being [x - a, x + b]
 * with a = ⌊k/2⌋ and b = k - 1 - a.
 *
 * Between two ink pixels p < q with only paper between (a gap of g = q - p - 1), the dilation
 * leaves paper on [p + a + 1, q - b - 1], none when g < k; the erosion then leaves paper where
 * its run meets that, [p + 1 + s, q - 1 + s] with s = a - b (0 for odd k, 1 for even: OpenCV
 * keeps the anchor of both passes, so an even closing moves the edges of a gap by one). Before
 * the first ink q, paper stays on [0, q - 1 + s] when q > b (the dilation reaches the row's start
 * otherwise); after the last ink p, on [p + 1 + s, width) when p + a + 1 < width.
 */
export function closeRowsBinary(data: Uint8Array, width: number, height: number, k: number): Uint8Array {
  const out = new Uint8Array(data.length);
  const a = k >> 1;
  const b = k - 1 - a;
  const s = a - b;
  for (let y = 0; y < height; y++) {
    // The row alone: a search must not run on into the next rows.
    const line = data.subarray(y * width, (y + 1) * width);
    const row = out.subarray(y * width, (y + 1) * width);
    let q = line.indexOf(255);
    if (q < 0) continue;
    // Ink of the closing runs from `from` until the next gap that stays open.
    let from = q <= b ? 0 : q + s;
    for (;;) {
      // p: the last ink pixel of the run starting at q.
      const paper = line.indexOf(0, q);
      if (paper < 0) {
        row.fill(255, from);
        break;
      }
      const p = paper - 1;
      const next = line.indexOf(255, paper);
      if (next < 0) {
        row.fill(255, from, p + a + 1 < width ? p + 1 + s : width);
        break;
      }
      if (next - p - 1 >= k) {
        row.fill(255, from, p + 1 + s);
        from = next + s;
      }
      q = next;
    }
  }
  return out;
}
