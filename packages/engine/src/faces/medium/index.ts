export { judgeStillMedium, mediumFeatures, mediumScore, type StillMediumMeasures } from './judge.ts';
export { judgeImageMedium } from './read.ts';
export { MEDIUM_MODEL, SELFIE_IS_PORTRAIT_MAX_DISTANCE, type MediumFeature } from './model.ts';
