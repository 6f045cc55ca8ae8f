/**
 * TensorFlow's weight layouts turned into ONNX's, for the graphs the engine writes from tfjs
 * models (tf-graph.ts).
 */

/** TensorFlow's [h, w, in, out] filter (depthwise: [h, w, channels, multiplier]) to ONNX's [out, in / group, h, w]. */
export function hwioToOihw(filter: { shape: readonly number[]; values: ArrayLike<number> }, depthwise: boolean): Float32Array {
  const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
  const out = new Float32Array(filter.values.length);
  for (let y = 0; y < kh; y++) {
    for (let x = 0; x < kw; x++) {
      for (let i = 0; i < cin; i++) {
        for (let o = 0; o < cout; o++) {
          const from = ((y * kw + x) * cin + i) * cout + o;
          const to = depthwise ? ((i * cout + o) * kh + y) * kw + x : ((o * cin + i) * kh + y) * kw + x;
          out[to] = filter.values[from]!;
        }
      }
    }
  }
  return out;
}
