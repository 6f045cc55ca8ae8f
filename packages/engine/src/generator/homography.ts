/**
 * The projective transform taking four points onto four others (a 3×3 matrix with h33 = 1),
 * solved as the usual 8×8 linear system by Gaussian elimination.
 */
export type Point = [number, number];
export type Homography = number[]; // 9 coefficients, row-major

export function homography(from: Point[], to: Point[]): Homography {
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i]!;
    const [u, v] = to[i]!;
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let col = 0; col < 8; col++) {
    let pivot = col;
    for (let r = col + 1; r < 8; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const p = a[col]![col]!;
    if (Math.abs(p) < 1e-12) throw new Error('degenerate quadrilateral');
    for (let r = 0; r < 8; r++) {
      if (r === col) continue;
      const factor = a[r]![col]! / p;
      for (let c = col; c < 9; c++) a[r]![c]! -= factor * a[col]![c]!;
    }
  }
  const h = a.map((row, i) => row[8]! / row[i]!);
  return [...h, 1];
}

export function project(h: Homography, x: number, y: number): Point {
  const w = h[6]! * x + h[7]! * y + h[8]!;
  return [(h[0]! * x + h[1]! * y + h[2]!) / w, (h[3]! * x + h[4]! * y + h[5]!) / w];
}
