export { judgeStillMedium, measureStillMedium, mediumFeatures, mediumScore, type PassiveScores, type StillMediumJudgement, type StillMediumMeasures } from './judge.ts';
export { judgeImageMedium, MEDIUM_MAX_SIDE } from './read.ts';
export { MEDIUM_MODEL, SELFIE_IS_PORTRAIT_MAX_DISTANCE, type MediumFeature, type MediumModel } from './model.ts';
