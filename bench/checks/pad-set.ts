import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyseFaces, faceDistance, type FaceFinding } from '../../packages/engine/src/faces/index.ts';
import { judgeImageMedium, mediumFeatures, type MediumFeature, type StillMediumMeasures } from '../../packages/engine/src/faces/medium/index.ts';
import { cameraControl, documentSelfieAttack, loadSource, printAttack, screenAttack, type CameraDraw } from '../../packages/engine/src/generator/attacks/index.ts';
import { FIXTURES_DIR } from '../../packages/engine/src/generator/fixtures.ts';
import { halfOf } from './faces-lfw.ts';
import { relabelRecaptured } from './pad-recaptured.ts';

/**
 * The presentation-attack set of bench:pad and of the model's fit (scripts/fit-pad-model.ts):
 * every item labelled with its species, its half and its person or subject, then read as the
 * service reads a selfie (faces at 640 px, the medium at up to 2048 px).
 *
 *  - bona fide: the face fixtures' single-face photos of named people and, from lfw-dev, the
 *    first two photos of people who have two; pad-dev's live frames; frames of the bona fide
 *    clips (reported only);
 *  - generated (labelled generated): each bona fide photo of the fixtures and the first lfw
 *    photo of each person on a simulated screen and on a simulated print (on the reported half the
 *    second lfw photo too, kept apart: `secondPhoto`), and, for people with a
 *    second photo, their document (generated with that photo as its portrait) shown as the selfie;
 *    and their bona fide control, the same photo filmed as the scene itself by the same simulated
 *    camera (`generated_bona_fide`): without it, a measure that notices only the simulated
 *    camera's noise on an upscaled photo would pass for a detector of prints;
 *  - real: pad-dev's print frames (NUAA), frames of the real screen replays, and the news photos
 *    that are themselves a television frame or a reproduced print (pad-recaptured.ts: reported
 *    only, with the controls filmed from them).
 *
 * Halves: people by the first bit of the SHA-256 of their name (as faces_lfw: 0 chooses, 1
 * reports); pad-dev by subject, odd numbers choose (0009 0011 0013 0015), even report (0010 0012
 * 0014 0016). The clips are never chosen on: they are reported only. Generated images are made
 * in memory from the fixtures by seed and never written.
 */

export type Species =
  | 'bona_fide_photos'
  | 'bona_fide_pad_dev'
  | 'bona_fide_clip_frames'
  | 'generated_bona_fide'
  | 'generated_screen'
  | 'generated_print'
  | 'generated_document_as_selfie'
  | 'pad_dev_print'
  | 'real_screen_replay'
  | 'news_recapture';

export const ATTACK_SPECIES: Species[] = ['generated_screen', 'generated_print', 'generated_document_as_selfie', 'pad_dev_print', 'real_screen_replay', 'news_recapture'];
export const BONA_FIDE_SPECIES: Species[] = ['bona_fide_photos', 'bona_fide_pad_dev', 'bona_fide_clip_frames', 'generated_bona_fide'];

export interface PadRow {
  id: string;
  species: Species;
  attack: boolean;
  /** 0: the half thresholds and weights are chosen on; 1: the half reported; 2: reported only (clips). */
  half: 0 | 1 | 2;
  person: string;
  /** A single face found (false: the face check asks for a retake, no medium is judged). */
  face: boolean;
  relativeSize?: number;
  measures?: StillMediumMeasures;
  features?: Record<MediumFeature, number>;
  /** Document as the selfie: distance from the selfie's face to the case document's portrait. */
  portraitDistance?: number;
  /** CPU of the medium judgement alone (decode at 2048 px included), and of the face analysis. */
  mediumCpuMs?: number;
  facesCpuMs?: number;
  /** The anti-spoofing network's three class probabilities (faces/medium/anti-spoof-net.ts). */
  networkClasses?: number[];
  /** Generated prints and their control: what the simulated camera drew, and the printer (bench:pad's rates by lens blur). */
  camera?: CameraDraw & { printer?: 'halftone' | 'inkjet' };
  /**
   * A generated screen, print or control made from an lfw-dev person's second photo: reported
   * halves only, counted only in bench:pad's `reported_half_with_second_photos` (since 2026-12-01),
   * so every other figure stays on the first photos it was first measured on.
   */
  secondPhoto?: true;
}

/** Genuine pairs of a document's portrait against a selfie: the same photo re-photographed, or another photo of the person. */
interface PortraitPair {
  half: 0 | 1;
  person: string;
  samePhoto: boolean;
  distance: number;
}

export interface PadSet {
  rows: PadRow[];
  portraitPairs: PortraitPair[];
}

export interface PadSetOptions {
  /** Which halves to build (the fit builds only 0). */
  halves: Array<0 | 1 | 2>;
  /** lfw-dev people with two photos taken (default all 450: 900 photos, each half about 225 people; 200 until 2026-11-30). */
  lfwPeople?: number;
  /** Photos of one person taken from the face fixtures (default 2). */
  photosPerPerson?: number;
  log?: (line: string) => void;
  /** Which parts to read (default all): the real stills, the fixtures' photos and their attacks, lfw-dev's. */
  parts?: Array<'real' | 'fixtures' | 'lfw'>;
  /** Called after each person's stills (a long run can be saved as it goes). */
  progress?: (set: PadSet) => void;
  /** Called with each still in which one face was found, after it was read (scripts/pad-texture-crops.ts keeps its face). */
  onStill?: (row: PadRow, image: Uint8Array, face: FaceFinding) => Promise<void>;
}

const FACES = join(FIXTURES_DIR, 'faces');
const PAD = join(FIXTURES_DIR, 'pad-dev');
const CLIPS = join(FIXTURES_DIR, 'liveness-clips');
const SINGLE_KINDS = new Set(['portrait', 'tight_crop', 'partial_face', 'small_face', 'face_not_frontal']);

interface Photo { id: string; person: string; bytes: Buffer; second?: boolean }

export async function buildPadSet(options: PadSetOptions): Promise<PadSet> {
  for (const dir of [FACES, PAD, CLIPS]) if (!existsSync(dir)) throw new Error(`bench:pad needs the fixtures at ${dir} (../shared/fixtures beside the checkout)`);
  const log = options.log ?? (() => {});
  const want = new Set(options.halves);
  const rows: PadRow[] = [];
  const portraitPairs: PortraitPair[] = [];

  const parts = new Set(options.parts ?? ['real', 'fixtures', 'lfw']);
  // pad-dev (NUAA): live and print frames, halves by subject.
  if (parts.has('real')) for (const line of readFileSync(join(PAD, 'manifest.csv'), 'utf8').trim().split('\n').slice(1)) {
    const [path, label, , subject] = line.split(',');
    const half: 0 | 1 = Number(subject) % 2 === 1 ? 0 : 1;
    if (!want.has(half)) continue;
    const bytes = readFileSync(join(PAD, path!));
    rows.push((await readStill(bytes, { id: `pad-dev:${path}`, species: label === 'live' ? 'bona_fide_pad_dev' : 'pad_dev_print', attack: label !== 'live', half, person: `nuaa-${subject}` }, options.onStill)).row);
  }
  log(`  pad set: pad-dev read, ${rows.length} stills`);

  // The clips: two frames a second, reported only.
  if (want.has(2) && parts.has('real')) {
    for (const line of readFileSync(join(CLIPS, 'manifest.csv'), 'utf8').trim().split('\n').slice(1)) {
      const [path, label, , person] = line.split(',');
      for (const [k, frame] of clipFrames(join(CLIPS, path!)).entries()) {
        rows.push((await readStill(frame, { id: `clip:${path}:${k}`, species: label === 'bona_fide' ? 'bona_fide_clip_frames' : 'real_screen_replay', attack: label !== 'bona_fide', half: 2, person: person! }, options.onStill)).row);
      }
    }
    log(`  pad set: clips read, ${rows.length} stills`);
  }

  // Bona fide photos, grouped by person.
  const photos = [...(parts.has('fixtures') ? fixturePhotos(options.photosPerPerson ?? 2) : []), ...(parts.has('lfw') ? lfwPhotos(options.lfwPeople ?? 450) : [])].filter((p) => want.has(halfOf(p.person) as 0 | 1));
  const byPerson = new Map<string, Photo[]>();
  for (const p of photos) byPerson.set(p.person, [...(byPerson.get(p.person) ?? []), p]);
  let done = 0;
  for (const [person, list] of byPerson) {
    const half = halfOf(person) as 0 | 1;
    const read = new Map<Photo, { row: PadRow; face?: FaceFinding }>();
    for (const photo of list) {
      const r = await readStill(photo.bytes, { id: photo.id, species: 'bona_fide_photos', attack: false, half, person }, options.onStill);
      rows.push(r.row);
      read.set(photo, r);
    }
    for (let i = 0; i < list.length; i++) {
      const photo = list[i]!;
      const face = read.get(photo)!.face;
      // Second photos make attacks on the reported half only: more items to tell a rate from its
      // target by, while the training half (and so the fitted model) stays as it was.
      if (!face || (photo.second && half === 0)) continue;
      const second = photo.second ? { secondPhoto: true as const } : {};
      // The attacks are made from the photo at its own resolution; the face box found at 640 px scaled back.
      const source = await loadSource(photo.bytes, await boxAtSourceScale(photo.bytes, face));
      const seed = (kind: string) => seedOf(`${kind}:${photo.id}`);
      const screen = await screenAttack(source, seed('screen'));
      rows.push((await readStill(screen.image, { id: `screen:${photo.id}:${seed('screen')}`, species: 'generated_screen', attack: true, half, person, ...second }, options.onStill)).row);
      const print = await printAttack(source, seed('print'));
      rows.push((await readStill(print.image, { id: `print:${photo.id}:${seed('print')}`, species: 'generated_print', attack: true, half, person, camera: { ...print.camera, printer: print.params.mode }, ...second }, options.onStill)).row);
      const control = await cameraControl(source, seed('control'));
      rows.push((await readStill(control.image, { id: `control:${photo.id}:${seed('control')}`, species: 'generated_bona_fide', attack: false, half, person, camera: control.camera, ...second }, options.onStill)).row);
      if (photo.second) continue;
      // The document as the selfie, and the genuine pairs of its portrait: the same photo re-photographed, another photo of the person.
      const other = list.find((q, k) => k !== i && read.get(q)!.face);
      if (!other) continue;
      const doc = await documentSelfieAttack(source, photo.bytes, seed('document'));
      const [portrait] = await analyseFaces(doc.document, { maxSide: 1024 });
      const attack = await readStill(doc.image, { id: `document:${photo.id}:${seed('document')}`, species: 'generated_document_as_selfie', attack: true, half, person }, options.onStill);
      if (portrait && attack.face) {
        attack.row.portraitDistance = round(faceDistance(portrait.descriptor, attack.face.descriptor));
        portraitPairs.push({ half, person, samePhoto: true, distance: attack.row.portraitDistance });
      }
      if (portrait) portraitPairs.push({ half, person, samePhoto: false, distance: round(faceDistance(portrait.descriptor, read.get(other)!.face!.descriptor)) });
      rows.push(attack.row);
    }
    done++;
    options.progress?.({ rows, portraitPairs });
    if (done % 5 === 0) log(`  pad set: ${done}/${byPerson.size} people, ${rows.length} stills`);
  }

  return relabelRecaptured({ rows, portraitPairs });
}

/**
 * A set saved by bench:pad (PAD_SAVE) or scripts/pad-texture-crops.ts, read back as the builder
 * would give it; several paths, comma-separated, are one set (the crops script run once a half).
 */
export function readPadSet(paths: string): PadSet {
  const parts = paths.split(',').map((path) => JSON.parse(readFileSync(path, 'utf8')) as PadSet);
  return relabelRecaptured({ rows: parts.flatMap((p) => p.rows), portraitPairs: parts.flatMap((p) => p.portraitPairs) });
}

/**
 * The set with each still's texture logit (texture_net) taken from scripts/train-texture-net.py's
 * scores.json instead: on the training half those are cross-fitted (each from a network that did
 * not see that person), which is what the model must be fitted on; the engine's own network was
 * trained on the whole training half and is over-confident there. A still the script did not
 * score (a face too small for a patch) gets 0, undecided, as the engine gives it.
 */
export function withTextureScores(set: PadSet, path: string): PadSet {
  const logits = new Map((JSON.parse(readFileSync(path, 'utf8')) as Array<{ id: string; logit: number }>).map((s) => [s.id, s.logit]));
  return { ...set, rows: set.rows.map((r) => (r.features ? { ...r, features: { ...r.features, texture_net: logits.get(r.id) ?? 0 } } : r)) };
}

/** One still read as the face check reads a selfie: its faces, then the medium of its one face. */
async function readStill(bytes: Uint8Array, base: Omit<PadRow, 'face'>, onStill?: PadSetOptions['onStill']): Promise<{ row: PadRow; face?: FaceFinding }> {
  const cpu0 = process.cpuUsage();
  const faces = await analyseFaces(bytes).catch(() => []);
  const facesCpu = cpuMs(cpu0);
  if (faces.length !== 1) return { row: { ...base, face: false, facesCpuMs: facesCpu } };
  const face = faces[0]!;
  const cpu1 = process.cpuUsage();
  const judged = await judgeImageMedium(bytes, face);
  const mediumCpu = cpuMs(cpu1);
  const { medium_attack_score: _score, ...measures } = judged.measures;
  const row: PadRow = { ...base, face: true, relativeSize: face.relativeSize, measures, features: mediumFeatures(measures, face), mediumCpuMs: mediumCpu, facesCpuMs: facesCpu, networkClasses: judged.networkClasses.map((v) => Math.round(v * 1e5) / 1e5) };
  await onStill?.(row, bytes, face);
  return { row, face };
}

/**
 * The seed of one generated item, from its kind and its photo alone: the same item whatever else
 * is built (the fit builds only the training half, the bench both; a running count made them
 * differ).
 */
const seedOf = (name: string) => createHash('sha256').update(name).digest().readUInt32BE(0);

async function boxAtSourceScale(bytes: Uint8Array, face: FaceFinding) {
  const { default: sharp } = await import('sharp');
  const meta = await sharp(bytes).rotate().metadata();
  // After EXIF rotation the width and height may swap: the longer side is what was scaled to 640.
  const oriented = (meta.orientation ?? 1) >= 5 ? { w: meta.height!, h: meta.width! } : { w: meta.width!, h: meta.height! };
  const k = oriented.w / face.frame.width;
  return { x: face.box.x * k, y: face.box.y * k, width: face.box.width * k, height: face.box.height * k };
}

function fixturePhotos(perPerson: number): Photo[] {
  const manifest = JSON.parse(readFileSync(join(FACES, 'manifest.json'), 'utf8')) as Array<{ path: string; person: string | null; kind: string }>;
  const seen = new Set<string>();
  const out: Photo[] = [];
  for (const e of manifest) {
    if (!e.person || !SINGLE_KINDS.has(e.kind)) continue;
    if (out.filter((p) => p.person === e.person).length >= perPerson) continue;
    const bytes = readFileSync(join(FACES, e.path));
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (seen.has(hash)) continue;
    seen.add(hash);
    out.push({ id: `faces:${e.path}`, person: e.person, bytes });
  }
  return out;
}

/** The first two photos of the first `people` lfw-dev people (in the manifest's order) who have two. */
function lfwPhotos(people: number): Photo[] {
  const lines = readFileSync(join(FACES, 'lfw-dev', 'manifest.csv'), 'utf8').trim().split('\n').slice(1);
  const byPerson = new Map<string, string[]>();
  for (const line of lines) {
    const [path, identity] = line.split(',');
    byPerson.set(identity!, [...(byPerson.get(identity!) ?? []), path!]);
  }
  const out: Photo[] = [];
  for (const [person, paths] of byPerson) {
    if (paths.length < 2) continue;
    if (out.length / 2 >= people) break;
    paths.slice(0, 2).forEach((p, i) => out.push({ id: `lfw:${p}`, person: `lfw:${person}`, bytes: readFileSync(join(FACES, 'lfw-dev', p)), second: i === 1 }));
  }
  return out;
}

/** Two frames a second of a clip, as JPEG (ffmpeg, Debian's). */
function clipFrames(path: string): Buffer[] {
  const dir = mkdtempSync(join(tmpdir(), 'pad-clip-'));
  try {
    execFileSync('ffmpeg', ['-loglevel', 'error', '-i', path, '-vf', 'fps=2', '-q:v', '2', join(dir, 'f%03d.jpg')]);
    return readdirSync(dir).sort().map((f) => readFileSync(join(dir, f)));
  } catch (err) {
    throw new Error(`bench:pad needs ffmpeg to read the clips (apt-get install -y ffmpeg): ${(err as Error).message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cpuMs = (start: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(start);
  return Math.round((c.user + c.system) / 100) / 10;
};
const round = (v: number) => Math.round(v * 1000) / 1000;
