import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { analyseFaces } from '../../packages/engine/src/faces/index.ts';
import { LANDMARK_MESH_INDICES } from '../../packages/engine/src/faces/landmarks.ts';
import { judgePlanarity, type PlanarityFrame } from '../../packages/engine/src/faces/planarity.ts';
import { CHALLENGE_MOVES, otherChallenge } from '../../packages/engine/src/generator/attacks/other-challenge.ts';
import { printPathSequence } from '../../packages/engine/src/generator/attacks/print-path.ts';
import { FIXTURES_DIR } from '../../packages/engine/src/generator/fixtures.ts';
import { createRng } from '../../packages/engine/src/generator/rng.ts';

// The generated presentation attacks (packages/engine/src/generator/attacks/), on a real fixture
// photo and the real face models.
const OBAMA = join(FIXTURES_DIR, 'faces/face_recognition/examples/obama.jpg');
if (!existsSync(OBAMA)) throw new Error(`face fixtures not found at ${OBAMA}`);

test('a printed photo moved along a path: labelled generated, the same frames for the same seed, never judged round', async () => {
  const photo = readFileSync(OBAMA);
  const options = { species: 'print_bent' as const, frames: 8, moves: ['turn_left' as const] };
  const seq = await printPathSequence(photo, createRng(5), options);
  assert.equal(seq.generated, true);
  assert.equal(seq.frames.length, 8);
  assert.ok(Math.abs(seq.bend) >= 0.02 && Math.abs(seq.bend) <= 0.07, `bend ${seq.bend}`);
  assert.ok(Math.min(...seq.poses.map((p) => p.yaw)) < -15, 'the print turns towards the left');
  const again = await printPathSequence(photo, createRng(5), options);
  assert.deepEqual(again.frames, seq.frames, 'same seed, same frames');

  const frames: PlanarityFrame[] = [];
  for (const frame of seq.frames) {
    const [face] = await analyseFaces(frame);
    assert.ok(face, 'the printed face is found');
    assert.equal(face.landmarks.length, LANDMARK_MESH_INDICES.length);
    assert.ok(face.landmarks.every(([x, y]) => x >= -face.frame.width && x <= 2 * face.frame.width && y >= -face.frame.height && y <= 2 * face.frame.height));
    frames.push(face);
  }
  const judged = judgePlanarity(frames);
  assert.notEqual(judged.flat, false, `a print is a plane: ${JSON.stringify(judged.measures)}`);
});

test('a bona fide clip is sent against another challenge: never the movements it performs (property)', () => {
  assert.deepEqual(otherChallenge(['turn_right', 'turn_left'], createRng(1)), ['turn_left', 'turn_right']);
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...CHALLENGE_MOVES, 'return_center', 'none'), { maxLength: 4 }), fc.integer(), (performed, seed) => {
      const asked = otherChallenge(performed, createRng(seed));
      assert.ok(asked.length >= 2);
      assert.notDeepEqual(asked, performed);
      assert.ok(asked.every((m) => (CHALLENGE_MOVES as readonly string[]).includes(m)));
    }),
  );
});
