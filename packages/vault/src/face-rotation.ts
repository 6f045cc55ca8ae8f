import { createCipheriv, hkdfSync } from 'node:crypto';

/**
 * A secret random rotation of face templates, seeded by a 32-byte key: the face search index
 * stores templates rotated by their tenant's rotation. A rotation keeps every Euclidean distance
 * (so the nearest-neighbour search and its threshold work unchanged), while the stored vectors
 * are not the engine's templates: without the key they cannot be compared with templates made
 * elsewhere, nor with another tenant's, and the template is not read back from a dump.
 * It is not encryption: see docs/personal-data.md for what it does not protect against.
 *
 * The rotation is uniformly distributed over the orthogonal group (Stewart, "The efficient
 * generation of random orthogonal matrices with an application to condition estimators", 1980):
 * a product of d-1 Householder reflections of Gaussian vectors of decreasing length and a random
 * sign per axis. It is kept as those reflections (d²/2 numbers, made in a few milliseconds), and
 * applied in about 2·d² operations, never as a d×d matrix. The Gaussians come from AES-256-CTR
 * under a key derived from the seed and the dimension: the same seed gives the same rotation on
 * every machine and in every process.
 */
export class FaceRotation {
  private constructor(
    readonly dimension: number,
    /** Unit Householder vectors, the k-th (length d-k) acting on coordinates k..d-1, one after another. */
    private readonly reflections: Float64Array,
    private readonly signs: Float64Array,
  ) {}

  static fromSeed(seed: Buffer, dimension: number): FaceRotation {
    if (seed.length !== 32) throw new Error('a face rotation seed must be 32 bytes');
    if (!Number.isInteger(dimension) || dimension < 2 || dimension > 4096) throw new Error('face rotation: dimension out of range');
    const gauss = gaussianStream(seed, dimension);
    const d = dimension;
    const reflections = new Float64Array((d * (d + 1)) / 2);
    const signs = new Float64Array(d);
    let at = 0;
    for (let k = 0; k < d - 1; k++) {
      const n = d - k;
      let norm = 0;
      for (let i = 0; i < n; i++) {
        const g = gauss();
        reflections[at + i] = g;
        norm += g * g;
      }
      norm = Math.sqrt(norm);
      const first = reflections[at]!;
      const s = first >= 0 ? 1 : -1;
      // u = x + sign(x0)·|x|·e0, normalised: H = I - 2uuᵀ maps x to -sign(x0)·|x|·e0.
      reflections[at] = first + s * norm;
      let unorm = 0;
      for (let i = 0; i < n; i++) unorm += reflections[at + i]! ** 2;
      unorm = Math.sqrt(unorm);
      for (let i = 0; i < n; i++) reflections[at + i] = reflections[at + i]! / unorm;
      signs[k] = -s;
      at += n;
    }
    signs[d - 1] = gauss() >= 0 ? 1 : -1;
    return new FaceRotation(d, reflections, signs);
  }

  /** The rotated template (as many numbers, the same distances to every other rotated template). */
  apply(template: ArrayLike<number>): number[] {
    const d = this.dimension;
    if (template.length !== d) throw new Error('face rotation: template of another length');
    const y = Float64Array.from(template as ArrayLike<number>);
    for (let i = 0; i < d; i++) if (!Number.isFinite(y[i]!)) throw new Error('face rotation: not a finite template');
    // Q = D·H_0·H_1···H_{d-2}: the last reflection first (the k-th starts at Σ_{j<k}(d-j)).
    for (let k = d - 2; k >= 0; k--) {
      const start = k * d - (k * (k - 1)) / 2;
      const n = d - k;
      let dot = 0;
      for (let i = 0; i < n; i++) dot += this.reflections[start + i]! * y[k + i]!;
      dot *= 2;
      for (let i = 0; i < n; i++) y[k + i] = y[k + i]! - dot * this.reflections[start + i]!;
    }
    const out = new Array<number>(d);
    for (let i = 0; i < d; i++) out[i] = this.signs[i]! * y[i]!;
    return out;
  }
}

/** Standard normal numbers from AES-256-CTR under a key derived from the seed (Box-Muller). */
function gaussianStream(seed: Buffer, dimension: number): () => number {
  const key = Buffer.from(hkdfSync('sha256', seed, Buffer.alloc(0), `idv:face-rotation:${dimension}`, 32));
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  const CHUNK = 1 << 16;
  const zeros = Buffer.alloc(CHUNK);
  let words = new Uint32Array(0);
  let i = 0;
  let spare: number | null = null;
  const uniform = (): number => {
    if (i >= words.length) {
      // Copied into a buffer of its own: the cipher's output may start at an unaligned offset.
      words = new Uint32Array(new Uint8Array(cipher.update(zeros)).buffer);
      i = 0;
    }
    // (0, 1]: never 0, for the logarithm.
    return (words[i++]! + 1) / 4294967296;
  };
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const t = 2 * Math.PI * uniform();
    spare = r * Math.sin(t);
    return r * Math.cos(t);
  };
}
