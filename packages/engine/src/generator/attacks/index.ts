/**
 * Presentation attacks on a still, generated from bona fide photos for the bench (never
 * committed as images): each item is labelled with its species, the seed that made it and the
 * source photo. Same source and seed, same bytes.
 */
export { screenAttack, type ScreenParams } from './screen.ts';
export { printAttack, type PrintParams } from './print.ts';
export { documentSelfieAttack, type DocumentSelfie } from './document-selfie.ts';
export { loadSource, type Source } from './source.ts';

/** The generated species, as the bench names them. */
export const GENERATED_SPECIES = ['generated_screen', 'generated_print', 'generated_document_as_selfie'] as const;
export type GeneratedSpecies = (typeof GENERATED_SPECIES)[number];
