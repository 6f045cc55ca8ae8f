import { Type } from '@sinclair/typebox';
import { findWalletRequestOfCase } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { journeyOf } from '../../http/session-auth.ts';
import { BODY_ERRORS } from '../../schemas/common.ts';
import { WALLET_REQUEST_LIMITS, createWalletRequest, judgeWalletResponse, presentWalletRequest } from '../../services/wallet.ts';
import { SANDBOX_WALLET_CREDENTIALS, SANDBOX_WALLET_CREDENTIAL_TYPES, SANDBOX_WALLET_OUTCOMES, presentWithSandboxWallet } from '../../services/wallet-sandbox-wallet.ts';
import { JOURNEY_SECURITY, journeyErrors } from './schemas.ts';

/**
 * The wallet step as the journey page drives it (docs/wallet.md#the-wallet-in-a-case): a request
 * per attempt (a QR code and link for a wallet on another device, or the browser's Digital
 * Credentials API), followed by polling; the same-device answer comes back through the page.
 * Only the session's own case's requests are found.
 */

const RequestParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export function registerJourneyWallet(app: App, ctx: AppContext): void {
  app.post(
    '/v1/sessions/current/wallet/requests',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'createWalletRequest',
        tags: ['journey'],
        summary: 'Ask the wallet',
        description:
          'A signed OpenID4VP request for what the flow needs (wallet.claims of the journey state), bound to a fresh nonce and answered once within ' +
          `${WALLET_REQUEST_LIMITS.ttlMs / 60_000} minutes: cross_device gives the request_uri and the openid4vp:// link for a QR code; dc_api gives what the page ` +
          `passes to navigator.credentials.get. At most ${WALLET_REQUEST_LIMITS.maxPerCase} per case; journaled as journey.wallet_requested`,
        security: JOURNEY_SECURITY,
        body: Type.Object({ mode: Type.Union([Type.Literal('cross_device'), Type.Literal('dc_api')]) }, { additionalProperties: false }),
        response: {
          201: Type.Ref('WalletRequestCreated'),
          ...journeyErrors(...BODY_ERRORS, 'journey_closed', 'journey_step_blocked', 'journey_step_not_asked', 'wallet_step_done', 'wallet_request_limit_reached'),
        },
      },
    },
    async (req, reply) => reply.code(201).send(await createWalletRequest(ctx, journeyOf(req).session, req.body.mode)),
  );

  app.get(
    '/v1/sessions/current/wallet/requests/:id',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'getWalletRequest',
        tags: ['journey'],
        summary: 'Follow a wallet request',
        description: 'Where a request stands (the page polls it while the wallet on the other device answers): no data, the refusal’s reason only',
        security: JOURNEY_SECURITY,
        params: RequestParams,
        response: { 200: Type.Ref('WalletRequest'), ...journeyErrors('resource_not_found') },
      },
    },
    async (req) => {
      const { session } = journeyOf(req);
      const row = await findWalletRequestOfCase(ctx.db, session.caseId, req.params.id);
      // Another session (of another case, or the phone of a handoff) does not see this session's requests.
      if (!row || row.sessionId !== session.id) throw new ApiError('resource_not_found', 'No wallet request of this session has this id.', 'id');
      return presentWalletRequest(row, ctx.now());
    },
  );

  app.post(
    '/v1/sessions/current/wallet/requests/:id/response',
    {
      config: { auth: 'session' },
      bodyLimit: WALLET_REQUEST_LIMITS.maxResponseChars + 4096,
      schema: {
        operationId: 'answerWalletRequest',
        tags: ['journey'],
        summary: 'Send the same-device presentation',
        description:
          'The Digital Credentials API’s answer to a dc_api request (the credential’s data.response, an encrypted presentation), judged at once: ' +
          'accepted (journey.wallet_presented) or refused with its reason (journey.wallet_refused, nothing of the credential kept). A request is answered once',
        security: JOURNEY_SECURITY,
        params: RequestParams,
        body: Type.Object(
          { response: Type.String({ minLength: 1, maxLength: WALLET_REQUEST_LIMITS.maxResponseChars, description: 'The compact JWE the wallet returned' }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Ref('WalletRequest'),
          ...journeyErrors(...BODY_ERRORS, 'resource_not_found', 'journey_closed', 'wallet_request_answered', 'wallet_request_expired', 'wallet_step_done', 'wallet_verification_busy'),
        },
      },
    },
    async (req) => {
      const { session } = journeyOf(req);
      const row = await findWalletRequestOfCase(ctx.db, session.caseId, req.params.id);
      if (!row || row.sessionId !== session.id) throw new ApiError('resource_not_found', 'No wallet request of this session has this id.', 'id');
      if (row.mode !== 'dc_api') throw new ApiError('resource_not_found', 'A cross_device request is answered by the wallet itself (its response_uri).', 'id');
      await judgeWalletResponse(ctx, row, req.body.response);
      const answered = await findWalletRequestOfCase(ctx.db, session.caseId, row.id);
      return presentWalletRequest(answered!, ctx.now());
    },
  );

  app.post(
    '/v1/sessions/current/wallet/requests/:id/sandbox-presentation',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'presentWithSandboxWallet',
        tags: ['journey'],
        summary: 'Present with the sandbox test wallet',
        description:
          'Sandbox only (404 sandbox_only in production): the service’s own test wallet answers this pending request with a credential the sandbox test issuer ' +
          'issues on the spot (the names, birth date, nationality and document number the person entered or the client declared, sandbox defaults otherwise), ' +
          'through the same verification as a real wallet’s answer: accepted (journey.wallet_presented) or refused with its reason (journey.wallet_refused). ' +
          'An outcome other than accepted makes the credential or the presentation wrong on purpose to rehearse a refusal (docs/wallet.md#try-the-whole-path-in-the-sandbox)',
        security: JOURNEY_SECURITY,
        params: RequestParams,
        body: Type.Object(
          {
            credential: Type.Optional(
              Type.Union(
                SANDBOX_WALLET_CREDENTIALS.map((c) => Type.Literal(c)),
                { description: `The credential presented, one the flow’s wallet.formats allow: ${SANDBOX_WALLET_CREDENTIALS.map((c) => `${c}: ${SANDBOX_WALLET_CREDENTIAL_TYPES[c]}`).join('; ')}. Default: the first the request asks for` },
              ),
            ),
            outcome: Type.Optional(
              Type.Union(
                Object.keys(SANDBOX_WALLET_OUTCOMES).map((o) => Type.Literal(o)),
                {
                  description: `What to rehearse (default accepted): ${Object.entries(SANDBOX_WALLET_OUTCOMES)
                    .filter(([, reason]) => reason)
                    .map(([o, reason]) => `${o} is refused with ${reason}`)
                    .join('; ')}`,
                },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Ref('WalletRequest'),
          ...journeyErrors(
            ...BODY_ERRORS,
            'sandbox_only',
            'sandbox_wallet_choice_invalid',
            'resource_not_found',
            'journey_closed',
            'wallet_request_answered',
            'wallet_request_expired',
            'wallet_step_done',
            'wallet_verification_busy',
          ),
        },
      },
    },
    async (req) => {
      const body = req.body as { credential?: (typeof SANDBOX_WALLET_CREDENTIALS)[number]; outcome?: keyof typeof SANDBOX_WALLET_OUTCOMES };
      return presentWithSandboxWallet(ctx, journeyOf(req).session, req.params.id, body);
    },
  );
}
