import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FACE_TEMPLATE_LENGTH, FACE_TEMPLATE_VERSION } from '../../packages/engine/src/index.ts';
import { analyseLfw, lfwManifest } from '../checks/faces-lfw.ts';

/**
 * The engine's face template of every photo of the development set of faces from the wild
 * (`../shared/fixtures/faces/lfw-dev`, analysed by bench/checks/faces-lfw.ts's `analyseLfw`):
 * the largest face of each photo, as a case's selfie template is computed.
 *
 * Cached under `.tmp/` by a hash of the model files, the engine's face sources and the
 * template version: a rerun with the same engine reads the cache (the first run takes about a
 * quarter of a second of CPU per photo).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface LfwFace {
  path: string;
  identity: string;
  template: number[];
}

export interface LfwTemplates {
  faces: LfwFace[];
  photos: number;
  without_face: number;
  cached: boolean;
  cache_key: string;
}

/** The recognition model and the engine's face sources (human's detector changes with its locked version). */
function modelFingerprint(): string {
  const dirs = [join(ROOT, 'packages', 'engine', 'models', 'face-recognition'), join(ROOT, 'packages', 'engine', 'src', 'faces')];
  const h = createHash('sha256').update(`${FACE_TEMPLATE_VERSION}:${FACE_TEMPLATE_LENGTH}`);
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const file = join(dir, name);
      if (!statSync(file).isFile()) continue;
      h.update(name).update(readFileSync(file));
    }
  }
  return h.digest('hex').slice(0, 16);
}

export async function lfwTemplates(log: (line: string) => void = () => {}): Promise<LfwTemplates> {
  const photos = lfwManifest().length;
  const key = modelFingerprint();
  const cacheDir = join(ROOT, '.tmp', 'lfw-dev-templates');
  const cacheFile = join(cacheDir, `${key}.json`);
  if (existsSync(cacheFile)) {
    const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as Omit<LfwTemplates, 'cached'>;
    if (cached.photos === photos) return { ...cached, cached: true };
  }
  const analysed = await analyseLfw(log);
  const faces = analysed.faces.map((f) => ({ path: f.path, identity: f.person, template: Array.from(f.face.descriptor) }));
  const withoutFace = analysed.undetected;
  const out = { faces, photos, without_face: withoutFace, cache_key: key };
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${cacheFile}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(out));
  renameSync(partial, cacheFile);
  return { ...out, cached: false };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t = await lfwTemplates((l) => console.log(l));
  console.log(JSON.stringify({ photos: t.photos, faces: t.faces.length, without_face: t.without_face, cached: t.cached, cache_key: t.cache_key }));
  process.exit(0);
}
