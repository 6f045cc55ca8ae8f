/**
 * Writes the crops the document medium network (packages/engine/src/document/medium/medium-net.ts)
 * is trained on: for generated identities of the CALIBRATION half of bench:pad-documents only
 * (seed % 4 < 2: the test half and the real fixture documents are never seen), the generator's
 * phone photo and flat rendering of the document (genuine: a photo, and a scan as an upload
 * brings it), and its three attacks (a screen, a black-and-white copy, a faded colour copy, each
 * photographed), located as the document_quality check locates them; of each image, the windows
 * of 64 px around the engine's patch centres (mediumWindows), side by side in one PNG, and an
 * index of what each is.
 * With `real`, the same from the real fixture documents of the calibration half instead (every
 * other one, realHalf): each as it is (a scan or a specimen: genuine), and, for REAL_DRAWS
 * seeds, photographed by the simulated phone (genuine) and shown on a screen or copied (attacks):
 * the same content on both sides, so that what the network learns is the medium and not the
 * generator's look (without them it took 27 of the 30 real documents for attacks). A real
 * document with no colour at all is left out: it is what a black-and-white copy is, the colour
 * rule already sends it to a person, and as a genuine one it taught the network that a copy is
 * genuine (its copy threshold then let every colour copy through).
 * Run: `npx tsx scripts/document-medium-crops.ts <dir> [from] [to]` (seeds from..to, default
 * 5000..5320: 160 calibration identities, about 10 s each; two runs on two seed ranges share the
 * machine's cores) and `npx tsx scripts/document-medium-crops.ts <dir> real [k/n]` (the k-th of n
 shards of the real documents, about 15 minutes in all). Then
 * scripts/train-document-medium-net.py <dir>.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { assessDocumentQuality, locatePhoto } from '../packages/engine/src/document/quality.ts';
import { mediumWindows } from '../packages/engine/src/document/medium/medium-net.ts';
import { MEDIUM_THRESHOLDS } from '../packages/engine/src/document/medium/medium.ts';
import { DOCUMENT_ATTACK_SPECIES, generateDocumentAttack, imageAttack, imagePhotographed } from '../packages/engine/src/generator/attacks/species.ts';
import { generateDocument } from '../packages/engine/src/generator/generate.ts';
import { FIXTURES_DIR, portraitFixtures } from '../packages/engine/src/generator/fixtures.ts';
import { documentHalf, documentOptions, FIRST_SEED, realDocuments, realHalf } from '../bench/checks/pad-documents.ts';

const WINDOW = 64;
/** Draws of the simulated phone, screen and copier per real document. */
const REAL_DRAWS = 6;
const [dir, fromArg, toArg] = process.argv.slice(2);
if (!dir) throw new Error('usage: npx tsx scripts/document-medium-crops.ts <output dir> [from seed] [to seed] | real');
mkdirSync(join(dir, 'crops'), { recursive: true });

/** Each item: a name for its crop, the group the cross-fitting keeps together (one identity or one real document), the kind of image, its bytes. */
type Item = [name: string, group: string, kind: string, bytes: Uint8Array];

async function* generatedItems(from: number, to: number): AsyncGenerator<Item[]> {
  const portraits = portraitFixtures();
  for (let seed = from; seed < to; seed++) {
    if (documentHalf(seed) !== 'calibration') continue;
    const opts = documentOptions(seed, portraits);
    const items: Item[] = [
      [`${seed}-photo`, String(seed), 'photo', (await generateDocument(opts)).image],
      [`${seed}-flat`, String(seed), 'flat', (await generateDocument({ ...opts, degrade: false })).image],
    ];
    for (const s of DOCUMENT_ATTACK_SPECIES) items.push([`${seed}-${s}`, String(seed), s, (await generateDocumentAttack(s, opts)).image]);
    yield items;
  }
}

async function* realItems(shard: number, shards: number): AsyncGenerator<Item[]> {
  for (const [k, rel] of realDocuments().entries()) {
    if (realHalf(k) !== 'calibration' || (k >> 1) % shards !== shard) continue;
    const bytes = readFileSync(join(FIXTURES_DIR, 'documents', rel));
    const asIs = await assessDocumentQuality(bytes);
    if ((asIs.report.measures.colour_spread ?? 0) < MEDIUM_THRESHOLDS.maxCopyColourSpread) {
      console.error(`${rel}: no colour (colour_spread ${asIs.report.measures.colour_spread}), left out`);
      continue;
    }
    const group = `real-${k}`;
    const items: Item[] = [[`${group}-flat`, group, 'flat', bytes]];
    for (let d = 0; d < REAL_DRAWS; d++) {
      const seed = 1000 * (k + 1) + d; // not the bench's draws (it uses seed k)
      items.push([`${group}-${d}-photo`, group, 'photo', (await imagePhotographed(bytes, seed)).image]);
      for (const s of DOCUMENT_ATTACK_SPECIES) items.push([`${group}-${d}-${s}`, group, s, (await imageAttack(s, bytes, seed)).image]);
    }
    yield items;
  }
}

const real = fromArg === 'real';
const [shard, shards] = real && toArg ? toArg.split('/').map(Number) as [number, number] : [0, 1];
const batches = real ? realItems(shard, shards) : generatedItems(Number(fromArg ?? FIRST_SEED), Number(toArg ?? FIRST_SEED + 320));
const index: Array<{ file: string; group: string; kind: string; windows: number }> = [];
for await (const items of batches) {
  for (const [name, group, kind, bytes] of items) {
    const photo = await locatePhoto(bytes);
    if (!photo?.location) continue;
    const windows = mediumWindows(photo.decoded, photo.location.corners, WINDOW);
    if (!windows.length) continue;
    const strip = Buffer.alloc(windows.length * WINDOW * WINDOW * 3);
    for (const [k, w] of windows.entries()) {
      for (let y = 0; y < WINDOW; y++) Buffer.from(w.buffer, w.byteOffset + y * WINDOW * 3, WINDOW * 3).copy(strip, (y * windows.length * WINDOW + k * WINDOW) * 3);
    }
    const file = `crops/${name}.png`;
    await sharp(strip, { raw: { width: windows.length * WINDOW, height: WINDOW, channels: 3 } }).png().toFile(join(dir, file));
    index.push({ file, group, kind, windows: windows.length });
  }
  console.error(`${items[0]![1]}: ${index.length} images`);
}
writeFileSync(join(dir, `index-${real ? `real-${shard}` : fromArg ?? FIRST_SEED}.json`), JSON.stringify(index));
process.exit(0);
