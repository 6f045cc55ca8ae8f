import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { appendJournal, findCase, findPieceOfCase, type CaseRow, type Executor, type Tenant } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { operatorOf } from '../../http/operator.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { accessDetail, caseForOperator } from '../../services/case-access.ts';
import { pieceBlobs } from '@idv/case-data';
import { taskForOperator } from '../../services/review.ts';
import { INTEGRATION_ROUTE_ERRORS, OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { ImageViewsBusy } from '../../images/image-views.ts';
import { PIECE_VIEWS, PORTRAIT_SIDE, THUMBNAIL_SIDE, type PieceView } from '../../images/view-spec.ts';
import { literals } from '../../schemas/case.ts';

const IMAGE = { type: 'string', format: 'binary' } as const;
/** The binary answer, per image type the journey accepts. */
const IMAGE_RESPONSE = {
  description: 'The image bytes, in the type they were received (Cache-Control: no-store)',
  content: Object.fromEntries(['image/jpeg', 'image/png', 'image/webp', 'image/avif'].map((type) => [type, { schema: IMAGE }])),
};

const PieceOfCaseParams = Type.Object({ case_id: Type.String({ maxLength: 64 }), piece_id: Type.String({ maxLength: 64 }) });
const PieceOfTaskParams = Type.Object({ task_id: Type.String({ maxLength: 64 }), piece_id: Type.String({ maxLength: 64 }) });

/**
 * Which view of a piece the review station asks for: the image as received (default), a
 * thumbnail for lists, or the portrait cut from a document's front where the checks found its
 * face. Views are JPEG, made in worker threads.
 */
const ViewQuery = Type.Object(
  {
    view: Type.Optional(
      literals(PIECE_VIEWS, {
        description:
          `original (default): the image as received; thumbnail: at most ${THUMBNAIL_SIDE} pixels a side, JPEG; ` +
          `portrait: on a document_front, the face the checks compared, cut as a document portrait, at most ${PORTRAIT_SIDE} pixels a side, JPEG ` +
          '(404 portrait_not_found when none was found)',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * Serves a piece of a case: the download is journaled first (with the view asked for), then the
 * blob is opened under the case key of the piece's class (a portrait, selfie or liveness image
 * under the biometric key, never the data key), in the same transaction: if the journal write
 * fails nothing is read. A view is made from the opened bytes after the commit, off the event loop.
 */
async function servePiece(
  ctx: AppContext,
  reply: FastifyReply,
  find: (tx: Executor) => Promise<{ row: CaseRow; tenant: Tenant; actor: string; detail: Record<string, unknown> }>,
  pieceId: string,
  view: PieceView = 'original',
) {
  const now = ctx.now();
  const { bytes, contentType, faceBox } = await ctx.db.transaction(async (tx) => {
    const { row, tenant, actor, detail } = await find(tx);
    const piece = await findPieceOfCase(tx, row.id, pieceId);
    if (!piece) throw new ApiError('resource_not_found', 'No such piece for this case.', 'piece_id');
    if (piece.deletedAt) throw new ApiError('piece_unavailable', `The image was deleted at ${piece.deletedAt.toISOString()}.`, 'piece_id');
    if (view === 'portrait') {
      if (piece.kind !== 'document_front') throw new ApiError('parameter_invalid', 'A portrait is cut from a document_front piece only.', 'view');
      if (!piece.faceBox) throw new ApiError('portrait_not_found', undefined, 'piece_id');
    }
    const viewDetail = view === 'original' ? {} : { view };
    await appendJournal(tx, tenant, { caseId: row.id, actor, action: 'piece.downloaded', detail: { ...detail, piece_id: piece.id, kind: piece.kind, ...viewDetail }, at: now });
    const opened = await pieceBlobs(ctx).read(tx, piece);
    if (!opened) throw new ApiError('piece_unavailable', 'The image can no longer be opened.', 'piece_id');
    return { bytes: opened, contentType: piece.contentType, faceBox: piece.faceBox };
  });
  const answer = (body: Uint8Array, type: string) =>
    reply.header('cache-control', 'no-store').header('content-disposition', 'inline').type(type).send(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  if (view === 'original') return answer(bytes, contentType);
  try {
    const made = await ctx.imageViews.make(view === 'portrait' ? { view, image: bytes, face: faceBox! } : { view, image: bytes });
    return answer(made.bytes, made.contentType);
  } catch (err) {
    if (err instanceof ImageViewsBusy) throw new ApiError('image_views_busy');
    throw err;
  }
}

export function registerImageRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/cases/:case_id/images/:piece_id',
    {
      config: { permission: 'personal_data' },
      schema: {
        operationId: 'getCaseImage',
        tags: ['cases'],
        summary: "Download a case's image",
        description:
          'An image of the case (document side, selfie, liveness challenge image); key permission personal_data; never cached; the download is journaled ' +
          'before the image is read. An image deleted (retake, retention, erasure): 410 piece_unavailable',
        params: PieceOfCaseParams,
        response: { 200: IMAGE_RESPONSE, ...errorResponses(...INTEGRATION_ROUTE_ERRORS, 'permission_denied', 'resource_not_found', 'piece_unavailable') },
      },
    },
    async (req, reply) => {
      const { key, tenant } = authOf(req);
      return servePiece(
        ctx,
        reply,
        async (tx) => {
          const row = await findCase(tx, tenant, req.params.case_id);
          if (!row) throw new ApiError('resource_not_found', 'No such case.', 'case_id');
          return { row, tenant, actor: `key:${key.id}`, detail: { via: 'image' } };
        },
        req.params.piece_id,
      );
    },
  );

  app.get(
    '/v1/reviews/:task_id/pieces/:piece_id',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'getReviewPiece',
        tags: ['reviews'],
        summary: "Download a task's piece",
        description:
          'An image of the task’s case, served by the service (no signed address), journaled as downloaded; the portrait and the selfie are unsealed ' +
          'under the case’s biometric key, distinct from its data key',
        params: PieceOfTaskParams,
        querystring: ViewQuery,
        response: {
          200: IMAGE_RESPONSE,
          ...errorResponses(...VALIDATION_ERRORS, ...OPERATOR_ROUTE_ERRORS, 'resource_not_found', 'piece_unavailable', 'portrait_not_found', 'image_views_busy'),
        },
      },
    },
    async (req, reply) => {
      const { operator, tenant, actor } = operatorOf(req);
      return servePiece(
        ctx,
        reply,
        async (tx) => {
          const task = await taskForOperator(tx, tenant, operator, req.params.task_id);
          const row = (await findCase(tx, tenant, task.caseId))!;
          return { row, tenant, actor, detail: { via: 'review', task_id: task.id, ...accessDetail(operator, null) } };
        },
        req.params.piece_id,
        req.query.view,
      );
    },
  );

  app.get(
    '/v1/cases/:case_id/pieces/:piece_id',
    {
      config: { operator: { ability: 'readCase' } },
      schema: {
        operationId: 'getCasePiece',
        tags: ['reviews'],
        summary: "Download a case's piece",
        description:
          'A piece of the case (Op); never cached; journaled as downloaded. Within the clearance, or for a support account through a support grant in force',
        params: PieceOfCaseParams,
        querystring: ViewQuery,
        response: {
          200: IMAGE_RESPONSE,
          ...errorResponses(...VALIDATION_ERRORS, ...OPERATOR_ROUTE_ERRORS, 'resource_not_found', 'piece_unavailable', 'portrait_not_found', 'image_views_busy'),
        },
      },
    },
    async (req, reply) => {
      const { operator, tenant, actor } = operatorOf(req);
      return servePiece(
        ctx,
        reply,
        async (tx) => {
          const { row, grant } = await caseForOperator(tx, tenant, operator, req.params.case_id, ctx.now());
          return { row, tenant, actor, detail: { via: 'piece', ...accessDetail(operator, grant) } };
        },
        req.params.piece_id,
        req.query.view,
      );
    },
  );
}
