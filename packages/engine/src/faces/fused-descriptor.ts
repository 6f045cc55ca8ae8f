/**
 * The engine's face descriptor: face-api's 128-d descriptor and human's 1024-d faceres descriptor
 * side by side, so that the plain Euclidean distance between two of them (`faceDistance`) is a
 * fusion of the two models' distances:
 *
 *   d² = (d_faceapi² + (FACERES_SCALE · d_faceres)²) / 2
 *
 * a quadratic mean of the two distances once both are on the same scale. FACERES_SCALE puts the
 * faceres distance on face-api's scale: the ratio of the two models' median distances between
 * different persons on the fixtures (0.795 / 1.115, bench/checks/faces.ts, 1,941 pairs), so the
 * fused distance keeps face-api's familiar range (different persons around 0.8) and each model
 * weighs the same. No other weight is fitted: equal weights, one ratio of medians.
 *
 * Why two models: they fail on different pairs. On the fixtures' 139 same-person pairs, face-api
 * alone misses 5 at 0.1% false match and faceres alone 28 (it is much weaker alone), yet the
 * fusion misses 3: the pairs that face-api places close to a stranger are not the ones faceres
 * does. The ratio would move a little on other populations (it is a ratio of medians of
 * 1,941 pairs of 18 persons), which shifts the weight between the models slightly, not the method.
 */
export const FACE_API_LENGTH = 128;
export const FACERES_LENGTH = 1024;
export const FUSED_LENGTH = FACE_API_LENGTH + FACERES_LENGTH;
export const FACERES_SCALE = 0.713;

const HALF = Math.SQRT1_2;

/** face-api's descriptor (as computed, not rescaled) and faceres's unit descriptor, in one vector. */
export function fuseDescriptors(faceApi: ArrayLike<number>, faceres: ArrayLike<number>): number[] {
  if (faceApi.length !== FACE_API_LENGTH || faceres.length !== FACERES_LENGTH) throw new Error('face descriptors: unexpected lengths');
  const fused = new Array<number>(FUSED_LENGTH);
  for (let i = 0; i < FACE_API_LENGTH; i++) fused[i] = round(faceApi[i]! * HALF);
  for (let i = 0; i < FACERES_LENGTH; i++) fused[FACE_API_LENGTH + i] = round(faceres[i]! * FACERES_SCALE * HALF);
  return fused;
}

// Six decimals: the distance moves by less than 1e-4, and stored templates stay compact.
const round = (v: number) => Math.round(v * 1e6) / 1e6;

/** The two models' own descriptors back from a fused one (for benchmarks comparing each model alone). */
export function splitDescriptor(fused: ArrayLike<number>): { faceApi: number[]; faceres: number[] } {
  if (fused.length !== FUSED_LENGTH) throw new Error('face descriptors: unexpected length');
  const all = Array.from(fused);
  return {
    faceApi: all.slice(0, FACE_API_LENGTH).map((v) => v / HALF),
    faceres: all.slice(FACE_API_LENGTH).map((v) => v / (FACERES_SCALE * HALF)),
  };
}
