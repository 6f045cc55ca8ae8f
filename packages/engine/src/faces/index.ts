export { analyseFaces, type FaceFinding } from './analyse-face.ts';
export { faceDistance, faceSimilarity } from './distance.ts';
export { checkFaceMatch, judgeFaceMatch, FACE_LIMITS } from './face-check.ts';
export { checkLiveness, judgeLiveness, challengeMet } from './liveness.ts';
export { loadFaceModels } from './models.ts';
export { RECOGNITION_LENGTH as FACE_DESCRIPTOR_LENGTH } from './recognition-descriptor.ts';
export { judgeSequence, cameraSignals, type SequenceFrameReading, type SequenceJudgeInput } from './sequence.ts';
export { framesToRead, readFrameChanges, readSequenceFaces } from './sequence-read.ts';
export { judgeStillMedium, judgeImageMedium } from './medium/index.ts';
