import { h } from '../dom.ts';
import { grey, type Region } from '../quality.ts';
import type { FaceModel } from './face-model.ts';
import { FaceSteadiness, judgeFace, type Baseline, type FaceHint, type FaceJudgement, type FaceTask } from './face-verdict.ts';
import { lookLoop } from './look-loop.ts';

export interface FaceLookResult {
  hint: FaceHint;
  judgement: FaceJudgement;
}

/** The detector's chunk (tfjs, WebAssembly, weights): fetched on the face step only, once. */
export const loadFaceDetector = (): Promise<FaceModel> => import('./face-model.ts').then((m) => m.loadFaceModel());

/**
 * Looks for the face several times a second and tells the hint of each look; calls `fire` with
 * the pose once the face is right for the task (then stops looking). Returns a stop function.
 */
export function watchFace(
  video: HTMLVideoElement,
  model: FaceModel,
  task: FaceTask,
  baseline: Baseline | null,
  oval: () => Region,
  onLook: (result: FaceLookResult) => void,
  fire: (judgement: FaceJudgement) => void,
): () => void {
  const small = h('canvas');
  const steadiness = new FaceSteadiness(task);
  return lookLoop(video, async () => {
    const region = oval();
    const faces = await model.detect(video);
    const judgement = judgeFace({ faces, oval: region, frameAspect: video.videoWidth / video.videoHeight, mean: ovalLuminance(video, region, small) }, task, baseline);
    const verdict = steadiness.look(judgement, region);
    onLook({ hint: verdict.hint, judgement });
    if (verdict.fire) {
      fire(judgement);
      return false;
    }
    return true;
  });
}

/** Mean luminance of the oval's box on a 64-pixel grey copy. */
function ovalLuminance(video: HTMLVideoElement, oval: Region, canvas: HTMLCanvasElement): number {
  const width = 64;
  const height = Math.max(1, Math.round((video.videoHeight / video.videoWidth) * width));
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(video, 0, 0, width, height);
  const g = grey(ctx.getImageData(0, 0, width, height).data, width, height);
  let sum = 0;
  let n = 0;
  for (let y = Math.floor(oval.y * height); y < Math.ceil((oval.y + oval.h) * height) && y < height; y++) {
    for (let x = Math.floor(oval.x * width); x < Math.ceil((oval.x + oval.w) * width) && x < width; x++) {
      sum += g[y * width + x];
      n++;
    }
  }
  return n ? sum / n : 0;
}
