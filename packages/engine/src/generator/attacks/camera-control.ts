import { createRng } from '../rng.ts';
import { photograph, selfieFrame, type CameraDraw } from './rig.ts';
import { resizeSource, type Source } from './source.ts';

/**
 * The bona fide control of the generated attacks: the same photo taken as the live scene itself,
 * filmed by the same simulated phone (the frame, the lens blur, the sensor noise and the JPEG of
 * rig.ts), with no screen or paper in between. A generated attack differs from its source photo
 * by the medium and by the simulated camera; against the untouched photos alone, a measure that
 * only notices the simulated camera (its noise on an upscaled photo) would look like a detector
 * of prints. Against this control, only what the medium adds separates the two.
 */
export async function cameraControl(src: Source, seed: number): Promise<{ image: Buffer; camera: CameraDraw }> {
  const rng = createRng(seed);
  const frame = selfieFrame(rng);
  // The scene fills the frame (cover fit about the face), seen square on.
  const scene = await resizeSource(src, frame.width, frame.height);
  const surface = (u: number, v: number, out: Float64Array) => {
    const i = ((v | 0) * frame.width + (u | 0)) * 3;
    out[0] = scene[i]!;
    out[1] = scene[i + 1]!;
    out[2] = scene[i + 2]!;
    return true;
  };
  return photograph(
    surface,
    {
      ...frame,
      corners: [[0, 0], [frame.width, 0], [frame.width, frame.height], [0, frame.height]],
      surfaceWidth: frame.width,
      surfaceHeight: frame.height,
      blur: rng.range(0.3, 1.3),
    },
    rng,
  );
}
