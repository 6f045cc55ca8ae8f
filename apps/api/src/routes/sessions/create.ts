import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { appendJournal, findCase, insertSession } from '@idv/db';
import { awaitsApplicant, newId } from '@idv/domain';
import { secretHash } from '@idv/vault';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { SIGNED_ERRORS, SignedHeaders, errorResponses } from '../../schemas/common.ts';
import { SessionCreatedSchema, presentSession } from './schemas.ts';

/** A journey link lives one hour at most, and never beyond the case itself. */
const SESSION_TTL_MS = 3_600_000;

export function registerCreateSession(app: App, ctx: AppContext): void {
  app.post(
    '/v1/sessions',
    {
      config: { signed: true },
      schema: {
        operationId: 'createSession',
        tags: ['sessions'],
        summary: 'Issue a journey link for a case that awaits the person (signed, idempotent)',
        headers: SignedHeaders,
        body: Type.Object(
          {
            case_id: Type.String({ minLength: 1, maxLength: 64 }),
            locale: Type.Optional(
              Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', default: 'en', description: 'Journey language (en, fr, de, es; others fall back to en)' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Ref(SessionCreatedSchema),
          ...errorResponses(...SIGNED_ERRORS, 'resource_not_found', 'case_not_awaiting_applicant'),
        },
      },
    },
    (req, reply) =>
      runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const { key, tenant } = authOf(req);
        const now = ctx.now();
        const found = await findCase(tx, tenant, req.body.case_id);
        if (!found) throw new ApiError('resource_not_found', 'No such case.', 'case_id');
        if (!awaitsApplicant(found.state) || found.expiresAt <= now) {
          const where = found.expiresAt <= now ? `expired at ${found.expiresAt.toISOString()}` : `is ${found.state} (status ${found.status})`;
          throw new ApiError(
            'case_not_awaiting_applicant',
            `The case ${where}; a journey link can be issued only while the case awaits the person (status created or collecting).`,
            'case_id',
          );
        }
        const token = randomBytes(32).toString('base64url');
        const id = newId('ses', now.getTime());
        const row = await insertSession(tx, {
          id,
          ...tenant,
          caseId: found.id,
          tokenHash: secretHash(token),
          locale: req.body.locale ?? 'en',
          createdBy: `key:${key.id}`,
          createdAt: now,
          expiresAt: new Date(Math.min(now.getTime() + SESSION_TTL_MS, found.expiresAt.getTime())),
        });
        await appendJournal(tx, tenant, { caseId: found.id, actor: `key:${key.id}`, action: 'session.created', detail: { session_id: id }, at: now });
        return { status: 201, body: { ...presentSession(row), url: `${ctx.config.journeyUrl}/#${token}` } };
      }),
  );
}
