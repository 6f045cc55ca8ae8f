/**
 * What face-api's browser build imports as "@tensorflow/tfjs", narrowed by the journey's build
 * (apps/journey/src/build.ts) to what the face step runs: tfjs's core with its chained tensor
 * methods (face-api calls `tensor.as4D()` and the like). The full tfjs would add the layers and
 * the model converter, which face-api's two small networks do not use.
 */
export * from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-core/dist/public/chained_ops/register_all_chained_ops';
