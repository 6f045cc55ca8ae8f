import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { answerFaceChallenge, appendJournal, countFaceChallenges, findFaceChallenge, insertFaceChallenge, insertPiece, supersedePiece } from '@idv/db';
import { SEQUENCE_LIMITS, drawChallenge, newId, pieceKeyClass } from '@idv/domain';
import { pieceBlobs } from '@idv/case-data';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { journeyOf } from '../../http/session-auth.ts';
import { BODY_ERRORS } from '../../schemas/common.ts';
import { inspectFrame, type InspectedImage } from '../../services/images.ts';
import { PERSON, journeyRowOwner, openJourney, requireOpen } from '../../services/journey-state.ts';
import { JOURNEY_SECURITY, journeyErrors } from './schemas.ts';
import { journeyWrite, requireStep, type OpenJourney } from './write.ts';

/**
 * The live sequence (docs/liveness.md#the-live-sequence): the journey asks for a challenge when
 * the face step starts, films it, and sends the frames in one upload bound to the challenge and
 * its nonce. The challenge lives in the database, so any instance accepts the answer and a nonce
 * is answered once across all of them.
 */

const sha256 = (s: string) => createHash('sha256').update(s).digest();
/** A cryptographic [0, 1): the order drawn must not be predictable from earlier draws. */
const secureRandom = () => randomBytes(4).readUInt32BE() / 2 ** 32;

const FRAME = 'frames';
/** Base64 of a frame at its byte limit. */
const MAX_FRAME_BASE64 = Math.ceil(SEQUENCE_LIMITS.maxFrameBytes / 3) * 4;
/** The JSON body: the frames in base64 (a third more than their bytes) and a little metadata. */
const SEQUENCE_BODY_LIMIT = Math.ceil(SEQUENCE_LIMITS.maxTotalBytes / 3) * 4 + 64 * 1024;

export function registerJourneyFaceSequence(app: App, ctx: AppContext): void {
  app.post(
    '/v1/sessions/current/face/challenge',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'createFaceChallenge',
        tags: ['journey'],
        summary: 'Draw a face challenge',
        description:
          'When the face step starts: the flow’s head movements in an order drawn at random, how long to hold each, and a nonce; answered once by ' +
          `POST /v1/sessions/current/face/sequence within ${SEQUENCE_LIMITS.challengeTtlMs / 1000} seconds. At most ${SEQUENCE_LIMITS.maxChallengesPerCase} per case; journaled as journey.face_challenge_issued`,
        security: JOURNEY_SECURITY,
        response: {
          201: Type.Ref('FaceChallenge'),
          ...journeyErrors('journey_closed', 'journey_step_blocked', 'journey_step_not_asked', 'piece_not_expected', 'face_challenge_limit_reached'),
        },
      },
    },
    async (req, reply) => {
      const { session } = journeyOf(req);
      const now = ctx.now();
      const nonce = randomBytes(24).toString('base64url');
      const issued = await ctx.db.transaction(async (tx) => {
        const j = await openJourney(tx, session, now);
        requireOpen(j);
        const open = j as OpenJourney;
        requireStep(open, 'face');
        const movements = j.flow.liveness.challenges;
        if (movements.length === 0) throw new ApiError('piece_not_expected', 'The flow of this case asks for no head movement.');
        if ((await countFaceChallenges(tx, j.caseRow.id)) >= SEQUENCE_LIMITS.maxChallengesPerCase) {
          throw new ApiError('face_challenge_limit_reached', `At most ${SEQUENCE_LIMITS.maxChallengesPerCase} face challenges are issued for a case.`);
        }
        const drawn = drawChallenge(movements, secureRandom);
        const id = newId('fch', now.getTime());
        const expiresAt = new Date(now.getTime() + SEQUENCE_LIMITS.challengeTtlMs);
        await insertFaceChallenge(tx, {
          id,
          clientId: j.tenant.clientId,
          environment: j.tenant.environment,
          caseId: j.caseRow.id,
          sessionId: j.session.id,
          round: open.journey.round,
          movements: drawn.movements,
          holdMs: drawn.holdMs,
          nonceHash: sha256(nonce).toString('hex'),
          issuedAt: now,
          expiresAt,
        });
        await appendJournal(tx, j.tenant, {
          caseId: j.caseRow.id,
          actor: PERSON,
          action: 'journey.face_challenge_issued',
          detail: { challenge_id: id, movements: drawn.movements, hold_ms: drawn.holdMs },
          at: now,
        });
        return { id, ...drawn, expiresAt };
      });
      return reply.code(201).send({
        object: 'face_challenge' as const,
        id: issued.id,
        movements: issued.movements,
        hold_ms: issued.holdMs,
        nonce,
        issued_at: now.toISOString(),
        expires_at: issued.expiresAt.toISOString(),
        frame_rate: SEQUENCE_LIMITS.frameRate,
        min_frames: SEQUENCE_LIMITS.minFrames,
        max_frames: SEQUENCE_LIMITS.maxFrames,
        max_duration_ms: SEQUENCE_LIMITS.maxDurationMs,
        max_frame_bytes: SEQUENCE_LIMITS.maxFrameBytes,
        max_total_bytes: SEQUENCE_LIMITS.maxTotalBytes,
        max_side: SEQUENCE_LIMITS.maxSide,
        min_short_side: SEQUENCE_LIMITS.minShortSide,
      });
    },
  );

  app.post(
    '/v1/sessions/current/face/sequence',
    {
      config: { auth: 'session' },
      bodyLimit: SEQUENCE_BODY_LIMIT,
      schema: {
        operationId: 'uploadFaceSequence',
        tags: ['journey'],
        summary: 'Send the live sequence',
        description:
          'The frames filmed for a face challenge, in one upload: JPEG frames (base64) with their capture times, and what the browser said about its camera. ' +
          `${SEQUENCE_LIMITS.minFrames} to ${SEQUENCE_LIMITS.maxFrames} frames over at most ${SEQUENCE_LIMITS.maxDurationMs / 1000} s, each at most ${SEQUENCE_LIMITS.maxFrameBytes} bytes and ` +
          `${SEQUENCE_LIMITS.maxSide} pixels on its longer side, ${SEQUENCE_LIMITS.maxTotalBytes} bytes in all. Each frame is stored as a liveness_frame piece in capture order; ` +
          'a new sequence replaces the round’s earlier one. The challenge is answered once; journaled as journey.sequence_received',
        security: JOURNEY_SECURITY,
        body: Type.Object(
          {
            challenge_id: Type.String({ maxLength: 64, description: 'The id of the challenge filmed' }),
            nonce: Type.String({ maxLength: 64, description: 'The nonce the challenge came with' }),
            frames: Type.Array(
              Type.Object(
                {
                  t: Type.Number({ minimum: 0, maximum: 600_000, description: 'Capture time in milliseconds from the start of the capture (performance.now() or the video frame’s time)' }),
                  image: Type.String({ maxLength: MAX_FRAME_BASE64, contentEncoding: 'base64', description: 'The JPEG frame, base64' }),
                },
                { additionalProperties: false },
              ),
              { maxItems: SEQUENCE_LIMITS.maxFrames, description: 'Frames in capture order' },
            ),
            camera: Type.Object(
              {
                label: Type.Optional(Type.String({ maxLength: 200, description: 'MediaStreamTrack.label' })),
                width: Type.Optional(Type.Integer({ minimum: 0, maximum: 16384 })),
                height: Type.Optional(Type.Integer({ minimum: 0, maximum: 16384 })),
                frame_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
                facing_mode: Type.Optional(Type.String({ maxLength: 32 })),
                video_inputs: Type.Optional(Type.Integer({ minimum: 0, maximum: 64, description: 'Video inputs the browser lists' })),
              },
              { additionalProperties: false, description: 'What the browser says about its camera (getSettings() and the track label)' },
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Ref('Journey'),
          ...journeyErrors(
            ...BODY_ERRORS,
            'journey_closed',
            'journey_step_blocked',
            'journey_step_not_asked',
            'piece_not_expected',
            'face_challenge_invalid',
            'face_challenge_expired',
            'sequence_invalid',
            'image_too_large',
            'image_type_unsupported',
            'image_unreadable',
            'image_dimensions_invalid',
          ),
        },
      },
    },
    async (req) => {
      const body = req.body;
      const { session } = journeyOf(req);
      const frames = await readFrames(body.frames);
      // The challenge is looked at before anything is stored (the answer is claimed again in the transaction).
      const challenge = await findFaceChallenge(ctx.db, session.caseId, body.challenge_id);
      requireAnswerable(challenge, body.nonce, ctx.now());
      const blobs = pieceBlobs(ctx);
      const keyClass = pieceKeyClass('liveness_frame');
      const base = ctx.now().getTime();
      // Ids a millisecond apart: their order (the pieces' order everywhere) is the capture order.
      const ids = frames.map((_, i) => newId('pc', base + i));
      let kept = false;
      try {
        for (let i = 0; i < frames.length; i++) {
          if (!(await blobs.put(ctx.db, session.caseId, ids[i]!, keyClass, frames[i]!.bytes, ctx.now()))) {
            throw new ApiError('journey_closed', 'The personal data of this case has been erased.');
          }
        }
        const state = await journeyWrite(ctx, req, async (tx, j, now, afterCommit) => {
          requireStep(j, 'face');
          if (j.flow.liveness.challenges.length === 0) throw new ApiError('piece_not_expected', 'The flow of this case asks for no head movement.');
          const current = await findFaceChallenge(tx, j.caseRow.id, body.challenge_id);
          requireAnswerable(current, body.nonce, now);
          if (current!.sessionId !== j.session.id || current!.round !== j.journey.round) {
            throw new ApiError('face_challenge_invalid', 'The challenge was issued to another session or round of this journey.', 'challenge_id');
          }
          const t0 = body.frames[0]!.t;
          const sequence = {
            frames: ids.map((id, i) => ({ piece_id: id, t: Math.round((body.frames[i]!.t - t0) * 10) / 10 })),
            camera: cameraOf(body.camera),
          };
          if (!(await answerFaceChallenge(tx, current!.id, sequence, now))) {
            throw new ApiError('face_challenge_invalid', 'The challenge was already answered: ask for a new one.', 'challenge_id');
          }
          // A new sequence replaces the round's earlier one, frames and stills alike.
          for (const p of j.pieces.filter((p) => p.kind.startsWith('liveness_'))) {
            await supersedePiece(tx, p.id, now);
            afterCommit(() => blobs.delete(p.blobId));
          }
          for (let i = 0; i < frames.length; i++) {
            const f = frames[i]!;
            await insertPiece(tx, {
              id: ids[i]!,
              ...journeyRowOwner(j),
              kind: 'liveness_frame',
              keyClass,
              blobId: ids[i]!,
              contentType: f.image.type,
              sizeBytes: f.bytes.length,
              width: f.image.width,
              height: f.image.height,
              contentHmac: blobs.fingerprint(f.bytes),
              receivedAt: now,
            });
          }
          await appendJournal(tx, j.tenant, {
            caseId: j.caseRow.id,
            actor: PERSON,
            action: 'journey.sequence_received',
            detail: {
              challenge_id: current!.id,
              frames: frames.length,
              size_bytes: frames.reduce((n, f) => n + f.bytes.length, 0),
              duration_ms: sequence.frames.at(-1)!.t,
            },
            at: now,
          });
        });
        kept = true;
        return state;
      } finally {
        if (!kept) for (const id of ids) await blobs.delete(id).catch(() => {});
      }
    },
  );
}

/** Known, for this nonce, not answered, not expired; otherwise the error that says which. */
function requireAnswerable(challenge: Awaited<ReturnType<typeof findFaceChallenge>>, nonce: string, now: Date): void {
  const given = sha256(nonce);
  const stored = challenge ? Buffer.from(challenge.nonceHash, 'hex') : null;
  if (!challenge || !stored || stored.length !== given.length || !timingSafeEqual(stored, given)) {
    throw new ApiError('face_challenge_invalid', 'No challenge of this journey has this id and nonce.', 'challenge_id');
  }
  if (challenge.answeredAt) throw new ApiError('face_challenge_invalid', 'The challenge was already answered: ask for a new one.', 'challenge_id');
  if (challenge.expiresAt <= now) throw new ApiError('face_challenge_expired', `The challenge expired at ${challenge.expiresAt.toISOString()}: ask for a new one.`, 'challenge_id');
}

interface Frame {
  bytes: Buffer;
  image: InspectedImage;
}

/** The frames decoded and inspected, within the sequence's limits; refused with the field that breaks one. */
async function readFrames(frames: readonly { t: number; image: string }[]): Promise<Frame[]> {
  if (frames.length < SEQUENCE_LIMITS.minFrames) {
    throw new ApiError('sequence_invalid', `A sequence has at least ${SEQUENCE_LIMITS.minFrames} frames; ${frames.length} were sent.`, FRAME);
  }
  const times = frames.map((f) => f.t);
  const span = Math.max(...times) - Math.min(...times);
  if (span > SEQUENCE_LIMITS.maxDurationMs) {
    throw new ApiError('sequence_invalid', `The frames span ${Math.round(span)} ms; a sequence lasts at most ${SEQUENCE_LIMITS.maxDurationMs} ms.`, FRAME);
  }
  const out: Frame[] = [];
  let total = 0;
  for (let i = 0; i < frames.length; i++) {
    const bytes = Buffer.from(frames[i]!.image, 'base64');
    total += bytes.length;
    if (total > SEQUENCE_LIMITS.maxTotalBytes) {
      throw new ApiError('sequence_invalid', `The frames are more than ${SEQUENCE_LIMITS.maxTotalBytes} bytes in all.`, FRAME);
    }
    try {
      out.push({ bytes, image: await inspectFrame(bytes) });
    } catch (err) {
      if (err instanceof ApiError) throw new ApiError(err.code, err.message, `${FRAME}.${i}.image`);
      throw err;
    }
  }
  return out;
}

/** The camera report as stored: only the fields given. */
function cameraOf(camera: { label?: string; width?: number; height?: number; frame_rate?: number; facing_mode?: string; video_inputs?: number }): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(camera)) if (v !== undefined) out[k] = v;
  return out;
}

