/**
 * Revocation through the IETF token status list: the list is fetched through the caller's
 * fetcher (its SSRF rules and limits), its JWT signature checked against the same trust anchors
 * as the credential, and the credential's bit read.
 */
import { compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { refuse } from './refusal.ts';
import { chainToAnchor } from './x509.ts';

const MAX_TOKEN = 2_000_000;

export async function checkStatusList(entry: unknown, anchorsPem: string[], fetchStatusList: (uri: string) => Promise<string>, now: Date): Promise<boolean> {
  if (entry === undefined) return false;
  const ref = (entry as { status_list?: { idx?: unknown; uri?: unknown } } | null)?.status_list;
  if (!ref || !Number.isInteger(ref.idx) || (ref.idx as number) < 0 || typeof ref.uri !== 'string' || !/^https?:\/\//.test(ref.uri)) return refuse('wallet_presentation_invalid', 'malformed status reference');
  let token: string;
  try {
    token = (await fetchStatusList(ref.uri)).trim();
  } catch {
    return refuse('wallet_status_unavailable', 'the status list could not be fetched');
  }
  if (token.length > MAX_TOKEN) return refuse('wallet_status_unavailable', 'the status list is too large');
  try {
    const header = decodeProtectedHeader(token);
    if (header.typ !== 'statuslist+jwt' || header.alg !== 'ES256' || !Array.isArray(header.x5c)) throw new Error('header');
    const chain = header.x5c.map((c) => new Uint8Array(Buffer.from(c, 'base64')));
    const { leaf } = await chainToAnchor(chain, anchorsPem, now);
    const { payload } = await compactVerify(token, await importX509(leaf.toString('pem'), 'ES256'));
    const claims = JSON.parse(new TextDecoder().decode(payload)) as { sub?: string; exp?: number };
    if (claims.sub !== ref.uri) throw new Error('sub');
    if (typeof claims.exp === 'number' && claims.exp * 1000 < now.getTime()) throw new Error('exp');
  } catch {
    return refuse('wallet_status_unavailable', 'the status list token is not signed by a trusted issuer, or is expired');
  }
  let status: number;
  try {
    status = getListFromStatusListJWT(token).getStatus(ref.idx as number);
  } catch {
    return refuse('wallet_status_unavailable', 'the status list does not hold the index');
  }
  if (status !== 0) refuse('wallet_credential_revoked', `status ${status} at the credential's index`);
  return true;
}
