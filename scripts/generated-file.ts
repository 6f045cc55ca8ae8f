import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Writes a generated file, or with `--check` on the command line (CI) fails when the committed
 * file differs from what the generator gives now: generated files are committed and never drift.
 */
export function writeOrCheck(target: URL, text: string, command: string): void {
  const name = relative(ROOT, fileURLToPath(target));
  if (!process.argv.includes('--check')) {
    writeFileSync(target, text);
    console.log(`wrote ${name}`);
    return;
  }
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing counts as different
  }
  if (committed !== text) {
    console.error(`${name} is out of date: run \`${command}\` and commit the result.`);
    process.exit(1);
  }
  console.log(`${name} is up to date`);
}
