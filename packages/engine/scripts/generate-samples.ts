/**
 * Writes generated documents for inspection or for another tool: `<outdir>/doc-<seed>.jpg` and
 * `<outdir>/samples.json` (seed, format, MRZ lines, image size, document box). Usage:
 *   npx tsx packages/engine/scripts/generate-samples.ts <outdir> <n> [--flat] [--first-seed N]
 * Portraits come from ../shared/fixtures/faces (portrait kind), read in place.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDocument, portraitFixtures, randomIdentity } from '../src/index.ts';

const [outdir, count = '10', ...flags] = process.argv.slice(2);
if (!outdir) {
  console.error('usage: generate-samples.ts <outdir> <n> [--flat] [--first-seed N]');
  process.exit(2);
}
const flat = flags.includes('--flat');
const firstSeedAt = flags.indexOf('--first-seed');
const firstSeed = firstSeedAt >= 0 ? Number(flags[firstSeedAt + 1]) : 1;
mkdirSync(outdir, { recursive: true });
const portraits = portraitFixtures();
const samples = [];
const started = performance.now();
const cpuStart = process.cpuUsage();
for (let seed = firstSeed; seed < firstSeed + Number(count); seed++) {
  const format = seed % 2 === 0 ? 'TD1' : 'TD3';
  const doc = await generateDocument({
    format,
    fields: randomIdentity(seed),
    // A multiplicative hash spreads consecutive seeds over the people of the manifest.
    portrait: readFileSync(portraits[(seed * 2654435761) % 4294967296 % portraits.length]!),
    seed,
    degrade: flat ? false : undefined,
  });
  const file = `doc-${seed}.jpg`;
  writeFileSync(join(outdir, file), doc.image);
  samples.push({ file, seed, format, lines: doc.lines, width: doc.width, height: doc.height, documentBox: doc.documentBox, documentCorners: doc.documentCorners });
}
writeFileSync(join(outdir, 'samples.json'), JSON.stringify(samples, null, 1));
const cpu = process.cpuUsage(cpuStart);
const each = (ms: number) => (ms / samples.length).toFixed(0);
// CPU time counts libvips' own threads too: on a busy machine it is the fairer figure.
console.log(`${samples.length} documents in ${outdir}: ${each(performance.now() - started)} ms each, ${each((cpu.user + cpu.system) / 1000)} ms of CPU each`);
