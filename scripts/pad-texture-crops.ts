/**
 * Writes the crops the texture network (packages/engine/src/faces/medium/texture-net.ts) is
 * trained on and scored with: for every still of bench:pad's set (bench/checks/pad-set.ts) in
 * which one face is found, the face's texture window (texture-window.ts) as a PNG, and an index
 * of what each is (species, attack, half, person). It also saves the set itself,
 * as bench:pad's PAD_SAVE does, so that scripts/fit-pad-model.ts can refit from it.
 *
 * Run: `npx tsx scripts/pad-texture-crops.ts <dir> [--halves 0,1,2]`.
 * The output is named for the halves (index-h012.json, set-h012.json, crops/h012-00000.png), so
 * that one run a half can write into the same directory at once, one process a core: the whole
 * set in one process takes about 35 minutes; `--halves 0` and `--halves 1,2` side by side took
 * 21 and 15 minutes on two cores (2026-11-30, the training half then with more prints than now).
 * scripts/train-texture-net.py reads every index in the directory and trains on the training
 * half's crops only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { loadFaceModels } from '../packages/engine/src/faces/index.ts';
import { decodeWithBox } from '../packages/engine/src/faces/medium/read.ts';
import { textureWindow } from '../packages/engine/src/faces/medium/texture-window.ts';
import { buildPadSet, type PadRow } from '../bench/checks/pad-set.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { halves: { type: 'string', default: '0,1,2' } } });
const dir = positionals[0];
if (!dir || !/^[012](,[012])*$/.test(values.halves)) throw new Error('usage: npx tsx scripts/pad-texture-crops.ts <output dir> [--halves 0,1,2]');
const halves = values.halves.split(',').map(Number) as Array<0 | 1 | 2>;
const tag = `h${halves.join('')}`;
mkdirSync(join(dir, 'crops'), { recursive: true });
await loadFaceModels();
const index: Array<Pick<PadRow, 'id' | 'species' | 'attack' | 'half' | 'person'> & { file: string }> = [];
const set = await buildPadSet({
  halves,
  log: (l) => console.error(l),
  onStill: async (row, image, face) => {
    const { rgb, box } = await decodeWithBox(image, face);
    const window = textureWindow(rgb, box);
    if (!window) return;
    const file = `crops/${tag}-${String(index.length).padStart(5, '0')}.png`;
    await sharp(window.data, { raw: { width: window.width, height: window.height, channels: 3 } }).png().toFile(join(dir, file));
    index.push({ file, id: row.id, species: row.species, attack: row.attack, half: row.half, person: row.person });
  },
});
// The set relabels the news re-captures after reading (pad-recaptured.ts): the index follows it.
const rows = new Map(set.rows.map((r) => [r.id, r]));
for (const e of index) {
  const { species, attack, half } = rows.get(e.id)!;
  Object.assign(e, { species, attack, half });
}
writeFileSync(join(dir, `index-${tag}.json`), JSON.stringify(index));
writeFileSync(join(dir, `set-${tag}.json`), JSON.stringify(set));
console.error(`${index.length} crops, ${set.rows.length} stills`);
process.exit(0);
