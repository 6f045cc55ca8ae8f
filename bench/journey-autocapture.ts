/**
 * bench:journey's automatic capture section: the fixtures' documents and faces played through
 * Chromium's fake camera into the real journey (its capture screens, as a person meets them),
 * counting the looks until the photo takes itself, and whether it ever takes a frame it must not:
 * blurred, glared or moving documents, several faces, no face, a face not frontal, a turn the
 * other way. Variants are made here with sharp and never written to the repository; the service's
 * own checks (document_quality, the face analysis) say which variant frames they would refuse.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import type { JourneyAssets } from '@idv/journey';
import type { IdvClient } from '@idv/sdk';
import { assessDocumentQuality } from '../packages/engine/src/document/quality.ts';
import { analyseFaces } from '../packages/engine/src/faces/index.ts';
import { launchChromium, PHONE } from '../tests/helpers/browser.ts';
import { documentFrame, glaredFrame, selfieFrame, y4mFromFrames } from '../tests/helpers/fake-camera.ts';
import { FIXTURES } from '../tests/helpers/journey.ts';

/** Looks a view is given before it counts as never captured. */
const LOOK_LIMIT = Number(process.env.BENCH_AUTOCAPTURE_LOOKS ?? 25);
const NOT_DOCUMENTS = /^(pacman|tesseract-test)/;
/** At most this many fixtures of each group (documents, faces, turns): a quicker, rougher run. */
const SAMPLE = Number(process.env.BENCH_AUTOCAPTURE_SAMPLE ?? Infinity);
/** A folder for a screenshot of each view that was not captured (to look at why). */
const SHOTS = process.env.BENCH_AUTOCAPTURE_SHOTS;
let shot = 0;
/** Turns labelled by looking at the photos (the same as bench:checks' liveness figures); region picks a face in a group photo. */
const TURNED: { path: string; turn: 'own_left' | 'own_right'; region?: [number, number] }[] = [
  { path: 'debian/camera.png', turn: 'own_left' },
  { path: 'face_recognition/examples/knn_examples/train/kit_harington/john2.jpeg', turn: 'own_right' },
  { path: 'face-api-js/stuart/stuart5.png', turn: 'own_right' },
  { path: 'face-api-js/bbt2.jpg', turn: 'own_left', region: [0.05, 0.45] },
  { path: 'face-api-js/bbt2.jpg', turn: 'own_right', region: [0.5, 0.95] },
];

export interface AutoCaptureContext {
  apiBase: string;
  client: IdvClient;
  assets: JourneyAssets;
}

interface Run {
  captured: boolean;
  looks: number;
  yaw?: number;
  /** The last look's document measures: variance of the Laplacian, glare blob share and halo. */
  sharpness?: number;
  glare?: string;
}

const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : null);
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : null);

export async function measureAutoCapture(ctx: AutoCaptureContext): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'idv-bench-autocapture-'));
  const camera = join(dir, 'camera.y4m');
  await y4mFromFrames([await sharp({ create: { width: 640, height: 480, channels: 3, background: '#000' } }).png().toBuffer()], dir);
  const browser: Browser = await launchChromium({ camera });
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  if (SHOTS) {
    page.on('pageerror', (e) => console.log(`  page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && console.log(`  console: ${m.text()}`));
  }
  try {
    const call = async (token: string, method: string, path: string, body?: unknown, bytes?: Buffer) => {
      const headers: Record<string, string> = { authorization: `Session ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${ctx.apiBase}/v1/sessions/current${path}`, { method, headers, body: bytes ? new Uint8Array(bytes) : body === undefined ? undefined : JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    };
    /** A fresh journey link standing at the given capture: the document's front, the selfie, or a challenge. */
    const linkAt = async (at: 'document' | 'selfie' | 'challenge', challenge?: 'turn_left' | 'turn_right'): Promise<string> => {
      const { id } = await ctx.client.createCase({ flow_name: 'standard', country: 'FR' });
      const { url } = await ctx.client.createSession({ case_id: id, locale: 'en' });
      await context.grantPermissions(['camera'], { origin: new URL(url).origin });
      const token = new URL(url).hash.slice(1);
      await call(token, 'POST', '/consent', { accepted: true });
      await call(token, 'POST', '/applicant', { given_names: 'Grace', surname: 'Hopper', birth_date: '1906-12-09' });
      await call(token, 'POST', '/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } });
      await call(token, 'POST', '/document', { country: 'FR', type: 'passport' });
      if (at !== 'document') await call(token, 'PUT', '/pieces/document_front', undefined, readFileSync(join(FIXTURES, 'documents/passporteye/100_pass-lux.jpg')));
      if (at === 'challenge') await call(token, 'PUT', '/pieces/selfie', undefined, readFileSync(join(FIXTURES, 'faces/debian/grace_hopper_512x512.jpg')));
      // The standard flow asks to the left first: for the right, the left one is already there.
      if (challenge === 'turn_right') await call(token, 'PUT', '/pieces/liveness_turn_left', undefined, readFileSync(join(FIXTURES, 'faces/debian/grace_hopper_512x512.jpg')));
      return url;
    };
    /** Plays one view and counts the looks until the photo took itself, or the limit. */
    const play = async (frames: Buffer[], at: 'document' | 'selfie' | 'challenge', challenge?: 'turn_left' | 'turn_right'): Promise<Run> => {
      await y4mFromFrames(frames, dir);
      await page.goto(await linkAt(at, challenge));
      if (at === 'selfie') {
        await page.getByRole('button', { name: 'Open the camera' }).waitFor();
        // What is fetched from here on is the face step's own download.
        await page.evaluate(() => ((window as unknown as { faceStepStart: number }).faceStepStart = performance.now()));
        await page.getByRole('button', { name: 'Open the camera' }).click();
      }
      const viewfinder = page.locator('.viewfinder');
      await viewfinder.waitFor();
      const state = () =>
        viewfinder.evaluate((el) => {
          const d = (el as HTMLElement).dataset;
          return { looks: Number(d.looks), state: d.state ?? '', yaw: d.yaw, sharpness: d.sharpness === undefined ? undefined : Number(d.sharpness), glare: d.glare };
        });
      const deadline = Date.now() + 120_000;
      for (;;) {
        const s = await state();
        const yaw = s.yaw === undefined ? undefined : Number(s.yaw);
        if (s.state === 'captured') return { captured: true, looks: s.looks, yaw, sharpness: s.sharpness, glare: s.glare };
        if (s.looks >= LOOK_LIMIT || Date.now() > deadline) {
          if (SHOTS) await page.screenshot({ path: join(SHOTS, `${String(++shot).padStart(3, '0')}-${at}-${s.state}.png`) });
          return { captured: false, looks: s.looks, yaw, sharpness: s.sharpness, glare: s.glare };
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    // Documents: every fixture document, then its variants.
    const docDir = join(FIXTURES, 'documents');
    const documents = [
      ...readdirSync(join(docDir, 'image-js')).map((f) => join(docDir, 'image-js', f)),
      ...readdirSync(join(docDir, 'passporteye')).filter((f) => !NOT_DOCUMENTS.test(f)).map((f) => join(docDir, 'passporteye', f)),
    ].slice(0, SAMPLE);
    const docLooks: number[] = [];
    const missed: string[] = [];
    type Variant = 'blurred_1_5' | 'blurred_3' | 'glared' | 'moving';
    const variants = Object.fromEntries(
      (['blurred_1_5', 'blurred_3', 'glared', 'moving'] as const).map((k) => [k, { played: 0, taken: 0, refused_by_check: 0, taken_refused_by_check: 0 }]),
    ) as Record<Variant, { played: number; taken: number; refused_by_check: number; taken_refused_by_check: number }>;
    const measurements: string[] = [];
    for (const path of documents) {
      const name = path.slice(docDir.length + 1);
      const frame = await documentFrame(readFileSync(path));
      const run = await play([frame], 'document');
      if (run.captured) docLooks.push(run.looks);
      else missed.push(name);
      // Gaussian blur of σ 1.5 and 3 pixels on the 1280-pixel frame (bench:checks blurs a 1600-pixel photo by 4).
      const soft = await sharp(frame).blur(1.5).png().toBuffer();
      const blurred = await sharp(frame).blur(3).png().toBuffer();
      const glared = await glaredFrame(frame);
      // Moving: the document slides across the frame and back (3% of its width per frame), looping.
      const moving = await Promise.all(Array.from({ length: 16 }, (_, i) => documentFrame(readFileSync(path), { dx: 0.03 * (i < 8 ? i - 4 : 12 - i) })));
      for (const [kind, frames] of [['blurred_1_5', [soft]], ['blurred_3', [blurred]], ['glared', [glared]], ['moving', moving]] as const) {
        const v = variants[kind];
        const check = kind === 'moving' ? null : (await assessDocumentQuality(await sharp(frames[0]).jpeg({ quality: 90 }).toBuffer())).report;
        const refused = check ? check.reasons.includes(kind === 'glared' ? 'image_glare' : 'image_blurred') : false;
        const r = await play([...frames], 'document');
        v.played++;
        if (r.captured) v.taken++;
        if (refused) v.refused_by_check++;
        if (refused && r.captured) v.taken_refused_by_check++;
        if (r.captured) measurements.push(`${name} ${kind} TAKEN after ${r.looks} looks`);
        console.log(`  ${name} ${kind}: ${r.captured ? 'TAKEN' : 'not taken'}, sharpness ${r.sharpness}, glare ${r.glare}${check ? `, check: ${check.reasons.join(' ') || 'ok'} (sharpness ${check.measures.sharpness}, glare ${check.measures.glare_blob_share} ${check.measures.glare_halo_luminance})` : ''}`);
      }
      console.log(`  ${name}: ${run.captured ? `taken after ${run.looks} looks` : 'not taken'}, sharpness ${run.sharpness}, glare ${run.glare}`);
    }

    // Faces: single-face photos framed as a selfie (the face found by the service's own
    // analysis, scaled to fill the oval), group photos and non-faces as they are.
    const all = JSON.parse(readFileSync(join(FIXTURES, 'faces/manifest.json'), 'utf8')) as { path: string; kind: string }[];
    // Every kind is represented in a sample.
    const manifest = all.filter((e, i) => all.filter((o, j) => j < i && o.kind === e.kind).length < SAMPLE);
    const faceRuns: { kind: string; run: Run; serviceYaw?: number }[] = [];
    let downloadMeasured: Record<string, unknown> | null = null;
    for (const entry of manifest) {
      const bytes = readFileSync(join(FIXTURES, 'faces', entry.path));
      let frame: Buffer;
      let serviceYaw: number | undefined;
      if (entry.kind === 'portrait' || entry.kind === 'tight_crop' || entry.kind === 'face_not_frontal') {
        const face = await faceIn(bytes);
        if (!face) continue;
        serviceYaw = face.yaw;
        frame = await selfieFrame(bytes, face.box);
      } else frame = await sharp(bytes).resize(960, 720, { fit: 'contain', background: '#181a1e' }).png().toBuffer();
      const run = await play([frame], 'selfie');
      if (!downloadMeasured) downloadMeasured = await faceStepDownload(page, ctx.assets);
      faceRuns.push({ kind: entry.kind, run, serviceYaw });
      console.log(`  ${entry.path} (${entry.kind}): ${run.captured ? `taken after ${run.looks} looks` : 'not taken'}${run.yaw === undefined ? '' : `, device yaw ${run.yaw}`}${serviceYaw === undefined ? '' : `, service yaw ${serviceYaw}`}`);
    }
    const single = faceRuns.filter((f) => f.kind === 'portrait' || f.kind === 'tight_crop');
    const mustNot = faceRuns.filter((f) => f.kind === 'several_faces' || f.kind === 'no_human_face' || f.kind === 'face_not_frontal');

    // Turns: each labelled turn and its mirror image, asked both ways; with the service's yaw.
    let turnsRight = 0;
    let turnsWrong = 0;
    let turnsPlayed = 0;
    const turnDetails: string[] = [];
    for (const t of TURNED.slice(0, SAMPLE)) {
      const bytes = readFileSync(join(FIXTURES, 'faces', t.path));
      const faces = await facesIn(bytes);
      const width = (await sharp(bytes).metadata()).width!;
      const face = t.region ? faces.find((f) => f.box.x + f.box.width / 2 >= t.region![0] * width && f.box.x + f.box.width / 2 <= t.region![1] * width) : faces[0];
      if (!face) continue;
      for (const mirrored of [false, true]) {
        const ownLeft = (t.turn === 'own_left') !== mirrored;
        const frame = await selfieFrame(bytes, face.box, { flop: mirrored });
        for (const asked of ['turn_left', 'turn_right'] as const) {
          const run = await play([frame], 'challenge', asked);
          turnsPlayed++;
          const right = (asked === 'turn_left') === ownLeft;
          if (run.captured && right) turnsRight++;
          if (run.captured && !right) turnsWrong++;
          turnDetails.push(`${t.path}${mirrored ? ' (mirrored)' : ''} asked ${asked}: ${run.captured ? 'taken' : 'not taken'}, device yaw ${run.yaw}, service yaw ${(mirrored ? -1 : 1) * face.yaw}`);
        }
      }
    }
    for (const line of turnDetails) console.log(`  ${line}`);
    for (const line of measurements) console.log(`  ${line}`);
    const looksOf = (rs: Run[]) => rs.filter((r) => r.captured).map((r) => r.looks);
    return {
      look_limit: LOOK_LIMIT,
      documents: { played: documents.length, captured: docLooks.length, looks_median: median(docLooks), looks_max: max(docLooks), not_captured: missed },
      document_variants: variants,
      faces: {
        single_face_played: single.length,
        single_face_captured: single.filter((f) => f.run.captured).length,
        looks_median: median(looksOf(single.map((f) => f.run))),
        looks_max: max(looksOf(single.map((f) => f.run))),
        must_not_played: mustNot.length,
        must_not_taken: mustNot.filter((f) => f.run.captured).length,
      },
      turns: { played: turnsPlayed, asked_way_taken: turnsRight, asked_way_possible: turnsPlayed / 2, wrong_way_taken: turnsWrong },
      face_step_download: downloadMeasured,
    };
  } finally {
    await context.close();
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The service's own face analysis, its boxes in the photo's pixels (it analyses at most 640 pixels a side). */
async function facesIn(bytes: Buffer): Promise<Awaited<ReturnType<typeof analyseFaces>>> {
  const meta = await sharp(bytes).rotate().metadata();
  const k = Math.max(1, Math.max(meta.width!, meta.height!) / 640);
  return (await analyseFaces(bytes)).map((f) => ({ ...f, box: { x: f.box.x * k, y: f.box.y * k, width: f.box.width * k, height: f.box.height * k } }));
}
const faceIn = async (bytes: Buffer) => (await facesIn(bytes))[0];

/** What the face step fetched once the person opened its camera: the detector's chunk, tfjs's WebAssembly and the weights. */
async function faceStepDownload(page: Page, assets: JourneyAssets): Promise<Record<string, unknown>> {
  const paths = await page.evaluate(() => {
    const start = (window as unknown as { faceStepStart: number }).faceStepStart;
    return (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((e) => e.startTime >= start).map((e) => new URL(e.name).pathname);
  });
  const face = [...new Set(paths)].filter((p) => assets.files.has(p));
  const sum = (k: 'gzip' | 'br' | 'body') => face.reduce((s, p) => s + assets.files.get(p)![k].length, 0);
  return { files: face.map((p) => p.replace(/^\/assets\//, '')), raw_bytes: sum('body'), gzip_bytes: sum('gzip'), brotli_bytes: sum('br') };
}
