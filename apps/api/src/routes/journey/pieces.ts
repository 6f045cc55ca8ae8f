import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { appendJournal, countPieceUploads, insertPiece, supersedePiece } from '@idv/db';
import { IMAGE_LIMITS, PIECE_KINDS, newId, pieceExpectation, pieceKeyClass, type PieceKind } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { literals } from '../../schemas/case.ts';
import { journeyOf } from '../../http/session-auth.ts';
import { inspectImage } from '../../services/images.ts';
import { PERSON, journeyRowOwner } from '../../services/journey-state.ts';
import { pieceBlobs } from '@idv/case-data';
import { JOURNEY_SECURITY, journeyErrors } from './schemas.ts';
import { journeyWrite, requireStep } from './write.ts';

/**
 * Image bodies: any Content-Type (the type is read from the bytes), read as a stream and refused
 * as soon as they pass the limit, whatever Content-Length claimed.
 */
function installImageBody(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (req, payload, done) => {
    const tooLarge = () => new ApiError('image_too_large', `An image may be at most ${IMAGE_LIMITS.maxBytes} bytes.`);
    const declared = Number(req.headers['content-length']);
    if (declared > IMAGE_LIMITS.maxBytes) {
      payload.resume();
      return done(tooLarge(), undefined);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    payload.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > IMAGE_LIMITS.maxBytes) {
        settled = true;
        chunks.length = 0;
        done(tooLarge(), undefined);
        return;
      }
      chunks.push(chunk);
    });
    payload.on('end', () => {
      if (settled) return;
      settled = true;
      done(null, Buffer.concat(chunks, size));
    });
    payload.on('error', (err) => {
      if (settled) return;
      settled = true;
      done(err, undefined);
    });
  });
}

/** Path parameters are validated as usual; the body is the image itself, checked by inspectImage (not by a schema). */
const paramsAjv = new Ajv({ coerceTypes: 'array', allErrors: false, strict: false });
const IMAGE_BODY = { type: 'string', format: 'binary', description: 'The image bytes' } as const;

export function registerJourneyPieces(app: App, ctx: AppContext): void {
  app.register(async (scope) => {
    installImageBody(scope);
    (scope as App).put(
      '/v1/sessions/current/pieces/:kind',
      {
        config: { auth: 'session' },
        bodyLimit: IMAGE_LIMITS.maxBytes,
        validatorCompiler: ({ schema, httpPart }) => (httpPart === 'body' ? () => true : paramsAjv.compile(schema)),
        schema: {
          consumes: ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'application/octet-stream'],
          body: IMAGE_BODY,
          operationId: 'uploadJourneyPiece',
          tags: ['journey'],
          summary: 'Upload an image',
          description:
            'An image of the journey: a document side, the selfie, or one still per movement where the flow allows stills (liveness.allow_stills; ' +
            'otherwise 422 face_sequence_required: the movements come as the live sequence). The body is the image bytes (JPEG, PNG, WebP or AVIF, ' +
            'read from the bytes whatever the Content-Type; at most 10 MB; 480×320 to 8192 pixels a side). A retake replaces the piece of its kind.',
          security: JOURNEY_SECURITY,
          params: Type.Object({ kind: literals(PIECE_KINDS) }),
          response: {
            200: Type.Ref('Journey'),
            ...journeyErrors(
              'parameter_invalid',
              'journey_closed',
              'journey_step_blocked',
              'journey_step_not_asked',
              'document_not_chosen',
              'piece_not_expected',
              'face_sequence_required',
              'piece_limit_reached',
              'image_too_large',
              'image_type_unsupported',
              'image_unreadable',
              'image_dimensions_invalid',
            ),
          },
        },
      },
      async (req) => {
        const kind = req.params.kind as PieceKind;
        const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        // Checked, sealed and written before the transaction: decoding and writing (a synced file
        // of up to 10 MB) hold no lock and no connection, which matters most on the embedded
        // database (one connection for everything).
        const image = await inspectImage(bytes);
        const blobs = pieceBlobs(ctx);
        const fingerprint = blobs.fingerprint(bytes);
        const { session } = journeyOf(req);
        const keyClass = pieceKeyClass(kind);
        const id = newId('pc', ctx.now().getTime());
        if (!(await blobs.put(ctx.db, session.caseId, id, keyClass, bytes, ctx.now()))) {
          throw new ApiError('journey_closed', 'The personal data of this case has been erased.');
        }
        let inserted = false;
        let kept = false;
        try {
          const state = await journeyWrite(ctx, req, async (tx, j, now, afterCommit) => {
            requireStep(j, kind.startsWith('document_') ? 'document' : 'face');
            const expected = pieceExpectation(j.flow, j.progress, kind);
            if (!expected.ok) throw new ApiError(expected.code, expected.message, 'kind');
            const current = j.pieces.find((p) => p.kind === kind);
            if (current?.contentHmac === fingerprint) return; // the same image again (a retried upload)
            if ((await countPieceUploads(tx, j.caseRow.id, kind)) >= IMAGE_LIMITS.maxUploadsPerKind) {
              throw new ApiError('piece_limit_reached', `At most ${IMAGE_LIMITS.maxUploadsPerKind} images of kind ${kind} are accepted for a case.`, 'kind');
            }
            if (current) {
              await supersedePiece(tx, current.id, now);
              afterCommit(() => blobs.delete(current.blobId));
            }
            await insertPiece(tx, {
              id,
              ...journeyRowOwner(j),
              kind,
              keyClass,
              blobId: id,
              contentType: image.type,
              sizeBytes: bytes.length,
              width: image.width,
              height: image.height,
              contentHmac: fingerprint,
              receivedAt: now,
            });
            await appendJournal(tx, j.tenant, {
              caseId: j.caseRow.id,
              actor: PERSON,
              action: 'journey.piece_received',
              detail: { piece_id: id, kind, size_bytes: bytes.length, ...(current ? { replaces: current.id } : {}) },
              at: now,
            });
            inserted = true;
          });
          kept = inserted; // committed
          return state;
        } finally {
          // Refused, a repeat of the current image, or a transaction that did not commit: the blob
          // written for this request is referenced by nothing.
          if (!kept) await blobs.delete(id).catch(() => {});
        }
      },
    );
  });
}
