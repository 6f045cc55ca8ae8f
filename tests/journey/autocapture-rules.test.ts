import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { findDocumentEdges, quadArea, type Point } from '../../apps/journey/src/app/autocapture/document-edges.ts';
import { DOCUMENT_THRESHOLDS, DocumentSteadiness, documentProblem, type DocumentLook } from '../../apps/journey/src/app/autocapture/document-verdict.ts';
import { facePose } from '../../apps/journey/src/app/autocapture/face-pose.ts';
import { FaceSteadiness, judgeFace, type FaceLook } from '../../apps/journey/src/app/autocapture/face-verdict.ts';
import type { DetectedFace } from '../../apps/journey/src/app/autocapture/face-model.ts';
import { grey } from '../../apps/journey/src/app/quality.ts';
import { glareBlobs, laplacianVariance, type GlareBlob } from '@idv/engine/quality-measures';
import { assessDocumentQuality } from '../../packages/engine/src/document/quality.ts';
import { documentFrame, glaredFrame } from '../helpers/fake-camera.ts';
import { IMAGES, fixture } from '../helpers/journey.ts';

/**
 * The automatic capture's pure rules, on real fixture documents laid in a camera frame by sharp
 * (the browser suite plays the same frames through Chromium's fake camera), and on face
 * geometry. The guide is where the journey's phone layout puts it in a 16:9 frame.
 */
const GUIDE = { x: 0.06, y: 0.05, w: 0.88, h: 0.9 };

const ID_FAIL = 'documents/image-js/id_fail.png';

/**
 * One look at a frame as the journey takes it (document-watch's lookAt): the edges on a
 * 320-pixel grey copy, then the document's inside (its corners' box, 6% in from each side) at
 * most 600 pixels wide, measured for sharpness and glare.
 */
async function inside(frame: Buffer): Promise<DocumentLook & { glare: GlareBlob[] }> {
  const { g, width, height } = await greyFrame(frame);
  const edges = findDocumentEdges(g, width, height, GUIDE);
  assert.ok(edges.quad, 'the document is found');
  const { width: vw, height: vh } = await sharp(frame).metadata();
  const xs = edges.quad.corners.map((c) => c[0] * vw!);
  const ys = edges.quad.corners.map((c) => c[1] * vh!);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const [sx, sy] = [x0 + (x1 - x0) * 0.06, y0 + (y1 - y0) * 0.06];
  const [sw, sh] = [(x1 - x0) * 0.88, (y1 - y0) * 0.88];
  const scale = Math.min(1, 600 / (x1 - x0));
  const { data, info } = await sharp(frame)
    .extract({ left: Math.round(sx), top: Math.round(sy), width: Math.round(sw), height: Math.round(sh) })
    .resize(Math.round(sw * scale), Math.round(sh * scale), { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = new Uint8Array(info.width * info.height);
  for (let i = 0, p = 0; i < pixels.length; i++, p += 3) pixels[i] = Math.round(0.299 * data[p] + 0.587 * data[p + 1] + 0.114 * data[p + 2]);
  const image = { data: pixels, width: info.width, height: info.height, channels: 1 };
  return { edges, guide: GUIDE, frameAspect: vw! / vh!, light: 150, sharpness: laplacianVariance(image), glare: glareBlobs(image, DOCUMENT_THRESHOLDS.glareBlobShare) };
}

async function greyFrame(frame: Buffer): Promise<{ g: Float32Array; width: number; height: number }> {
  const { data, info } = await sharp(frame).resize(320).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { g: grey(new Uint8ClampedArray(data), info.width, info.height), width: info.width, height: info.height };
}

describe('document edges', () => {
  test('a card and a passport page on a dark surface: four edges, where the document lies', async () => {
    for (const path of [IMAGES.idFront, IMAGES.passport, IMAGES.idBack]) {
      const meta = await sharp(fixture(path)).metadata();
      const { g, width, height } = await greyFrame(await documentFrame(fixture(path)));
      const { quad, found } = findDocumentEdges(g, width, height, GUIDE);
      assert.deepEqual(found, [true, true, true, true], path);
      assert.ok(quad, path);
      // The document fills 80% of the frame's height (or width), centred: its corners are there, within a pixel or two of 320.
      const docW = Math.min(0.8 * 1280, (0.8 * 720 * meta.width!) / meta.height!) / 1280;
      const docH = Math.min(0.8 * 720, (0.8 * 1280 * meta.height!) / meta.width!) / 720;
      const expected: Point[] = [[0.5 - docW / 2, 0.5 - docH / 2], [0.5 + docW / 2, 0.5 - docH / 2], [0.5 + docW / 2, 0.5 + docH / 2], [0.5 - docW / 2, 0.5 + docH / 2]];
      quad.corners.forEach((c, i) => {
        assert.ok(Math.abs(c[0] - expected[i][0]) < 0.012 && Math.abs(c[1] - expected[i][1]) < 0.02, `${path} corner ${i}: ${c} vs ${expected[i]}`);
      });
    }
  });

  test('an empty table, or a document half out of the guide: no quad', async () => {
    const table = await sharp({ create: { width: 1280, height: 720, channels: 3, background: { r: 120, g: 110, b: 100 } } }).png().toBuffer();
    const empty = await greyFrame(table);
    assert.equal(findDocumentEdges(empty.g, empty.width, empty.height, GUIDE).quad, null);
    const off = await greyFrame(await documentFrame(fixture(IMAGES.idFront), { dx: 0.4 }));
    assert.equal(findDocumentEdges(off.g, off.width, off.height, GUIDE).quad, null);
  });
});

describe('document verdict', () => {
  const found = async (fill = 0.8) => {
    const { g, width, height } = await greyFrame(await documentFrame(fixture(IMAGES.idFront), { fill }));
    return findDocumentEdges(g, width, height, GUIDE);
  };
  const look = (edges: DocumentLook['edges'], extra: Partial<DocumentLook> = {}): DocumentLook => ({ edges, guide: GUIDE, frameAspect: 16 / 9, light: 150, ...extra });

  test('the first thing in the way is the hint: dark, edges, far, then sharpness and glare once measured', async () => {
    const edges = await found();
    assert.equal(documentProblem(look(edges, { light: 30 })), 'dark');
    assert.equal(documentProblem(look({ quad: null, found: [true, false, true, true] })), 'edges');
    assert.equal(documentProblem(look(await found(0.35))), 'far');
    assert.equal(documentProblem(look(edges)), 'measure', 'sharpness and glare are measured only once the document is there');
    const sharp = { sharpness: DOCUMENT_THRESHOLDS.minSharpness + 1, glare: [] };
    assert.equal(documentProblem(look(edges, sharp)), null);
    assert.equal(documentProblem(look(edges, { ...sharp, sharpness: DOCUMENT_THRESHOLDS.minSharpness - 1 })), 'blurry');
    assert.equal(documentProblem(look(edges, { ...sharp, glare: [{ share: 0.05, haloLuminance: 245, core: 0.1 }] })), 'glare');
    // White paper ends at print, in a darker ring: not glare, however large (a white page).
    assert.equal(documentProblem(look(edges, { ...sharp, glare: [{ share: 0.05, haloLuminance: 200, core: 0.1 }] })), null);
    assert.equal(documentProblem(look(edges, { ...sharp, glare: [{ share: 0.7, haloLuminance: 150, core: 0.13 }] })), null);
    // Near-white paper between lines of print: a bright ring, but a thin strip.
    assert.equal(documentProblem(look(edges, { ...sharp, glare: [{ share: 0.03, haloLuminance: 247, core: 0.03 }] })), null);
    assert.ok(quadArea(edges.quad!.corners) > 0);
  });

  test('glare on real frames: the bright paper of a card’s machine-readable zone is not glare, a glare spot on the card is; the document_quality check agrees', async () => {
    for (const path of [IMAGES.idFront, ID_FAIL]) {
      const frame = await documentFrame(fixture(path));
      const clean = await inside(frame);
      assert.ok(clean.glare.length > 0, `${path}: saturated paper there (the case this rule is for)`);
      assert.ok(clean.glare.every((b) => b.haloLuminance >= DOCUMENT_THRESHOLDS.glareHaloLuminance), `${path}: its ring is bright, as near-white paper's is`);
      assert.equal(documentProblem(clean), null, `${path}: ${JSON.stringify(clean.glare)}`);
      assert.deepEqual((await assessDocumentQuality(await sharp(frame).jpeg({ quality: 90 }).toBuffer())).report.reasons, [], `${path}: the check takes it`);
      const glared = await glaredFrame(frame);
      const spotted = await inside(glared);
      assert.equal(documentProblem(spotted), 'glare', `${path} glared: ${JSON.stringify(spotted.glare)}`);
      assert.ok((await assessDocumentQuality(await sharp(glared).jpeg({ quality: 90 }).toBuffer())).report.reasons.includes('image_glare'), `${path} glared: the check refuses it`);
    }
  });

  test('the shutter fires after three good looks in the same place; a move or a problem starts again', async () => {
    const { quad } = await found();
    const moved = { ...quad!, corners: quad!.corners.map(([x, y]) => [x + 0.05, y]) as NonNullable<typeof quad>["corners"] };
    const s = new DocumentSteadiness();
    assert.deepEqual(s.look(null, quad), { hint: 'steady', fire: false });
    assert.deepEqual(s.look(null, moved), { hint: 'steady', fire: false }, 'moved: the count starts again');
    assert.deepEqual(s.look(null, moved), { hint: 'steady', fire: false });
    assert.deepEqual(s.look('blurry', moved), { hint: 'blurry', fire: false });
    assert.deepEqual(s.look(null, moved), { hint: 'steady', fire: false });
    assert.deepEqual(s.look(null, moved), { hint: 'steady', fire: false });
    assert.deepEqual(s.look(null, moved), { hint: 'ready', fire: true });
  });
});

describe('face pose and verdict', () => {
  /** 68 landmarks of a schematic face: eyes 0.2 apart, the nose tip `turn` sideways and `drop` below their middle (frame fractions, square frame). */
  const landmarks = (turn: number, drop = 0.13, roll = 0): Point[] => {
    const pts: Point[] = Array.from({ length: 68 }, () => [0.5, 0.6]);
    const rot = ([x, y]: Point): Point => [0.5 + (x - 0.5) * Math.cos(roll) - (y - 0.4) * Math.sin(roll), 0.4 + (x - 0.5) * Math.sin(roll) + (y - 0.4) * Math.cos(roll)];
    for (let i = 36; i < 42; i++) pts[i] = rot([0.4, 0.4]);
    for (let i = 42; i < 48; i++) pts[i] = rot([0.6, 0.4]);
    pts[30] = rot([0.5 + turn, 0.4 + drop]);
    return pts;
  };
  const face = (turn: number, extra: Partial<DetectedFace> = {}): DetectedFace => ({ score: 0.9, box: { x: 0.3, y: 0.25, w: 0.4, h: 0.5 }, landmarks: landmarks(turn), ...extra });
  const oval = { x: 0.2, y: 0.1, w: 0.6, h: 0.8 };
  const look = (faces: DetectedFace[]): FaceLook => ({ faces, oval, frameAspect: 1, mean: 120 });

  test('yaw: positive when the nose moves to the image right (the person’s own left), nought when frontal, a tilted phone is no turn', () => {
    assert.equal(Math.round(facePose(landmarks(0), 1).yaw), 0);
    assert.ok(facePose(landmarks(0.05), 1).yaw > 20);
    assert.ok(facePose(landmarks(-0.05), 1).yaw < -20);
    assert.equal(Math.round(facePose(landmarks(0, 0.13, 0.35), 1).yaw), 0, 'roll of 20°');
    assert.ok(facePose(landmarks(0, 0.2), 1).drop > facePose(landmarks(0, 0.13), 1).drop, 'looking down drops the nose');
  });

  test('the selfie: one frontal face, in the oval, large enough, steady; a turn is judged from the selfie’s pose', () => {
    assert.equal(judgeFace(look([]), 'selfie', null).problem, 'no_face');
    assert.equal(judgeFace(look([face(0), face(0)]), 'selfie', null).problem, 'several');
    assert.equal(judgeFace(look([face(0, { box: { x: 0.02, y: 0.25, w: 0.2, h: 0.5 } })]), 'selfie', null).problem, 'centre');
    assert.equal(judgeFace(look([face(0, { box: { x: 0.45, y: 0.42, w: 0.1, h: 0.16 } })]), 'selfie', null).problem, 'far');
    assert.equal(judgeFace(look([face(0.05)]), 'selfie', null).problem, 'straight');
    assert.equal(judgeFace(look([face(0)]), 'selfie', null).problem, null);
    assert.equal(judgeFace(look([face(0)]), 'turn_left', null).problem, 'turn', 'a frontal face is no turn');
    assert.equal(judgeFace(look([face(0.05)]), 'turn_left', null).problem, null);
    assert.equal(judgeFace(look([face(0.05)]), 'turn_right', null).problem, 'turn', 'the other way');
    assert.equal(judgeFace(look([face(0.05)]), 'turn_left', { yaw: 20, drop: 0.65 }).problem, 'turn', 'measured from a selfie already turned');
    const steady = new FaceSteadiness('selfie');
    const j = judgeFace(look([face(0)]), 'selfie', null);
    assert.equal(steady.look(j, oval).fire, false);
    assert.equal(steady.look(j, oval).fire, false);
    assert.equal(steady.look(j, oval).fire, true);
  });
});
