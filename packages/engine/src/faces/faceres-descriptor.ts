import { runFloat } from '../onnx/session.ts';
import type { FaceModels } from './models.ts';

/**
 * human's own face descriptor (`faceres`, HSE FaceRes: 1024-d, input 224 × 224 RGB 0..255), on
 * the face crop human's pipeline already made for its other face models: the detector's box,
 * turned upright by the eye line, 192 × 192, values 0..1 (human returns it with
 * `face.detector.return`). Resized to the model's input as human itself does, run on the crop and
 * on its mirror image in one batch (both made in the graph: faceres-onnx.ts); each output is scaled to unit length and the two averaged
 * (then unit length again), so that, like the face-api part, a mirrored selfie compares like an
 * unmirrored one. Returns a unit vector. The model runs on onnxruntime (faceres-onnx.ts).
 */
export async function describeWithFaceres({ faceres }: FaceModels, face: unknown): Promise<number[]> {
  const crop = face as { shape: number[]; data(): Promise<Float32Array> };
  const [height, width] = crop.shape.slice(-3, -1) as [number, number];
  const both = await runFloat(faceres, await crop.data(), [1, height, width, 3]);
  const direct = unit(both.subarray(0, 1024));
  const mirrored = unit(both.subarray(1024, 2048));
  return unit(direct.map((v, i) => v + mirrored[i]!));
}

function unit(values: ArrayLike<number>): number[] {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]! ** 2;
  const norm = Math.sqrt(sum) || 1;
  return Array.from(values, (v) => v / norm);
}
