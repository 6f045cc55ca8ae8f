import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { findWalletRequest, markWalletRequestFetched } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { WALLET_REQUEST_LIMITS, judgeWalletResponse, walletRequestObject } from '../../services/wallet.ts';

/**
 * What the person's wallet calls (OpenID4VP 1.0, cross-device): no key, no session, the request's
 * id (144 random bits) is the only handle. The wallet fetches the signed request object from the
 * request_uri and posts its encrypted answer to the response_uri (direct_post.jwt, a form body).
 * Errors answer in OpenID4VP's shape ({ error, error_description }), never the service's.
 */

const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });
const OAuthError = Type.Object(
  { error: Type.String({ description: 'invalid_request' }), error_description: Type.String() },
  { description: 'OpenID4VP error (RFC 6749 §5.2 shape); the page that follows the request learns the refusal’s reason' },
);
/** The form body at most (the response field and its name, URL-encoded: a JWE is base64url, which needs no escaping). */
const FORM_LIMIT = WALLET_REQUEST_LIMITS.maxResponseChars + 4096;

const invalid = (reply: FastifyReply, status: number, description: string, error = 'invalid_request') =>
  reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description });

export function registerWalletRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/wallet/requests/:id',
    {
      config: { auth: 'none' },
      schema: {
        operationId: 'getWalletRequestObject',
        tags: ['wallet-protocol'],
        summary: 'Fetch the request object',
        description:
          'The signed request object (typ oauth-authz-req+jwt, signed by the client’s verifier certificate, x509_san_dns) the wallet fetches from request_uri; ' +
          'the page following the request then shows it fetched. 404 once answered or expired',
        security: [],
        params: Params,
        response: {
          200: { description: 'The request object (compact JWS)', content: { 'application/oauth-authz-req+jwt': { schema: { type: 'string' } } } },
          404: OAuthError,
        },
      },
    },
    async (req, reply) => {
      const row = await findWalletRequest(ctx.db, req.params.id);
      const now = ctx.now();
      const jwt = row && walletRequestObject(row, now);
      if (!row || !jwt) return invalid(reply, 404, 'No wallet request with this id is waiting for an answer.');
      await markWalletRequestFetched(ctx.db, row.id, now);
      return reply.header('cache-control', 'no-store').type('application/oauth-authz-req+jwt').send(jwt);
    },
  );

  app.register(async (scope) => {
    installFormBody(scope);
    scope.post(
      '/v1/wallet/responses/:id',
      {
        config: { auth: 'none' },
        bodyLimit: FORM_LIMIT,
        schema: {
          operationId: 'postWalletResponse',
          tags: ['wallet-protocol'],
          summary: 'Answer a request (direct_post.jwt)',
          description:
            'The wallet’s encrypted answer (response_mode direct_post.jwt): the form field response holds the compact JWE. Judged at once and answered once: ' +
            '200 {} when accepted; 400 invalid_request when refused (the reason reaches the page, journaled as journey.wallet_refused, nothing of the credential kept), ' +
            `already answered or expired. At most ${FORM_LIMIT} bytes`,
          security: [],
          params: Params,
          body: {
            content: {
              'application/x-www-form-urlencoded': {
                schema: {
                  type: 'object',
                  required: ['response'],
                  properties: { response: { type: 'string', maxLength: WALLET_REQUEST_LIMITS.maxResponseChars, description: 'The compact JWE' } },
                },
              },
            },
          } as never,
          response: { 200: Type.Object({}, { description: 'Accepted' }), 400: OAuthError, 404: OAuthError, 503: OAuthError },
        },
      },
      async (req, reply) => {
        const form = req.body as Record<string, unknown> | undefined;
        const response = typeof form?.response === 'string' ? form.response : null;
        const row = await findWalletRequest(ctx.db, (req.params as { id: string }).id);
        if (!row || row.mode !== 'cross_device') return invalid(reply, 404, 'No wallet request with this id.');
        if (!response || response.length > WALLET_REQUEST_LIMITS.maxResponseChars) return invalid(reply, 400, 'The form field response (a compact JWE) is missing or too long.');
        try {
          const judged = await judgeWalletResponse(ctx, row, response);
          if (!judged.accepted) return invalid(reply, 400, `The presentation was refused: ${judged.reason}.`);
          return reply.header('cache-control', 'no-store').send({});
        } catch (err) {
          if (err instanceof ApiError && err.status < 500) return invalid(reply, 400, err.message);
          // The request is still open: the wallet may send the same answer again (RFC 6749's code for it).
          if (err instanceof ApiError && err.code === 'wallet_verification_busy') return invalid(reply.header('retry-after', '5'), 503, err.message, 'temporarily_unavailable');
          throw err;
        }
      },
    );
  });
}

/** `application/x-www-form-urlencoded` bodies (direct_post.jwt), within the route's body limit. */
function installFormBody(scope: FastifyInstance): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
