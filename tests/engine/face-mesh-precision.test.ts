import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES_DIR } from '../../packages/engine/src/index.ts';
import { decodeForFaces } from '../../packages/engine/src/faces/decode-image.ts';
import { MESH_OUTPUT_LENGTH, refineMesh } from '../../packages/engine/src/faces/mesh-precision.ts';
import { loadFaceModels } from '../../packages/engine/src/faces/models.ts';

// A mesh model output (468 points in its 192-px input) and the mesh human would make of it: an
// affine map onto the image (scale 1.7, turned 0.3 rad, shifted), each coordinate truncated.
function syntheticFace(seed: number) {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const raw = new Float32Array(MESH_OUTPUT_LENGTH);
  for (let i = 0; i < raw.length; i++) raw[i] = 20 + random() * 150;
  const [c, s] = [1.7 * Math.cos(0.3), 1.7 * Math.sin(0.3)];
  const exact = Array.from({ length: 468 }, (_, k) => [c * raw[3 * k]! - s * raw[3 * k + 1]! + 90.3, s * raw[3 * k]! + c * raw[3 * k + 1]! + 40.6] as const);
  const mesh = exact.map(([x, y], k) => [Math.trunc(x), Math.trunc(y), Math.trunc(raw[3 * k + 2]!)] as [number, number, number]);
  return { raw, exact, mesh };
}
const worst = (points: ReadonlyArray<readonly number[]>, exact: ReadonlyArray<readonly number[]>) => Math.max(...points.map((p, k) => Math.hypot(p[0]! - exact[k]![0]!, p[1]! - exact[k]![1]!)));

test('the mesh is taken back to a fraction of a pixel from the output it was made of, among others', () => {
  const face = syntheticFace(7), other = syntheticFace(8);
  assert.ok(worst(face.mesh, face.exact) > 0.9, 'truncation moves points by up to a pixel');
  const refined = refineMesh(face.mesh, [other.raw, face.raw, other.raw]);
  assert.ok(worst(refined, face.exact) < 0.1, `refined within 0.1 px: ${worst(refined, face.exact)}`);
  assert.deepEqual(refined.map((p) => p[2]), face.mesh.map((p) => p[2]), 'depth kept as human gave it');
});

test('a mesh no kept output explains is returned as it was', () => {
  const face = syntheticFace(7), other = syntheticFace(8);
  assert.deepEqual(refineMesh(face.mesh, [other.raw]), face.mesh);
  assert.deepEqual(refineMesh(face.mesh, []), face.mesh);
  assert.deepEqual(refineMesh(face.mesh, [new Float32Array(10)]), face.mesh, 'an output of another shape is ignored');
  assert.deepEqual(refineMesh(face.mesh.slice(0, 100), [face.raw]), face.mesh.slice(0, 100), 'too short a mesh');
});

test('on a real photo, the engine keeps the mesh model outputs that refine human mesh by under a pixel', async () => {
  const models = await loadFaceModels();
  const rgb = await decodeForFaces(readFileSync(join(FIXTURES_DIR, 'faces', 'face_recognition/examples/obama.jpg')));
  const input = models.humanTf.tensor3d(rgb.data, [rgb.height, rgb.width, 3], 'int32');
  const result = await models.human.detect(input);
  input.dispose();
  const mesh = result.face[0].mesh as Array<[number, number, number]>;
  const refined = refineMesh(mesh, models.meshOutputs);
  const moved = refined.map((p, k) => [p[0] - mesh[k]![0], p[1] - mesh[k]![1]]);
  assert.ok(moved.every(([dx, dy]) => dx! > -0.1 && dx! < 1.1 && dy! > -0.1 && dy! < 1.1), 'each point stays within the pixel human truncated it to');
  const meanShift = moved.reduce((s, [dx, dy]) => s + dx! + dy!, 0) / (2 * moved.length);
  assert.ok(Math.abs(meanShift - 0.5) < 0.1, `on average half a pixel down and right: ${meanShift}`);
});
