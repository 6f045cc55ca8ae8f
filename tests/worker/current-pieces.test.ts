import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PieceRow } from '@idv/db';
import { currentPieces } from '@idv/worker';

let n = 0;
function piece(kind: string, round: number, superseded = false): PieceRow {
  n += 1;
  const at = new Date(1_700_000_000_000 + n);
  return {
    id: `pc_${String(n).padStart(26, '0')}`,
    clientId: 'cli',
    environment: 'sandbox',
    caseId: 'case_x',
    sessionId: 'ses_x',
    round,
    kind,
    keyClass: kind.startsWith('document_') ? 'data' : 'biometric',
    blobId: `blob_${n}`,
    contentType: 'image/jpeg',
    sizeBytes: 1,
    width: 640,
    height: 480,
    contentHmac: 'v1.k.x',
    receivedAt: at,
    supersededAt: superseded ? at : null,
    deletedAt: superseded ? at : null,
    faceBox: null,
  };
}

test('the pieces a round is checked on: retakes superseded, the step not retaken taken from the earlier round', () => {
  const r1 = [piece('document_front', 1), piece('document_back', 1), piece('selfie', 1, true), piece('selfie', 1), piece('liveness_turn_left', 1)];
  assert.deepEqual(currentPieces(r1, 1).map((p) => p.id), [r1[0].id, r1[1].id, r1[3].id, r1[4].id]);
  // Round 2 retook the face only: the document sides of round 1 stay.
  const faceRetake = [...r1, piece('selfie', 2), piece('liveness_turn_left', 2)];
  assert.deepEqual(currentPieces(faceRetake, 2).map((p) => `${p.kind}@${p.round}`), ['document_front@1', 'document_back@1', 'selfie@2', 'liveness_turn_left@2']);
  // Round 2 retook the document as a passport (one side): the card's back of round 1 no longer counts.
  const docRetake = [...r1, piece('document_front', 2)];
  assert.deepEqual(currentPieces(docRetake, 2).map((p) => `${p.kind}@${p.round}`), ['selfie@1', 'liveness_turn_left@1', 'document_front@2']);
  // A job of round 1 never looks at pieces of a later round.
  assert.deepEqual(currentPieces(docRetake, 1).map((p) => `${p.kind}@${p.round}`), ['document_front@1', 'document_back@1', 'selfie@1', 'liveness_turn_left@1']);
});
