import { randomBytes } from 'node:crypto';
import {
  answerWalletRequest,
  appendJournal,
  countWalletRequests,
  findCase,
  findFlowById,
  findSession,
  insertPiece,
  insertWalletRequest,
  listTrustAnchors,
  supersedePiece,
  type SessionByToken,
  type Tenant,
  type WalletRequestRow,
} from '@idv/db';
import { newId, pieceKeyClass, walletClaimsFor, walletSettings, type CheckReason, type WalletFormat } from '@idv/domain';
import { pieceBlobs, walletPresentationPurpose, type StoredWalletPresentation } from '@idv/case-data';
import type { TrustAnchor, VerifiedPresentation, WalletClaim, WalletRefusal } from '@idv/wallet';
import { walletLibrary } from './wallet-library.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/api-error.ts';
import { inspectWalletPortrait } from './images.ts';
import { PERSON, journeyRowOwner, openJourney, requireOpen } from './journey-state.ts';
import { SANDBOX_STATUS_LIST_URI, sandboxStatusList, sandboxTrustAnchors } from './wallet-sandbox-issuer.ts';
import { walletVerifierFor } from './wallet-verifier.ts';

/**
 * The wallet in the journey (docs/wallet.md#the-wallet-in-a-case): a request per attempt, signed
 * with the client's verifier identity, asking for what the flow needs, bound to a fresh nonce and
 * answered once with an encrypted presentation. A refusal stores nothing from the credential (its
 * reason on the request row and in the journal); an accepted presentation's claims are sealed under
 * the case's data key and its portrait is a `wallet_portrait` piece under the biometric key, so
 * erasure and retention treat them as a document's reading and photos.
 */

export const WALLET_REQUEST_LIMITS = {
  /** A request is answered within this time of its issue. */
  ttlMs: 5 * 60_000,
  maxPerCase: 30,
  /** The encrypted response (a compact JWE): a PID with its portrait stays far below. */
  maxResponseChars: 1024 * 1024,
};

const keyAad = (id: string) => `wallet_request:${id}:key`;
const random = (bytes: number) => randomBytes(bytes).toString('base64url');

export type WalletMode = 'cross_device' | 'dc_api';
export type WalletRequestStatus = 'pending' | 'fetched' | 'accepted' | 'refused' | 'expired';

function walletRequestStatus(row: WalletRequestRow, now: Date): WalletRequestStatus {
  if (row.answeredAt) return row.outcome === 'accepted' ? 'accepted' : 'refused';
  if (row.expiresAt <= now) return 'expired';
  return row.fetchedAt ? 'fetched' : 'pending';
}

/** What the page follows of a request: never data. */
export function presentWalletRequest(row: WalletRequestRow, now: Date) {
  const status = walletRequestStatus(row, now);
  return {
    object: 'wallet_request' as const,
    id: row.id,
    mode: row.mode,
    status,
    ...(status === 'refused' ? { reason: row.outcome as WalletRefusal } : {}),
    expires_at: row.expiresAt.toISOString(),
  };
}

/** Where the wallet fetches the request object and posts its answer (the public API host). */
const walletUris = (apiBaseUrl: string, id: string) => ({
  requestUri: `${apiBaseUrl.replace(/\/$/, '')}/v1/wallet/requests/${id}`,
  responseUri: `${apiBaseUrl.replace(/\/$/, '')}/v1/wallet/responses/${id}`,
});

/** The journey's origin: the audience of a Digital Credentials API presentation. */
const journeyOrigin = (ctx: AppContext) => new URL(ctx.config.journeyUrl).origin;

export async function createWalletRequest(ctx: AppContext, session: SessionByToken, mode: WalletMode) {
  const now = ctx.now();
  const id = `wrq_${random(18)}`;
  const nonce = random(24);
  const state = random(24);
  const expiresAt = new Date(now.getTime() + WALLET_REQUEST_LIMITS.ttlMs);
  const { requestUri, responseUri } = walletUris(ctx.config.apiBaseUrl, id);
  return ctx.db.transaction(async (tx) => {
    const j = await openJourney(tx, session, now);
    requireOpen(j);
    requireWalletStep(j);
    if ((await countWalletRequests(tx, j.caseRow.id)) >= WALLET_REQUEST_LIMITS.maxPerCase) {
      throw new ApiError('wallet_request_limit_reached', `At most ${WALLET_REQUEST_LIMITS.maxPerCase} wallet requests are issued for a case.`);
    }
    const claims = walletClaimsFor(j.flow) as WalletClaim[];
    const { formats } = walletSettings(j.flow);
    const verifier = await walletVerifierFor(tx, ctx.keyring, j.tenant, ctx.config.apiBaseUrl, now);
    const { buildRequest } = await walletLibrary();
    const built = await buildRequest({
      verifier,
      claims,
      formats,
      nonce,
      state,
      mode,
      ...(mode === 'cross_device' ? { responseUri } : { expectedOrigins: [journeyOrigin(ctx)] }),
      expiresAt,
    });
    await insertWalletRequest(tx, {
      id,
      ...journeyRowOwner(j),
      mode,
      claims,
      nonce,
      state,
      encryptionKeySealed: ctx.keyring.seal(JSON.stringify(built.encryptionKey), keyAad(id)),
      requestJwt: built.requestJwt,
      issuedAt: now,
      expiresAt,
    });
    await appendJournal(tx, j.tenant, {
      caseId: j.caseRow.id,
      actor: PERSON,
      action: 'journey.wallet_requested',
      detail: { request_id: id, mode, claims, formats },
      at: now,
    });
    return {
      object: 'wallet_request' as const,
      id,
      mode,
      status: 'pending' as const,
      expires_at: expiresAt.toISOString(),
      claims,
      ...(mode === 'cross_device'
        ? {
            cross_device: {
              request_uri: requestUri,
              wallet_link: `openid4vp://?${new URLSearchParams({ client_id: verifier.clientId, request_uri: requestUri }).toString()}`,
            },
          }
        : { dc_api: built.dcApiRequest! }),
    };
  });
}

/** The wallet step must be one this round asks for, not already over. */
function requireWalletStep(j: Awaited<ReturnType<typeof openJourney>>): void {
  const steps = j.progress.resubmission ? j.flow.steps.filter((s) => (j.progress.resubmission as readonly string[]).includes(s)) : j.flow.steps;
  if (!steps.includes('wallet')) throw new ApiError('journey_step_not_asked', 'The journey of this case does not offer the wallet.', 'wallet');
  if (steps.includes('consent') && !j.progress.consented) throw new ApiError('journey_step_blocked', 'The consent step comes first.', 'consent');
  if (j.wallet.status) throw new ApiError('wallet_step_done');
  if (walletSettings(j.flow).document_fallback && j.progress.document) {
    throw new ApiError('wallet_step_done', 'The person chose the document instead of the wallet in this round.');
  }
}

/** The request object for the wallet (cross-device, fetched from request_uri); null when it cannot be answered any more. */
export function walletRequestObject(row: WalletRequestRow, now: Date): string | null {
  if (row.mode !== 'cross_device' || row.answeredAt || row.expiresAt <= now) return null;
  return row.requestJwt;
}

/** The formats of the flow the case was opened with (its version does not change). */
export async function requestFormats(ctx: AppContext, row: WalletRequestRow): Promise<WalletFormat[]> {
  const caseRow = await findCase(ctx.db, { clientId: row.clientId, environment: row.environment }, row.caseId);
  const flow = caseRow && (await findFlowById(ctx.db, caseRow.flowId));
  if (!flow) throw new Error('flow of the wallet request is missing');
  return walletSettings(flow.definition).formats;
}

export type WalletJudgement = { accepted: true } | { accepted: false; reason: WalletRefusal };

/**
 * Judges a wallet's answer to a request and records it, once. Throws ApiError when the request
 * cannot be answered (answered, expired, the journey closed); otherwise the outcome, recorded on
 * the request row with its journal entry (the claims and portrait kept only when accepted).
 */
export async function judgeWalletResponse(ctx: AppContext, row: WalletRequestRow, response: string, origin?: string): Promise<WalletJudgement> {
  requireAnswerable(row, ctx.now());
  // Refused before the request is used: the wallet may send the same answer again.
  if (ctx.walletVerification.busy) throw new ApiError('wallet_verification_busy');
  const tenant: Tenant = { clientId: row.clientId, environment: row.environment };
  const encryptionKey = JSON.parse(ctx.keyring.openText(row.encryptionKeySealed, keyAad(row.id))) as JsonWebKey;
  const verifier = await ctx.db.transaction((tx) => walletVerifierFor(tx, ctx.keyring, tenant, ctx.config.apiBaseUrl, ctx.now()));
  const anchors: TrustAnchor[] = (await listTrustAnchors(ctx.db, tenant)).map((a) => ({ kind: a.kind, certificatePem: a.certificatePem }));
  const sandbox = tenant.environment === 'sandbox';
  if (sandbox) anchors.push(...(await sandboxTrustAnchors(ctx)));
  const statusPolicy = { environment: tenant.environment, allowPrivateNetworks: ctx.config.webhooks.allowPrivateNetworks };
  const result = await ctx.walletVerification.verify({
    response,
    encryptionKey,
    nonce: row.nonce,
    clientId: row.mode === 'dc_api' ? `origin:${journeyOrigin(ctx)}` : verifier.clientId,
    mode: row.mode,
    ...(row.mode === 'dc_api' ? { origin: origin ?? journeyOrigin(ctx) } : { responseUri: walletUris(ctx.config.apiBaseUrl, row.id).responseUri }),
    claims: row.claims as WalletClaim[],
    formats: await requestFormats(ctx, row),
    trustAnchors: anchors,
    now: ctx.now(),
    statusPolicy,
    // The sandbox test issuer's status list (its credentials' revocation), published by the service itself.
    ...(sandbox ? { ownStatusLists: { [SANDBOX_STATUS_LIST_URI]: await sandboxStatusList(ctx) } } : {}),
  }).catch(() => ({ ok: false as const, reason: 'wallet_presentation_invalid' as const, detail: 'verification failed' }));

  if (!result.ok) {
    await record(ctx, row, { outcome: result.reason, presentation: null, portrait: null });
    return { accepted: false, reason: result.reason };
  }
  const p = result.presentation;
  let portrait: { bytes: Buffer; type: string; width: number; height: number } | null = null;
  if (p.portrait) {
    const bytes = Buffer.from(p.portrait);
    try {
      const image = await inspectWalletPortrait(bytes);
      portrait = { bytes, type: image.type, width: image.width, height: image.height };
    } catch {
      // A portrait the service cannot store is no presentation it can use.
      await record(ctx, row, { outcome: 'wallet_presentation_invalid', presentation: null, portrait: null });
      return { accepted: false, reason: 'wallet_presentation_invalid' };
    }
  }
  await record(ctx, row, { outcome: 'accepted', presentation: p, portrait });
  return { accepted: true };
}

function requireAnswerable(row: WalletRequestRow, now: Date): void {
  if (row.answeredAt) throw new ApiError('wallet_request_answered');
  if (row.expiresAt <= now) throw new ApiError('wallet_request_expired', `The wallet request expired at ${row.expiresAt.toISOString()}.`);
}

async function record(
  ctx: AppContext,
  row: WalletRequestRow,
  answer: { outcome: 'accepted' | CheckReason; presentation: VerifiedPresentation | null; portrait: { bytes: Buffer; type: string; width: number; height: number } | null },
): Promise<void> {
  const blobs = pieceBlobs(ctx);
  const pieceId = answer.portrait ? newId('pc', ctx.now().getTime()) : null;
  const keyClass = pieceKeyClass('wallet_portrait');
  if (answer.portrait && !(await blobs.put(ctx.db, row.caseId, pieceId!, keyClass, answer.portrait.bytes, ctx.now()))) {
    throw new ApiError('journey_closed', 'The personal data of this case has been erased.');
  }
  let kept = false;
  try {
    await ctx.db.transaction(async (tx) => {
      const now = ctx.now();
      const tenant: Tenant = { clientId: row.clientId, environment: row.environment };
      const session = await findSession(tx, tenant, row.sessionId);
      if (!session) throw new ApiError('journey_closed');
      const j = await openJourney(tx, session, now);
      requireOpen(j);
      if (j.journey.round !== row.round) throw new ApiError('wallet_request_expired', 'The wallet request belongs to an earlier round of the journey.');
      const accepted = answer.outcome === 'accepted' && answer.presentation;
      // A second acceptance in a round (two requests answered side by side) is refused: one identity per round.
      if (accepted && j.wallet.status === 'accepted') throw new ApiError('wallet_step_done');
      const sealed = accepted
        ? await ctx.vault.sealJson(tx, row.caseId, 'data', walletPresentationPurpose(row.id), storedOf(answer.presentation!, pieceId), now)
        : null;
      if (!(await answerWalletRequest(tx, row.id, { outcome: answer.outcome, presentationSealed: sealed }, now))) {
        throw new ApiError('wallet_request_answered');
      }
      if (accepted) {
        if (answer.portrait) {
          for (const old of j.pieces.filter((p) => p.kind === 'wallet_portrait')) await supersedePiece(tx, old.id, now);
          await insertPiece(tx, {
            id: pieceId!,
            clientId: row.clientId,
            environment: row.environment,
            caseId: row.caseId,
            sessionId: row.sessionId,
            round: row.round,
            kind: 'wallet_portrait',
            keyClass,
            blobId: pieceId!,
            contentType: answer.portrait.type,
            sizeBytes: answer.portrait.bytes.length,
            width: answer.portrait.width,
            height: answer.portrait.height,
            contentHmac: blobs.fingerprint(answer.portrait.bytes),
            receivedAt: now,
          });
        }
        const p = answer.presentation!;
        await appendJournal(tx, tenant, {
          caseId: row.caseId,
          actor: PERSON,
          action: 'journey.wallet_presented',
          detail: { request_id: row.id, mode: row.mode, format: p.format, doc_type: p.docType, claims_disclosed: p.claimsDisclosed, status_checked: p.statusChecked, portrait_piece_id: pieceId },
          at: now,
        });
      } else {
        await appendJournal(tx, tenant, { caseId: row.caseId, actor: PERSON, action: 'journey.wallet_refused', detail: { request_id: row.id, reason: answer.outcome }, at: now });
      }
    });
    kept = true;
  } finally {
    if (!kept && pieceId) await blobs.delete(pieceId).catch(() => {});
  }
}

function storedOf(p: VerifiedPresentation, portraitPieceId: string | null): StoredWalletPresentation {
  return {
    format: p.format,
    doc_type: p.docType,
    claims: p.claims,
    issuer: p.issuer,
    valid_until: p.validUntil.toISOString(),
    status_checked: p.statusChecked,
    claims_disclosed: p.claimsDisclosed,
    portrait_piece_id: portraitPieceId,
  };
}
