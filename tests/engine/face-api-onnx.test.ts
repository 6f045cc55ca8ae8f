import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES_DIR } from '../../packages/engine/src/index.ts';
import { decodeForFaces } from '../../packages/engine/src/faces/decode-image.ts';
import { detectLandmarks } from '../../packages/engine/src/faces/face-api-descriptor.ts';
import { FACE_API_SIZE } from '../../packages/engine/src/faces/face-api-onnx.ts';
import { loadFaceModels } from '../../packages/engine/src/faces/models.ts';
import { runFloat } from '../../packages/engine/src/onnx/session.ts';

// face-api's recognition net runs on onnxruntime, from a graph the engine writes from face-api's
// weights (face-api-onnx.ts). Here face-api's own net, loaded as face-api loads it and run by
// face-api on tfjs, gives the same 128 values on real faces, cropped off-square (the pad to a
// square and the resize are face-api's in both) and mirrored, batched two at a time.
const FACE_API_MODELS = join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api')), '..', 'model');

test("face-api's recognition net on onnxruntime gives face-api's own descriptors, within float rounding", async () => {
  const models = await loadFaceModels();
  const tf = models.faceTf;
  const reference = referenceNet(models, new models.faceapi.FaceRecognitionNet(), 'face_recognition_model');

  let compared = 0;
  await forEachCrop(models, [[0.2, 0.1, 0.5, 0.6], [0.3, 0.3, 0.3, 0.3]], async (path, face) => {
    const mirror = tf.reverse(face, 1);
    const expected = [...(await reference.computeFaceDescriptor(face)), ...(await reference.computeFaceDescriptor(mirror))] as number[];
    const batch = (await models.faceapi.toNetInput([face, mirror])).toBatchTensor(FACE_API_SIZE, true);
    const actual = await runFloat(models.faceRecognition, await batch.data(), [2, FACE_API_SIZE, FACE_API_SIZE, 3]);
    tf.dispose([batch, mirror]);
    assert.equal(actual.length, 256);
    const worst = Math.max(...expected.map((v, i) => Math.abs(v - actual[i]!)));
    assert.ok(worst < 1e-5, `${path}: ${worst}`);
    assert.ok(Math.max(...expected.map(Math.abs)) > 0.05, 'a real descriptor, not zeros');
    compared++;
  });
  assert.equal(compared, 4);
  reference.dispose();
});

// face-api's landmark net, run on onnxruntime (face-api-landmarks-onnx.ts) with face-api's own
// input and post-processing (detectLandmarks): the same 68 points as face-api's own net on tfjs,
// on real faces cropped off-square both ways (the padding to a square is on either side).
test("face-api's landmark net on onnxruntime gives face-api's own 68 points, within float rounding", async () => {
  const models = await loadFaceModels();
  const reference = referenceNet(models, new models.faceapi.FaceLandmark68Net(), 'face_landmark_68_model');

  let compared = 0;
  await forEachCrop(models, [[0.2, 0.1, 0.5, 0.6], [0.25, 0.2, 0.5, 0.35]], async (path, face) => {
    const expected = (await reference.detectLandmarks(face)).positions as { x: number; y: number }[];
    const actual = (await detectLandmarks(models, face)).positions as { x: number; y: number }[];
    assert.equal(actual.length, 68);
    const worst = Math.max(...expected.map((p, i) => Math.max(Math.abs(p.x - actual[i]!.x), Math.abs(p.y - actual[i]!.y))));
    assert.ok(worst < 1e-3, `${path}: a point off by ${worst} px`);
    const spread = Math.max(...expected.map((p) => p.x)) - Math.min(...expected.map((p) => p.x));
    assert.ok(spread > 20, `${path}: landmarks spread over ${spread} px, not a collapsed face`);
    compared++;
  });
  assert.equal(compared, 4);
  reference.dispose();
});

/** One of face-api's own nets, loaded from the weights face-api ships as face-api loads them, run by face-api on tfjs. */
function referenceNet<T extends { loadFromWeightMap(map: unknown): void }>(models: Awaited<ReturnType<typeof loadFaceModels>>, net: T, name: string): T {
  const manifest = JSON.parse(readFileSync(join(FACE_API_MODELS, `${name}-weights_manifest.json`), 'utf8')) as { paths: string[]; weights: unknown[] }[];
  const bytes = Buffer.concat(manifest.flatMap((g) => g.paths.map((p) => readFileSync(join(FACE_API_MODELS, p)))));
  net.loadFromWeightMap(models.faceTf.io.decodeWeights(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), manifest.flatMap((g) => g.weights)));
  return net;
}

/** Each crop (x, y, width, height as shares of the photo) of two real portraits, as a face-api tensor, freed after `use`. */
async function forEachCrop(models: Awaited<ReturnType<typeof loadFaceModels>>, crops: number[][], use: (path: string, face: any) => Promise<void>): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const tf = models.faceTf;
  for (const path of ['faces/debian/grace_hopper_512x512.jpg', 'faces/face_recognition/examples/obama.jpg']) {
    const rgb = await decodeForFaces(readFileSync(join(FIXTURES_DIR, path)));
    const image = tf.tensor3d(rgb.data, [rgb.height, rgb.width, 3], 'float32');
    try {
      for (const [x, y, w, h] of crops) {
        const face = tf.slice(image, [Math.round(y! * rgb.height), Math.round(x! * rgb.width), 0], [Math.round(h! * rgb.height), Math.round(w! * rgb.width), 3]);
        try {
          await use(path, face);
        } finally {
          face.dispose();
        }
      }
    } finally {
      image.dispose();
    }
  }
}
