import type { FaceBox } from '../types.ts';
import { runFloat } from '../onnx/session.ts';
import { LANDMARKS_SIZE } from './face-api-landmarks-onnx.ts';
import { FACE_API_SIZE } from './face-api-onnx.ts';
import type { FaceModels } from './models.ts';

/** The mesh box is grown by this share before the first landmark pass (the 68-point net wants some margin). */
const LANDMARK_MARGIN = 0.2;

/**
 * face-api's 128-d descriptor of one face, after face-api's own alignment, refined: 68 landmarks
 * on the mesh box (grown a little), the aligned box they give, landmarks again on that box, its
 * aligned box, then the descriptor of that crop and of its mirror image, averaged. Measured on the
 * fixtures' pairs (bench/checks/faces.ts), false non-match at 0.1% false match, this descriptor
 * alone: one landmark pass 10.8%, two passes 5.8%, two passes with the mirror average 3.6%
 * (without alignment 44%). The average also makes the descriptor blind to a left-right flip, so
 * a mirrored selfie compares like an unmirrored one. `input`: the image as a float32 [h, w, 3]
 * tensor of face-api's tfjs.
 */
export async function describeWithFaceApi(models: FaceModels, input: { shape: number[] }, box: FaceBox): Promise<number[] | null> {
  const { faceapi } = models;
  const [height, width] = input.shape as [number, number];
  const grown = new faceapi.Rect(
    box.x - (box.width * LANDMARK_MARGIN) / 2,
    box.y - (box.height * LANDMARK_MARGIN) / 2,
    box.width * (1 + LANDMARK_MARGIN),
    box.height * (1 + LANDMARK_MARGIN),
  );
  const first = await alignedBox(models, input, grown.clipAtImageBorders(width, height));
  if (!first) return null;
  const second = await alignedBox(models, input, first.clipAtImageBorders(width, height));
  if (!second) return null;
  const [face] = await faceapi.extractFaceTensors(input, [second]);
  if (!face) return null;
  try {
    // face-api gives an empty crop a descriptor of zeros; so does this.
    if ((face.shape as number[]).some((d) => d <= 0)) return new Array<number>(DESCRIPTOR_LENGTH).fill(0);
    const both = await recognise(models, face);
    return Array.from(both.subarray(0, DESCRIPTOR_LENGTH), (v, i) => (v + both[DESCRIPTOR_LENGTH + i]!) / 2);
  } finally {
    face.dispose();
  }
}

const DESCRIPTOR_LENGTH = 128;

/**
 * The recognition net on the face and its mirror image, in one batch on onnxruntime
 * (face-api-onnx.ts): each is padded to a square and resized to the net's input by face-api's own
 * `toBatchTensor`, as its `computeFaceDescriptor` does. Returns both descriptors, one after the other.
 */
async function recognise({ faceapi, faceRecognition }: FaceModels, face: { shape: number[] }): Promise<Float32Array> {
  const mirror = faceapi.tf.reverse(face, 1);
  let batch: { data(): Promise<Float32Array>; dispose(): void } | null = null;
  try {
    batch = (await faceapi.toNetInput([face, mirror])).toBatchTensor(FACE_API_SIZE, true);
    const pixels = await batch!.data();
    return await runFloat(faceRecognition, pixels, [2, FACE_API_SIZE, FACE_API_SIZE, 3]);
  } finally {
    batch?.dispose();
    mirror.dispose();
  }
}

/** Landmarks on one box (they come relative to the crop), shifted back, and the aligned box they give. */
async function alignedBox(models: FaceModels, input: unknown, rect: { x: number; y: number; width: number; height: number }) {
  if (rect.width < 8 || rect.height < 8) return null;
  const [crop] = await models.faceapi.extractFaceTensors(input, [rect]);
  if (!crop) return null;
  try {
    const landmarks = await detectLandmarks(models, crop);
    return landmarks.shiftBy(rect.x, rect.y).align();
  } finally {
    crop.dispose();
  }
}

/**
 * face-api's `detectLandmarks` on one face crop, its net on onnxruntime (face-api-landmarks-onnx.ts):
 * face-api's own input (the crop padded to a square, resized to 112), then its post-processing:
 * each point from the padded square back to the crop's pixels, in float32 as face-api's tensors
 * compute it.
 */
export async function detectLandmarks({ faceapi, faceLandmarks }: FaceModels, crop: unknown) {
  const netInput = await faceapi.toNetInput(crop);
  const batch = netInput.toBatchTensor(LANDMARKS_SIZE, true);
  let out: Float32Array;
  try {
    out = await runFloat(faceLandmarks, await batch.data(), [1, LANDMARKS_SIZE, LANDMARKS_SIZE, 3]);
  } finally {
    batch.dispose();
  }
  const height: number = netInput.getInputHeight(0);
  const width: number = netInput.getInputWidth(0);
  const f = Math.fround;
  const scale = LANDMARKS_SIZE / Math.max(height, width);
  const [w, h] = [f(width * scale), f(height * scale)];
  const padX = w < h ? f(Math.abs(width * scale - height * scale) / 2) : 0;
  const padY = h < w ? f(Math.abs(width * scale - height * scale) / 2) : 0;
  const points = Array.from({ length: 68 }, (_, i) => {
    const x = f(f(f(out[2 * i]! * LANDMARKS_SIZE) - padX) / w);
    const y = f(f(f(out[2 * i + 1]! * LANDMARKS_SIZE) - padY) / h);
    return new faceapi.Point(x, y);
  });
  return new faceapi.FaceLandmarks68(points, { height, width });
}
