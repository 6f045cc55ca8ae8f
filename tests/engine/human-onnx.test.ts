import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES_DIR } from '../../packages/engine/src/index.ts';
import { decodeForFaces } from '../../packages/engine/src/faces/decode-image.ts';
import { HUMAN_ONNX_MODELS } from '../../packages/engine/src/faces/human-onnx.ts';
import { loadFaceModels } from '../../packages/engine/src/faces/models.ts';

// human's detector, mesh and liveness nets run on onnxruntime behind human's `model.execute`
// (human-onnx.ts), from graphs the engine writes from human's own files (onnx/tf-graph.ts). Here
// tfjs's own execution of each model (the GraphModel's method, still on its prototype) is given
// the very inputs human's pipeline gave the model on real photos (a portrait and a group), and
// both give the same outputs, in the same order and shapes, within float32 rounding.
type Tensor = { shape: number[]; dataSync(): Float32Array; clone(): Tensor; dispose(): void };

test("human's four face models on onnxruntime give tfjs's own outputs on the inputs human's pipeline makes", async () => {
  const models = await loadFaceModels();
  const { human, humanTf: tf } = models;
  const seen = new Map<string, Tensor[]>();
  const restore: Array<() => void> = [];
  for (const name of HUMAN_ONNX_MODELS) {
    const model = human.models.models[name];
    const onnx = model.execute;
    assert.notEqual(onnx, Object.getPrototypeOf(model).execute, `${name} still runs on tfjs`);
    model.execute = (input: Tensor, outputs?: unknown) => {
      seen.set(name, [...(seen.get(name) ?? []), input.clone()]);
      return onnx(input, outputs);
    };
    restore.push(() => (model.execute = onnx));
  }
  try {
    for (const path of ['faces/face_recognition/examples/obama.jpg', 'faces/face-api-js/bbt2.jpg']) {
      const rgb = await decodeForFaces(readFileSync(join(FIXTURES_DIR, path)));
      const input = tf.tensor3d(rgb.data, [rgb.height, rgb.width, 3], 'int32');
      const result = await human.detect(input);
      tf.dispose([input, ...result.face.map((f: { tensor?: unknown }) => f.tensor).filter(Boolean)]);
    }
  } finally {
    for (const r of restore) r();
  }

  for (const name of HUMAN_ONNX_MODELS) {
    const model = human.models.models[name];
    const inputs = seen.get(name) ?? [];
    // Once per photo for the detector; once per face found (the portrait's, the group's) for the others.
    assert.ok(inputs.length >= (name === 'blazeface' ? 2 : 4), `${name} ran ${inputs.length} times`);
    for (const input of inputs) {
      const expected = [Object.getPrototypeOf(model).execute.call(model, input)].flat() as Tensor[];
      const actual = [model.execute(input)].flat() as Tensor[];
      assert.deepEqual(actual.map((t) => t.shape), expected.map((t) => t.shape), name);
      expected.forEach((e, i) => {
        const want = e.dataSync();
        const got = actual[i]!.dataSync();
        const scale = Math.max(...want.map(Math.abs));
        const worst = Math.max(...want.map((v, j) => Math.abs(v - got[j]!)));
        assert.ok(scale > 0.01, `${name} output ${i}: all zeros`);
        assert.ok(worst <= 1e-5 * Math.max(1, scale), `${name} output ${i}: off by ${worst} (values up to ${scale})`);
      });
      tf.dispose([input, ...expected, ...actual]);
    }
  }
});

test("human's models on onnxruntime refuse outputs other than their own rather than compute something else", async () => {
  const { human, humanTf: tf } = await loadFaceModels();
  const input = tf.zeros([1, 256, 256, 3]);
  try {
    assert.throws(() => human.models.models.blazeface.execute(input, ['Identity']), /only the model's own are run/);
    assert.throws(() => human.models.models.blazeface.execute(tf.zeros([1, 256, 256, 3], 'int32')), /one float32 tensor/);
  } finally {
    input.dispose();
  }
});
