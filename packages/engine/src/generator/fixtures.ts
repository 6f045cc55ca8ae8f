import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The shared fixtures folder beside the project checkout (`../shared/fixtures`). */
export const FIXTURES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../../shared/fixtures');

/**
 * Paths of the face fixtures of kind `portrait` (real photos, one person each), for generated
 * documents' portraits. Fails loudly when the fixtures are missing rather than skipping.
 */
export function portraitFixtures(): string[] {
  const manifestPath = join(FIXTURES_DIR, 'faces/manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`face fixtures not found at ${manifestPath}`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Array<{ path: string; kind: string }>;
  return manifest.filter((m) => m.kind === 'portrait').map((m) => join(FIXTURES_DIR, 'faces', m.path));
}
