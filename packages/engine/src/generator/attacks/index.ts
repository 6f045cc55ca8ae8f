/**
 * Presentation attacks on a still, generated from bona fide photos for the bench (never
 * committed as images): each item is labelled with its species, the seed that made it and the
 * source photo. Same source and seed, same bytes.
 */
export { screenAttack } from './screen.ts';
export { printAttack } from './print.ts';
export { documentSelfieAttack } from './document-selfie.ts';
export { cameraControl } from './camera-control.ts';
export { loadSource } from './source.ts';
export type { CameraDraw } from './rig.ts';

