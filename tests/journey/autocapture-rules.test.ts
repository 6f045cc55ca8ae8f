import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { findDocumentEdges, quadArea, type Point } from '../../apps/journey/src/app/autocapture/document-edges.ts';
import { DOCUMENT_THRESHOLDS, DocumentSteadiness, documentProblem, type DocumentLook } from '../../apps/journey/src/app/autocapture/document-verdict.ts';
import { facePose } from '../../apps/journey/src/app/autocapture/face-pose.ts';
import { FaceSteadiness, judgeFace, type FaceLook } from '../../apps/journey/src/app/autocapture/face-verdict.ts';
import type { DetectedFace } from '../../apps/journey/src/app/autocapture/face-model.ts';
import { grey } from '../../apps/journey/src/app/quality.ts';
import { documentFrame } from '../helpers/fake-camera.ts';
import { IMAGES, fixture } from '../helpers/journey.ts';

/**
 * The automatic capture's pure rules, on real fixture documents laid in a camera frame by sharp
 * (the browser suite plays the same frames through Chromium's fake camera), and on face
 * geometry. The guide is where the journey's phone layout puts it in a 16:9 frame.
 */
const GUIDE = { x: 0.06, y: 0.05, w: 0.88, h: 0.9 };

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
    assert.equal(documentProblem(look(edges, { ...sharp, glare: [{ share: 0.05, haloLuminance: 245 }] })), 'glare');
    // White paper ends at print, in a darker ring: not glare; unless it is so large that a spot may hide in it.
    assert.equal(documentProblem(look(edges, { ...sharp, glare: [{ share: 0.05, haloLuminance: 200 }] })), null);
    assert.equal(documentProblem(look(edges, { ...sharp, glare: [{ share: 0.2, haloLuminance: 200 }] })), 'glare');
    assert.ok(quadArea(edges.quad!.corners) > 0);
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
