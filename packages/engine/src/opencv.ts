/**
 * opencv.js, loaded once per thread. The module object is "thenable" (it has a `then` method),
 * so returning it from an async function or awaiting it hangs forever: we wait for the runtime
 * through `onRuntimeInitialized` and hand it back wrapped in a plain object.
 */
import { createRequire } from 'node:module';
import { countModelLoad } from './model-loads.ts';

// The typings of @techstark/opencv-js are huge and partial; the engine uses a small surface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenCv = any;

let loading: Promise<{ cv: OpenCv }> | null = null;

/**
 * The opencv.js runtime of this thread, initialised on first call, inside a box: an async function
 * that returned the module itself would adopt its `then` and never settle. Use `const { cv } =
 * await loadOpenCv()` and never return `cv` from an async function.
 */
export function loadOpenCv(): Promise<{ cv: OpenCv }> {
  loading ??= new Promise<{ cv: OpenCv }>((resolve, reject) => {
    countModelLoad('opencv');
    try {
      // require keeps the emscripten module from being wrapped as an ES namespace (whose default
      // export would be awaited as a thenable by some loaders).
      const require = createRequire(import.meta.url);
      const cv: OpenCv = require('@techstark/opencv-js');
      if (typeof cv.Mat === 'function') resolve({ cv });
      else cv.onRuntimeInitialized = () => resolve({ cv });
    } catch (err) {
      reject(err);
    }
  });
  return loading;
}
