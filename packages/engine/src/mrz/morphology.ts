/**
 * The MRZ locator's closings along rows of a binary image, pixel for pixel as OpenCV's
 * `morphologyEx(MORPH_CLOSE)` with a k × 1 rectangle (a test compares them), computed from the ink
 * runs alone: opencv.js spends time in proportion to the kernel's length at every pixel.
 */

/**
 * Closing of a binary image (0 paper, 255 ink) by k pixels along its rows, the kernel spanning
 * [x - a, x + b] with a = ⌊k/2⌋, b = k - 1 - a. A gap of paper between two inks survives only when
 * it is k or wider, shifted by s = a - b (OpenCV keeps the anchor of both passes); paper before the
 * first ink and after the last survives unless the dilation reaches the row's end.
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
