import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run build:console` (part of `npm run build`, which `npm start` runs first) writes the web app. */
export const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** One file of the build's manifest.json; its encodings lie beside it as `<file>.br` and `<file>.gz`. */
export interface ManifestEntry {
  path: string;
  contentType: string;
  immutable: boolean;
  encoded: ('br' | 'gzip')[];
}

export const encodedFile = (path: string, encoding: 'br' | 'gzip') => `${path}.${encoding === 'br' ? 'br' : 'gz'}`;
