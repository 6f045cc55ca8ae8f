/**
 * The input convention of this project's own texture networks (the selfie's, faces/medium/texture-net.ts,
 * and the document's, document/medium/medium-net.ts), the one their training scripts' `to_tensor`
 * follows (scripts/texture_net.py): each square patch as three planes, red first, of the raw
 * values 0..255 (the networks normalise them themselves).
 */

/**
 * Copies the square of `side` pixels at (x0, y0) of an interleaved RGB image `width` pixels wide
 * into `out` as three planes, red first, starting at `offset` (pure but for `out`).
 */
export function writeRgbPlanes(out: Float32Array, offset: number, rgb: Uint8Array, width: number, x0: number, y0: number, side: number): void {
  const plane = side * side;
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const i = ((y0 + y) * width + x0 + x) * 3;
      for (let c = 0; c < 3; c++) out[offset + c * plane + y * side + x] = rgb[i + c]!;
    }
  }
}
