/**
 * A wallet's answer, verified: decrypted with this request's key (ECDH-ES, A128GCM or A256GCM),
 * the vp_token holding one presentation for one of the request's credential queries, then the
 * format's own checks (verify-sd-jwt.ts, verify-mdoc.ts). Every refusal carries the `wallet`
 * check's reason and a technical detail without personal data.
 */
import { compactDecrypt, importJWK } from 'jose';
import { MDOC_DOCTYPES, SD_JWT_QUERY_ID } from './claims.ts';
import { Refusal, refuse } from './refusal.ts';
import { verifyMdoc } from './verify-mdoc.ts';
import { verifySdJwt } from './verify-sd-jwt.ts';
import type { VerifiedPresentation, VerifyInput, VerifyResult } from './types.ts';

const MAX_RESPONSE = 4_000_000;

export async function verifyPresentation(input: VerifyInput): Promise<VerifyResult> {
  try {
    return { ok: true, presentation: await verify(input) };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, reason: e.reason, detail: e.detail };
    // A library's error on hostile input: its message may quote the input, so it is not passed on.
    return { ok: false, reason: 'wallet_presentation_invalid', detail: `the presentation could not be verified (${e instanceof Error ? e.name : 'error'})` };
  }
}

async function verify(input: VerifyInput): Promise<VerifiedPresentation> {
  if (typeof input.response !== 'string' || input.response.length > MAX_RESPONSE) refuse('wallet_presentation_invalid', 'the response is missing or too large');
  if (input.mode === 'dc_api' && !input.origin) refuse('wallet_presentation_invalid', 'dc_api verification needs the origin');
  if (input.mode === 'cross_device' && !input.responseUri) refuse('wallet_presentation_invalid', 'cross_device verification needs the response_uri');
  let payload: { vp_token?: unknown };
  try {
    const { plaintext, protectedHeader } = await compactDecrypt(input.response, await importJWK(input.encryptionKey as never, 'ECDH-ES'), {
      keyManagementAlgorithms: ['ECDH-ES'],
      contentEncryptionAlgorithms: ['A128GCM', 'A256GCM'],
    });
    void protectedHeader;
    payload = JSON.parse(new TextDecoder().decode(plaintext));
  } catch {
    return refuse('wallet_presentation_invalid', "the response is not a JWE encrypted to this request's key");
  }
  const vpToken = payload?.vp_token;
  if (!vpToken || typeof vpToken !== 'object' || Array.isArray(vpToken)) return refuse('wallet_presentation_invalid', 'vp_token is not an object keyed by credential query id');
  const allowed = [
    ...(input.formats.includes('dc+sd-jwt') ? [SD_JWT_QUERY_ID] : []),
    ...(input.formats.includes('mso_mdoc') ? MDOC_DOCTYPES.map((d) => d.id) : []),
  ];
  const entries = Object.entries(vpToken as Record<string, unknown>);
  if (entries.length !== 1) refuse('wallet_presentation_invalid', 'vp_token must answer exactly one credential query');
  const [id, presentations] = entries[0];
  if (!allowed.includes(id)) refuse('wallet_presentation_invalid', 'vp_token answers a credential query the request did not make');
  if (!Array.isArray(presentations) || presentations.length !== 1 || typeof presentations[0] !== 'string') return refuse('wallet_presentation_invalid', 'vp_token must hold one presentation string for its query');
  return id === SD_JWT_QUERY_ID ? verifySdJwt(presentations[0], input) : verifyMdoc(id, presentations[0], input);
}
