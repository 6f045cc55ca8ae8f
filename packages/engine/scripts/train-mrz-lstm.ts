/**
 * Trains a Tesseract LSTM (CTC) model for MRZ lines from scratch
 * (packages/engine/models/mrz-ocrb-lstm.traineddata), from the lines mrz-training-lines.ts renders
 * (OCR-B mostly, degraded like phone photos and scans), here mostly cut tight at the ink (as
 * Tesseract cuts a line before its LSTM sees it) and a share seen at a slant. Steps, in a work
 * directory outside the repository (--work, default $TMPDIR/mrz-lstm):
 *   1. renders --lines training lines and --eval evaluation lines (another seed), each as a PNG,
 *      its text (.gt.txt) and a line box file (every character with the whole line's box, then a
 *      tab entry, as tesstrain's generate_line_box makes);
 *   2. `tesseract <png> <base> --psm 13 lstm.train` for each, giving the .lstmf files;
 *   3. `unicharset_extractor` on the texts, `combine_lang_model` (pass-through recoder, no word
 *      lists) for the starter traineddata;
 *   4. `lstmtraining` from scratch with a small net (--net), --iterations iterations;
 *   5. `lstmtraining --stop_training --convert_to_int` into the models directory.
 * Tesseract and its training tools come with Debian's tesseract-ocr package; OMP_THREAD_LIMIT=1
 * keeps every step on one core. Seeded. No fixture image is ever used.
 *
 *   npm run train:mrz-lstm [-- --lines 20000 --eval 400 --iterations 30000 --seed 1
 *       --tight 0.8 --perspective 0.3 --rate 0.002 --minutes 0
 *       --net '[1,24,0,1 Ct3,3,16 Mp3,3 Lfys48 Lbx96 O1c###]' --work /tmp/mrz-lstm --reuse]
 * --reuse keeps rendered lines and .lstmf files already in the work directory (same flags only).
 *
 * --resume continues the training in --work from its last checkpoint for --minutes more, then
 * converts (no rendering).
 *
 * The committed model: `--lines 7000 --eval 300 --minutes 40` (defaults otherwise; rendering and
 * .lstmf making took 21 min at ~0.18 s a line on the shared machine, lstmtraining ~35k iterations
 * in 40 min), then `--resume --minutes 13` (to ~54k iterations). Int model 140 KiB. At the stop:
 * BCER 6.6% on the training lines, 6.6% on the eval list, still falling slowly. On the 1,500 real
 * crops (eval-mrz-lstm.ts): 99.26% characters by edit distance (93.9% when a read of the wrong
 * length counted none), 84.3% lines, 26 ms a line; 86 lines read at a wrong length, the rest
 * mostly O/0 confusions: below the MLP reader; more lines and hours of training are needed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { randomLine, renderLine, requireFonts, rng } from './mrz-training-lines.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const num = (name: string, fallback: number) => Number(arg(name, String(fallback)));

const LINES = num('lines', 20000);
const EVAL_LINES = num('eval', 400);
const ITERATIONS = num('iterations', 30000);
const SEED = num('seed', 1);
const TIGHT = num('tight', 0.8);
const PERSPECTIVE = num('perspective', 0.3);
const RATE = num('rate', 0.002);
/** Time budget of lstmtraining in minutes (0: none): it is stopped just after a checkpoint. */
const MINUTES = num('minutes', 0);
const NET = arg('net', '[1,24,0,1 Ct3,3,16 Mp3,3 Lfys48 Lbx96 O1c###]');
const WORK = arg('work', join(tmpdir(), 'mrz-lstm'));
const REUSE = process.argv.includes('--reuse');
/** Continues the training in --work from its last checkpoint (same lines, same net), then converts. */
const RESUME = process.argv.includes('--resume');
const LANG = 'mrz';
const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, '..', 'models', 'mrz-ocrb-lstm.traineddata');
const ENV = { ...process.env, OMP_THREAD_LIMIT: '1' };
/** The starter traineddata (unicharset and recoder) and the folder of training checkpoints. */
const STARTER = join(WORK, 'lang', LANG, `${LANG}.traineddata`);
const CHECKPOINTS = join(WORK, 'out');

function requireTools(): void {
  const missing = ['tesseract', 'lstmtraining', 'combine_lang_model', 'unicharset_extractor', 'combine_tessdata'].filter((t) => {
    try {
      execFileSync('sh', ['-c', `command -v ${t}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) throw new Error(`tools missing: ${missing.join(', ')} (apt-get install tesseract-ocr)`);
}

/** Renders one set of lines and makes its .lstmf files; returns the list of .lstmf paths. */
async function makeSet(name: string, count: number, seed: number): Promise<string[]> {
  const dir = join(WORK, name);
  mkdirSync(dir, { recursive: true });
  const r = rng(seed);
  const files: string[] = [];
  const started = Date.now();
  for (let i = 0; i < count; i++) {
    // Drawn whatever is reused, so line i is the same line either way.
    const length = [30, 36, 44][Math.floor(r() * 3)]!;
    const text = randomLine(r, length);
    const img = await renderLine(text, r, { tightShare: TIGHT, perspective: PERSPECTIVE });
    const base = join(dir, `l${String(i).padStart(6, '0')}`);
    files.push(`${base}.lstmf`);
    if (REUSE && existsSync(`${base}.lstmf`)) continue;
    await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 1 } })
      .withMetadata({ density: 300 })
      .png()
      .toFile(`${base}.png`);
    writeFileSync(`${base}.gt.txt`, `${text}\n`);
    // Line box file: each character with the whole line's box (bottom-left origin), then a tab
    // entry ending the line.
    const box = `0 0 ${img.width} ${img.height} 0`;
    writeFileSync(`${base}.box`, [...text].map((ch) => `${ch} ${box}\n`).join('') + `\t ${box}\n`);
    execFileSync('tesseract', [`${base}.png`, base, '--psm', '13', 'lstm.train'], { env: ENV, stdio: 'ignore' });
    if (!existsSync(`${base}.lstmf`)) throw new Error(`tesseract made no ${base}.lstmf`);
    if ((i + 1) % 500 === 0) console.log(`${name}: ${i + 1}/${count} lines, ${Math.round((Date.now() - started) / 1000)} s`);
  }
  writeFileSync(join(WORK, `${name}.list`), files.join('\n') + '\n');
  return files;
}

/**
 * Runs a tool, its output echoed (and appended to `log`). With `minutes`, it is stopped once that
 * time is past, just after it reports a checkpoint written (so the checkpoint file is whole).
 */
function run(cmd: string, args: string[], log?: string, minutes = 0): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const deadline = minutes > 0 ? Date.now() + minutes * 60000 : Infinity;
    let stopped = false;
    const echo = (b: Buffer) => {
      process.stdout.write(b);
      if (log) writeFileSync(log, b, { flag: 'a' });
      if (!stopped && Date.now() > deadline && b.toString().includes('wrote checkpoint')) {
        stopped = true;
        console.log(`time budget of ${minutes} min spent: stopping ${cmd}`);
        p.kill('SIGTERM');
      }
    };
    p.stdout.on('data', echo);
    p.stderr.on('data', echo);
    p.on('close', (code) => (code === 0 || stopped ? resolve() : reject(new Error(`${cmd} exited ${code}`))));
  });
}

async function main(): Promise<void> {
  requireTools();
  requireFonts();
  const started = Date.now();
  console.log(`work directory ${WORK}`);
  if (RESUME) return resume(started);
  if (!REUSE) rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });

  const train = await makeSet('train', LINES, SEED);
  await makeSet('eval', EVAL_LINES, SEED + 1000);
  console.log(`rendered and converted in ${Math.round((Date.now() - started) / 1000)} s`);

  // Unicharset from the training texts only, then the starter traineddata.
  const texts = train.map((f) => readFileSync(f.replace(/\.lstmf$/, '.gt.txt'), 'utf8')).join('');
  writeFileSync(join(WORK, 'all-gt.txt'), texts);
  execFileSync('unicharset_extractor', ['--output_unicharset', join(WORK, 'unicharset'), '--norm_mode', '1', join(WORK, 'all-gt.txt')], {
    env: ENV,
    stdio: 'ignore',
  });
  const scripts = join(WORK, 'script');
  mkdirSync(scripts, { recursive: true });
  // combine_lang_model insists on a radical-stroke table (used for Han only): one entry will do.
  writeFileSync(join(scripts, 'radical-stroke.txt'), '19968 1.0\n');
  rmSync(join(WORK, 'lang'), { recursive: true, force: true });
  mkdirSync(join(WORK, 'lang', LANG), { recursive: true });
  execFileSync(
    'combine_lang_model',
    ['--input_unicharset', join(WORK, 'unicharset'), '--script_dir', scripts, '--lang', LANG, '--output_dir', join(WORK, 'lang'), '--pass_through_recoder'],
    { env: ENV, stdio: 'ignore' },
  );
  if (!existsSync(STARTER)) throw new Error('combine_lang_model made no starter traineddata');

  const classes = readFileSync(join(WORK, 'unicharset'), 'utf8').split('\n')[0]!.trim();
  rmSync(CHECKPOINTS, { recursive: true, force: true });
  mkdirSync(CHECKPOINTS, { recursive: true });
  await train(['--net_spec', NET.replace('###', classes), '--learning_rate', String(RATE)], started);
}

/** Continues from the work directory's last checkpoint (--resume), with the lines already made. */
async function resume(started: number): Promise<void> {
  const checkpoint = join(CHECKPOINTS, `${LANG}_checkpoint`);
  for (const f of [STARTER, checkpoint, join(WORK, 'train.list'), join(WORK, 'eval.list')]) {
    if (!existsSync(f)) throw new Error(`nothing to resume: ${f} missing`);
  }
  await train(['--continue_from', checkpoint], started);
}

/**
 * lstmtraining on the train and eval lists, started by `start` (a new net, or a checkpoint to
 * continue from), then its last checkpoint converted.
 */
async function train(start: string[], started: number): Promise<void> {
  const trainStarted = Date.now();
  await run(
    'lstmtraining',
    [
      '--traineddata', STARTER,
      ...start,
      '--model_output', join(CHECKPOINTS, LANG),
      '--train_listfile', join(WORK, 'train.list'),
      '--eval_listfile', join(WORK, 'eval.list'),
      '--max_iterations', String(ITERATIONS),
      '--target_error_rate', '0.01',
    ],
    join(WORK, 'lstmtraining.log'),
    MINUTES,
  );
  console.log(`trained for ${Math.round((Date.now() - trainStarted) / 60000)} min`);
  await convert(started);
}

/** The last checkpoint, as an integer runtime model, into the models directory. */
async function convert(started: number): Promise<void> {
  await run('lstmtraining', [
    '--stop_training',
    '--convert_to_int',
    '--continue_from', join(CHECKPOINTS, `${LANG}_checkpoint`),
    '--traineddata', STARTER,
    '--model_output', OUT,
  ]);
  console.log(`wrote ${OUT} (${Math.round(statSync(OUT).size / 1024)} KiB); all in ${Math.round((Date.now() - started) / 60000)} min`);
  console.log(`checkpoints: ${readdirSync(CHECKPOINTS).join(' ')}`);
}

await main();
