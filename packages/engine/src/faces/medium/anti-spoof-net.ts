import { fileURLToPath } from 'node:url';
import type { InferenceSession } from 'onnxruntime-node';
import type { FaceBox } from '../../types.ts';
import { lazyCpuSession, runFloat } from '../../onnx/session.ts';
import type { RgbImage } from '../decode-image.ts';

/**
 * A trained face anti-spoofing network (MiniFASNet's architecture: convolutions with PReLU, three
 * classes, 128 × 128 input; models/face-anti-spoofing/README.md says where it comes from). It
 * reads the face with its surroundings, as it was made to: the face's box grown 2.7 times about
 * its centre (less if the image is too small, shifted to stay inside it), resized to 128 × 128
 * without keeping the aspect, values 0..255 as they are, NCHW, and the planes in OpenCV's order,
 * blue, green, red. The package's browser demo feeds it red first; measured on the training half
 * of bench:pad's set, blue first separates NUAA's prints from its live frames with a margin red
 * first does not have (live frames' median live probability 1.000 against 0.983, prints' 0.000
 * against 0.002), and the phone's bona fide clip frames, read red first, look like attacks
 * (median 0.075): it was trained as Silent-Face-Anti-Spoofing reads images, with OpenCV.
 */
export const ANTI_SPOOF_MODEL = fileURLToPath(new URL('../../../models/face-anti-spoofing/anti-spoofing-128.onnx', import.meta.url));
export const ANTI_SPOOF_SIDE = 128;
const CROP_SCALE = 2.7;
/**
 * Which of the three outputs is the live face: the first, as the package's own demo reads it, and
 * as the training half of bench:pad's set shows (NUAA's live frames near 1 there, its prints near
 * 0; the second output is the reverse, the third near 0 on everything).
 */
export const LIVE_CLASS = 0;

/** The crop the network reads, pure: the grown box resized bilinearly (pixel centres aligned), as CHW floats, blue plane first. */
export function antiSpoofInput(image: RgbImage, box: FaceBox): Float32Array {
  const scale = Math.min((image.height - 1) / box.height, (image.width - 1) / box.width, CROP_SCALE);
  const w = box.width * scale;
  const h = box.height * scale;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  let x0 = cx - w / 2, y0 = cy - h / 2, x1 = cx + w / 2, y1 = cy + h / 2;
  if (x0 < 0) { x1 -= x0; x0 = 0; }
  if (y0 < 0) { y1 -= y0; y0 = 0; }
  if (x1 > image.width - 1) { x0 -= x1 - image.width + 1; x1 = image.width - 1; }
  if (y1 > image.height - 1) { y0 -= y1 - image.height + 1; y1 = image.height - 1; }
  x0 = Math.max(0, Math.floor(x0));
  y0 = Math.max(0, Math.floor(y0));
  const cw = Math.max(1, Math.min(image.width - x0, Math.floor(x1 - x0)));
  const ch = Math.max(1, Math.min(image.height - y0, Math.floor(y1 - y0)));
  const n = ANTI_SPOOF_SIDE;
  const plane = n * n;
  const out = new Float32Array(3 * plane);
  const sx = cw / n, sy = ch / n;
  for (let y = 0; y < n; y++) {
    const fy = Math.min(ch - 1, Math.max(0, (y + 0.5) * sy - 0.5));
    const ya = Math.floor(fy), yb = Math.min(ch - 1, ya + 1), wy = fy - ya;
    for (let x = 0; x < n; x++) {
      const fx = Math.min(cw - 1, Math.max(0, (x + 0.5) * sx - 0.5));
      const xa = Math.floor(fx), xb = Math.min(cw - 1, xa + 1), wx = fx - xa;
      const a = ((y0 + ya) * image.width + x0 + xa) * 3, b = ((y0 + ya) * image.width + x0 + xb) * 3;
      const c = ((y0 + yb) * image.width + x0 + xa) * 3, d = ((y0 + yb) * image.width + x0 + xb) * 3;
      for (let k = 0; k < 3; k++) {
        const top = image.data[a + k]! * (1 - wx) + image.data[b + k]! * wx;
        const bottom = image.data[c + k]! * (1 - wx) + image.data[d + k]! * wx;
        // RGB in, BGR planes out.
        out[(2 - k) * plane + y * n + x] = top * (1 - wy) + bottom * wy;
      }
    }
  }
  return out;
}

/** The network's three class probabilities (softmax of its output) for one face. */
export async function antiSpoofClasses(session: InferenceSession, image: RgbImage, box: FaceBox): Promise<number[]> {
  const logits = await runFloat(session, antiSpoofInput(image, box), [1, 3, ANTI_SPOOF_SIDE, ANTI_SPOOF_SIDE]);
  const max = Math.max(...logits);
  const e = Array.from(logits, (v) => Math.exp(v - max));
  const sum = e.reduce((s, v) => s + v, 0);
  return e.map((v) => v / sum);
}

/**
 * The live probability's log-odds, bounded (±9.2): the network's probabilities crowd at 0 and 1,
 * where the differences are.
 */
export const liveLogOdds = (p: number): number => Math.log((p + 1e-4) / (1 - p + 1e-4));

/** This thread's session, loaded on first use. */
export const loadAntiSpoofNet = lazyCpuSession(ANTI_SPOOF_MODEL);
