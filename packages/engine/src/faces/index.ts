export { analyseFaces, type FaceFinding } from './analyse-face.ts';
export { faceDistance, faceSimilarity } from './distance.ts';
export { checkFaceMatch, judgeFaceMatch, FACE_LIMITS } from './face-check.ts';
export { checkLiveness, judgeLiveness, challengeMet } from './liveness.ts';
export { loadFaceModels } from './models.ts';
export { RECOGNITION_LENGTH as FACE_DESCRIPTOR_LENGTH } from './recognition-descriptor.ts';
export { judgeStillMedium, judgeImageMedium } from './medium/index.ts';
