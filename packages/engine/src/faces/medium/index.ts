export { judgeStillMedium, mediumFeatures, mediumScore, type StillMediumMeasures } from './judge.ts';
export { judgeImageMedium, networkLiveOf } from './read.ts';
export { liveLogOdds } from './anti-spoof-net.ts';
export { MEDIUM_MODEL, SELFIE_IS_PORTRAIT_MAX_DISTANCE, type MediumFeature } from './model.ts';
