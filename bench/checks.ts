/**
 * `npm run bench:checks`: the figures of the automated checks, each section measured in this
 * run on this machine — the machine-readable zone against its baseline (bench/checks/mrz.ts),
 * faces and liveness (bench/checks/faces.ts), document quality, barcodes, printed zone and
 * validity (bench/checks/document.ts), and the whole pipeline per case
 * (bench/checks/pipeline.ts), and the first case after `npm start` against the later ones
 * (bench/checks/cold-start.ts), whether a face's motion over a sequence is flat (a print or a
 * screen) or round (bench/checks/pad-motion.ts), the trained network over a live capture's frames
 * (bench/checks/pad-sequence.ts), and presentation attacks on documents
 * (bench/checks/pad-documents.ts), and presentation attacks on a still (bench/checks/pad.ts). A section whose file is absent is reported as such. Prints each
 * section's figures as it finishes, then ONE line of JSON holding all of them.
 *
 * Environment: BENCH_SECTIONS (default: every section below), and each section's own knobs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The document generator prints the MRZ in OCR-B: without the font, sharp's renderer substitutes
// another and every MRZ figure measures the wrong thing. Refuse rather than print such figures.
if (!hasOcrBFont()) {
  console.error("bench:checks needs the OCR-B font (Debian's fonts-ocr-b, as .ci/run installs): `fc-list | grep 'OCR B'` finds none. Install it with: apt-get install fonts-ocr-b");
  process.exit(1);
}

function hasOcrBFont(): boolean {
  try {
    return execFileSync('fc-list', { encoding: 'utf8' }).includes('OCR B');
  } catch {
    return false; // no fontconfig at all: no font either
  }
}

const SECTIONS: Record<string, { file: string; fn: string }> = {
  mrz: { file: 'checks/mrz.ts', fn: 'measureMrz' },
  faces: { file: 'checks/faces.ts', fn: 'measureFaces' },
  faces_lfw: { file: 'checks/faces-lfw.ts', fn: 'measureFacesLfw' },
  document: { file: 'checks/document.ts', fn: 'measureDocument' },
  pipeline: { file: 'checks/pipeline.ts', fn: 'measurePipeline' },
  cold_start: { file: 'checks/cold-start.ts', fn: 'measureColdStart' },
  pad_motion: { file: 'checks/pad-motion.ts', fn: 'measurePadMotion' },
  pad_sequence: { file: 'checks/pad-sequence.ts', fn: 'measurePadSequence' },
  pad_documents: { file: 'checks/pad-documents.ts', fn: 'measurePadDocuments' },
  pad: { file: 'checks/pad.ts', fn: 'measurePad' },
};
const wanted = (process.env.BENCH_SECTIONS ?? Object.keys(SECTIONS).join(',')).split(',').filter((s) => s in SECTIONS);

const all: Record<string, unknown> = {};
for (const name of wanted) {
  const { file, fn } = SECTIONS[name];
  const path = fileURLToPath(new URL(file, import.meta.url));
  if (!existsSync(path)) {
    all[name] = { missing: `bench/${file} is not there yet` };
    console.log(`${name}: bench/${file} is not there yet`);
    continue;
  }
  const started = Date.now();
  const mod = (await import(pathToFileURL(path).href)) as Record<string, () => Promise<Record<string, unknown>>>;
  const figures = await mod[fn]();
  all[name] = figures;
  console.log(`\n== ${name} (${Math.round((Date.now() - started) / 1000)} s)`);
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(40)} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
}
console.log(JSON.stringify(all));
// Worker threads and database handles of the sections are closed by them; exit explicitly in case
// a library keeps a timer alive.
process.exit(0);
