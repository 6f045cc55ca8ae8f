import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeRowsBinary } from '../../packages/engine/src/mrz/morphology.ts';
import { loadOpenCv } from '../../packages/engine/src/opencv.ts';

test("the locator's row closing gives OpenCV's MORPH_CLOSE pixels, at the ends of the rows too", async () => {
  const { cv } = await loadOpenCv();
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const [width, height] of [[1, 1], [7, 3], [300, 40], [1000, 12]] as const) {
    for (const density of [0.05, 0.3, 0.8]) {
      // Binary print as the locator has it: 0 paper, 255 ink, in runs and specks.
      const data = new Uint8Array(width * height).map(() => (random() < density ? 255 : 0));
      for (const k of [1, 2, 3, 4, 20, 35, 55, 2 * width + 1]) {
        const src = cv.matFromArray(height, width, cv.CV_8UC1, data);
        const dst = new cv.Mat();
        const kernel = cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(k, 1));
        try {
          cv.morphologyEx(src, dst, cv.MORPH_CLOSE, kernel);
          const theirs = Uint8Array.from(dst.data as Uint8Array);
          assert.deepEqual(closeRowsBinary(data, width, height, k), theirs, `${width}×${height}, density ${density}, k ${k}`);
        } finally {
          src.delete();
          dst.delete();
          kernel.delete();
        }
      }
    }
  }
});
