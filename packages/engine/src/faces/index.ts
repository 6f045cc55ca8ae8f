export { analyseFaces, type FaceFinding, type AnalyseOptions } from './analyse-face.ts';
export { faceDistance, faceSimilarity } from './distance.ts';
export { checkFaceMatch, judgeFaceMatch, FACE_LIMITS, type FaceMatchInput, type FaceMatchResult, type FaceMatchThresholds } from './face-check.ts';
export { checkLiveness, judgeLiveness, challengeMet, LIVENESS_LIMITS, type LivenessInput, type ChallengeFaces } from './liveness.ts';
export { loadFaceModels } from './models.ts';
export { RECOGNITION_LENGTH as FACE_DESCRIPTOR_LENGTH } from './recognition-descriptor.ts';
