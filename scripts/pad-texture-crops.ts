/**
 * Writes the crops the texture network (packages/engine/src/faces/medium/texture-net.ts) is
 * trained on and scored with: for every still of bench:pad's set (bench/checks/pad-set.ts, all
 * halves) in which one face is found, the face's texture window (texture-window.ts) as a PNG,
 * and an index of what each is (species, attack, half, person). It also saves the set itself,
 * as bench:pad's PAD_SAVE does, so that scripts/fit-pad-model.ts can refit from it.
 * Run: `npx tsx scripts/pad-texture-crops.ts <dir>` (about 35 minutes: it reads the whole set).
 * Then scripts/train-texture-net.py trains on the training half's crops only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { loadFaceModels } from '../packages/engine/src/faces/index.ts';
import { decodeWithBox } from '../packages/engine/src/faces/medium/read.ts';
import { textureWindow } from '../packages/engine/src/faces/medium/texture-window.ts';
import { buildPadSet, type PadRow } from '../bench/checks/pad-set.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: npx tsx scripts/pad-texture-crops.ts <output dir>');
mkdirSync(join(dir, 'crops'), { recursive: true });
await loadFaceModels();
const index: Array<Pick<PadRow, 'id' | 'species' | 'attack' | 'half' | 'person'> & { file: string }> = [];
const set = await buildPadSet({
  halves: [0, 1, 2],
  log: (l) => console.error(l),
  onStill: async (row, image, face) => {
    const { rgb, box } = await decodeWithBox(image, face);
    const window = textureWindow(rgb, box);
    if (!window) return;
    const file = `crops/${String(index.length).padStart(5, '0')}.png`;
    await sharp(window.data, { raw: { width: window.width, height: window.height, channels: 3 } }).png().toFile(join(dir, file));
    index.push({ file, id: row.id, species: row.species, attack: row.attack, half: row.half, person: row.person });
  },
});
// The set relabels the news re-captures after reading (pad-recaptured.ts): the index follows it.
const species = new Map(set.rows.map((r) => [r.id, r]));
for (const e of index) Object.assign(e, { species: species.get(e.id)!.species, attack: species.get(e.id)!.attack });
writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
writeFileSync(join(dir, 'set.json'), JSON.stringify(set));
console.error(`${index.length} crops, ${set.rows.length} stills`);
process.exit(0);
