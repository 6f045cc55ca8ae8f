import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { STANDARD_FLOW } from '../../packages/domain/src/standard-flow.ts';
import { analyseFaces, FACE_LIMITS, faceDistance, faceMatchScore, loadFaceModels, MATCH_SCORE, type FaceFinding } from '../../packages/engine/src/faces/index.ts';
import { FIXTURES_DIR } from '../../packages/engine/src/generator/fixtures.ts';
import { generateDocument } from '../../packages/engine/src/generator/generate.ts';
import { randomIdentity } from '../../packages/engine/src/generator/identity.ts';
import { detPoints, pairScores, ratesAt, roundRates, spread, thresholdAtFmr, type Pairs } from './face-rates.ts';

/**
 * The face match on faces from the wild: `../shared/fixtures/faces/lfw-dev` (about 1,500 LFW
 * photos of 666 people; every same-person and every different-person pair). Each photo is
 * analysed as a selfie would be (its largest face). Every rate is of the score the flow's
 * thresholds judge (faceMatchScore: the distance corrected for the two faces' quality), except
 * `distance_alone`, the same figures for the plain distance (what the engine judged before it).
 * Printed:
 *  - FNMR at FMR 1e-3 and 1e-4 over every pair, and over the pairs whose two faces pass the
 *    quality floor (FACE_LIMITS.selfieMinQuality; the photos under it would be asked for a
 *    retake: `retake_rate`);
 * *  - the thresholds chosen on one half of the people (split by a hash of the name) and their
 *    rates on the other half, and the standard flow's own thresholds' rates on every pair and on
 *    the half they were not chosen on (half B);
 *  - a DET curve's points (FNMR at FMR 1e-5 … 1e-1), written to FACES_DET_OUT when set (the
 *    figure in docs/ is drawn from it: `npm run docs:det`);
 *  - CPU per face image (decode, detection, mesh, alignment, descriptor);
 *  - with FACES_LFW_DOCUMENTS=n (0 by default: about 3 s a document on this machine), the
 *    document portrait against a selfie: the first n photos of people with two or more photos
 *    printed on generated documents (the generator's portrait: small, grey, JPEG, a phone photo of
 *    the card), the portrait found as the engine finds it, against every other photo above the
 *    quality floor (genuine: the person's other photos; impostor: everyone else's), at the flow's
 *    thresholds, by the score and by the distance alone.
 * Runnable alone: `tsx bench/checks/faces-lfw.ts` prints one JSON line.
 */

const LFW = process.env.LFW_DEV_DIR ?? join(FIXTURES_DIR, 'faces', 'lfw-dev');
export const DET_FMRS = [1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 1e-1];

interface LfwFace {
  path: string;
  person: string;
  /** 0 or 1: the half of the people this photo's person falls in. */
  half: number;
  face: FaceFinding;
}

/** lfw-dev's photos and their people (manifest.csv: path,identity), read in place, never copied. */
export function lfwManifest(): Array<{ path: string; person: string }> {
  const manifest = join(LFW, 'manifest.csv');
  if (!existsSync(manifest)) throw new Error(`lfw-dev not found at ${LFW}: the benches read ../shared/fixtures/faces/lfw-dev in place (or LFW_DEV_DIR)`);
  return readFileSync(manifest, 'utf8').trim().split('\n').slice(1).map((line) => {
    const [path, person] = line.split(',');
    return { path: path!, person: person! };
  });
}

/**
 * Every photo of lfw-dev analysed as a selfie (its largest face; photos without a face left out
 * and counted), with the CPU each took. Also the duplicate bench's templates (bench/duplicates).
 */
export async function analyseLfw(log: (line: string) => void = () => {}): Promise<{ faces: LfwFace[]; undetected: number; cpuMs: number[] }> {
  const rows = lfwManifest();
  await loadFaceModels();
  const faces: LfwFace[] = [];
  const cpuMs: number[] = [];
  let undetected = 0;
  for (const [i, { path, person }] of rows.entries()) {
    const bytes = readFileSync(join(LFW, path));
    const started = process.cpuUsage();
    const [face] = await analyseFaces(bytes);
    const cpu = process.cpuUsage(started);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    if (!face) undetected++;
    else faces.push({ path, person, half: halfOf(person), face });
    if ((i + 1) % 100 === 0) log(`  faces: ${i + 1}/${rows.length}`);
  }
  return { faces, undetected, cpuMs };
}

/** The half of the people a name falls in (0 chooses, 1 reports): the first bit of its SHA-256 (stable, no list to keep). */
export const halfOf = (person: string) => createHash('sha256').update(person).digest()[0]! & 1;

export async function measureFacesLfw(): Promise<Record<string, unknown>> {
  const { faces, undetected, cpuMs } = await analyseLfw();
  const floor = FACE_LIMITS.selfieMinQuality;
  const usable = (f: LfwFace) => f.face.quality >= floor;
  const score = (a: LfwFace, b: LfwFace) => faceMatchScore(faceDistance(a.face.descriptor, b.face.descriptor), a.face.quality, b.face.quality);
  const distance = (a: LfwFace, b: LfwFace) => faceDistance(a.face.descriptor, b.face.descriptor);
  const sets = (compare: (a: LfwFace, b: LfwFace) => number) => {
    const pairs = (keep: (a: LfwFace, b: LfwFace) => boolean) => pairScores(faces, (f) => f.person, compare, keep);
    const half = (h: number, gate: boolean) => pairs((a, b) => a.half === h && b.half === h && (!gate || (usable(a) && usable(b))));
    return { every: pairs(() => true), gated: pairs((a, b) => usable(a) && usable(b)), halfA: half(0, true), halfB: half(1, true), halfBEvery: half(1, false) };
  };
  const { every, gated, halfA, halfB, halfBEvery } = sets(score);
  const plain = sets(distance);

  const match = STANDARD_FLOW.checks.face_match_max_distance;
  const review = STANDARD_FLOW.checks.face_review_max_distance;
  const chosenMatch = thresholdAtFmr(halfA, 1e-4).threshold;
  const chosenReview = thresholdAtFmr(halfA, 1e-3).threshold;
  const at = (p: Pairs, t: number) => roundRates(ratesAt(p, t));
  const det = { every_pair: detPoints(every, DET_FMRS), quality_floor: detPoints(gated, DET_FMRS) };
  const distanceAlone = { label: 'the distance alone, above the quality floor (before the quality-corrected score)', points: detPoints(plain.gated, DET_FMRS) };
  if (process.env.FACES_DET_OUT) {
    // The older engine's curve (`before`) was measured outside the bench: kept from the file.
    const kept = existsSync(process.env.FACES_DET_OUT) ? (JSON.parse(readFileSync(process.env.FACES_DET_OUT, 'utf8')) as { before?: unknown }).before : undefined;
    writeFileSync(process.env.FACES_DET_OUT, JSON.stringify({ measured: new Date().toISOString().slice(0, 10), genuine_pairs: gated.genuine.length, impostor_pairs: gated.impostor.length, floor, ...det, distance_alone: distanceAlone, ...(kept ? { before: kept } : {}) }, null, 1) + '\n');
  }
  return {
    images: faces.length + undetected,
    images_without_face: undetected,
    persons: new Set(faces.map((f) => f.person)).size,
    genuine_pairs: every.genuine.length,
    impostor_pairs: every.impostor.length,
    score: MATCH_SCORE,
    every_pair: { fnmr_at_fmr_1e_3: thresholdAtFmr(every, 1e-3), fnmr_at_fmr_1e_4: thresholdAtFmr(every, 1e-4) },
    quality_floor: floor,
    retake_rate: r4(faces.filter((f) => !usable(f)).length / faces.length),
    above_quality_floor: {
      genuine_pairs: gated.genuine.length,
      impostor_pairs: gated.impostor.length,
      fnmr_at_fmr_1e_3: thresholdAtFmr(gated, 1e-3),
      fnmr_at_fmr_1e_4: thresholdAtFmr(gated, 1e-4),
    },
    chosen_on_half_a: { match_at_fmr_1e_4: chosenMatch, review_at_fmr_1e_3: chosenReview, impostor_pairs: halfA.impostor.length },
    reported_on_half_b: {
      impostor_pairs: halfB.impostor.length,
      genuine_pairs: halfB.genuine.length,
      at_chosen_match: at(halfB, chosenMatch),
      at_chosen_review: at(halfB, chosenReview),
      fnmr_at_fmr_1e_4: thresholdAtFmr(halfB, 1e-4),
      every_pair_fnmr_at_fmr_1e_4: thresholdAtFmr(halfBEvery, 1e-4),
    },
    flow_thresholds: {
      match_max_distance: match,
      review_max_distance: review,
      half_b: { match: at(halfB, match), review: at(halfB, review) },
      above_quality_floor: { match: at(gated, match), review: at(gated, review) },
      every_pair: { match: at(every, match), review: at(every, review) },
    },
    distance_alone: {
      every_pair_fnmr_at_fmr_1e_4: thresholdAtFmr(plain.every, 1e-4),
      above_quality_floor_fnmr_at_fmr_1e_3: thresholdAtFmr(plain.gated, 1e-3),
      above_quality_floor_fnmr_at_fmr_1e_4: thresholdAtFmr(plain.gated, 1e-4),
      half_b_fnmr_at_fmr_1e_4: thresholdAtFmr(plain.halfB, 1e-4),
      half_b_every_pair_fnmr_at_fmr_1e_4: thresholdAtFmr(plain.halfBEvery, 1e-4),
    },
    det,
    quality: spread(faces.map((f) => f.face.quality)),
    cpu_ms_per_face_image: spread(cpuMs, 0),
    ...(documentCount > 0 ? { document_portrait: await measureDocumentPortraits(faces.filter(usable), documentCount) } : {}),
  };
}

const documentCount = Number(process.env.FACES_LFW_DOCUMENTS ?? 0);
/** The standard flow's thresholds when the engine judged the distance alone (before the quality-corrected score). */
const DISTANCE_THRESHOLDS = { match: 1.068, review: 1.146 };

/** Printed portraits against selfies (FACES_LFW_DOCUMENTS): see the header. */
async function measureDocumentPortraits(selfies: LfwFace[], count: number) {
  const photos = new Map<string, number>();
  for (const { person } of lfwManifest()) photos.set(person, (photos.get(person) ?? 0) + 1);
  const sources = lfwManifest().filter((r) => photos.get(r.person)! >= 2).slice(0, count);
  const score = { genuine: [] as number[], impostor: [] as number[] };
  const distance = { genuine: [] as number[], impostor: [] as number[] };
  const quality: number[] = [];
  let seed = 5000;
  for (const source of sources) {
    seed++;
    const doc = await generateDocument({ format: seed % 2 ? 'TD1' : 'TD3', fields: randomIdentity(seed), portrait: readFileSync(join(LFW, source.path)), seed });
    const [portrait] = await analyseFaces(doc.image, { maxSide: 1024 });
    if (!portrait) continue;
    quality.push(portrait.quality);
    for (const selfie of selfies) {
      if (selfie.path === source.path) continue;
      const kind = selfie.person === source.person ? 'genuine' : 'impostor';
      const d = faceDistance(portrait.descriptor, selfie.face.descriptor);
      distance[kind].push(d);
      score[kind].push(faceMatchScore(d, portrait.quality, selfie.face.quality));
    }
  }
  const sorted = (p: { genuine: number[]; impostor: number[] }): Pairs => ({ genuine: Float64Array.from(p.genuine).sort(), impostor: Float64Array.from(p.impostor).sort() });
  const [byScore, byDistance] = [sorted(score), sorted(distance)];
  const flow = { match: STANDARD_FLOW.checks.face_match_max_distance, review: STANDARD_FLOW.checks.face_review_max_distance };
  const judged = (p: Pairs, t: { match: number; review: number }) => ({ match: roundRates(ratesAt(p, t.match)), review: roundRates(ratesAt(p, t.review)), fnmr_at_fmr_1e_4: thresholdAtFmr(p, 1e-4) });
  return {
    documents: sources.length,
    portraits_found: quality.length,
    genuine_pairs: byScore.genuine.length,
    impostor_pairs: byScore.impostor.length,
    portrait_quality: spread(quality),
    score: judged(byScore, flow),
    distance_alone: judged(byDistance, DISTANCE_THRESHOLDS),
  };
}

const r4 = (v: number) => Math.round(v * 10000) / 10000;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await measureFacesLfw()));
  process.exit(0);
}
