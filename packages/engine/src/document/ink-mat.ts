import { loadOpenCv, type OpenCv } from '../opencv.ts';
import type { DecodedImage } from './decode.ts';

type Deletable = { delete(): void };

/**
 * Runs `use` on the ink of a binary image (ink 0, paper 255) as an opencv matrix in which the ink
 * is 255, as opencv's morphology and connected components want it. Every matrix `use` makes
 * through `keep` is freed afterwards, whatever happens: opencv.js's matrices live in wasm memory,
 * which V8's collector does not reclaim. `what` names the caller in the error for a wrong image.
 */
export async function withInk<T>(binary: DecodedImage, what: string, use: (cv: OpenCv, ink: OpenCv, keep: <M extends Deletable>(m: M) => M) => T): Promise<T> {
  if (binary.channels !== 1) throw new Error(`${what} needs a one-channel image`);
  const { cv } = await loadOpenCv();
  const mats: Deletable[] = [];
  const keep = <M extends Deletable>(m: M): M => (mats.push(m), m);
  try {
    const ink = keep(cv.matFromArray(binary.height, binary.width, cv.CV_8UC1, binary.data));
    cv.bitwise_not(ink, ink);
    return use(cv, ink, keep);
  } finally {
    for (const m of mats) m.delete();
  }
}
