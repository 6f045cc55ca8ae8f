import { RECOGNITION_LENGTH } from './faces/recognition-descriptor.ts';

/**
 * The face template the engine stores and searches (a case's selfie and portrait): its length
 * is the duplicate search's vector dimension. The face vector index's migration
 * (packages/db/migrations/0015_face_index.sql, `vector(512)`) fixes the same number, and a
 * test compares the two: a new descriptor length needs a migration changing that column.
 */
export const FACE_TEMPLATE_LENGTH: number = RECOGNITION_LENGTH;

/**
 * Names the descriptor (model, alignment, mirror average): stored with each indexed vector, so
 * that templates of another version are never compared. Change it whenever the descriptor changes.
 */
export const FACE_TEMPLATE_VERSION = 'recognition512-fivepoint-mirror.1';
