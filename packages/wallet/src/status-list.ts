/**
 * Revocation through the IETF token status list (draft-ietf-oauth-status-list), for both formats:
 * the credential's reference (`status.status_list`: `idx`, `uri`) read, the list fetched through
 * the caller's fetcher (its SSRF rules and limits), the Status List Token's signature checked
 * against the same trust anchors as the credential, its subject the referenced uri, not expired,
 * and the credential's status read at its index. The token is a JWT (`statuslist+jwt`, text) or a
 * CWT (`application/statuslist+cwt`, a COSE_Sign1 as bytes; ISO/IEC 18013-5's form for an mdoc).
 */
import { compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import { Sign1, cborDecode } from '@owf/mdoc';
import { StatusList, getListFromStatusListJWT, type BitsPerStatus } from '@sd-jwt/jwt-status-list';
import { mdocContext } from './mdoc-context.ts';
import { refuse } from './refusal.ts';
import { chainToAnchor } from './x509.ts';

const MAX_TOKEN = 2_000_000;
/** CWT claim keys (RFC 8392; the draft's 65533 for the status list). */
const CWT = { sub: 2, exp: 4, statusList: 65533 } as const;
/** COSE header `typ` (RFC 9596). */
const COSE_TYP = 16;

export async function checkStatusList(entry: unknown, anchorsPem: string[], fetchStatusList: (uri: string) => Promise<string | Uint8Array>, now: Date): Promise<boolean> {
  if (entry === undefined) return false;
  const ref = (entry as { status_list?: { idx?: unknown; uri?: unknown } } | null)?.status_list;
  if (!ref || !Number.isInteger(ref.idx) || (ref.idx as number) < 0 || typeof ref.uri !== 'string' || !/^https?:\/\//.test(ref.uri)) return refuse('wallet_presentation_invalid', 'malformed status reference');
  let token: string | Uint8Array;
  try {
    const fetched = await fetchStatusList(ref.uri);
    token = typeof fetched === 'string' ? fetched.trim() : fetched;
  } catch {
    return refuse('wallet_status_unavailable', 'the status list could not be fetched');
  }
  if (token.length > MAX_TOKEN) return refuse('wallet_status_unavailable', 'the status list is too large');
  let list: StatusList;
  try {
    list = typeof token === 'string' ? await fromJwt(token, ref.uri, anchorsPem, now) : await fromCwt(token, ref.uri, anchorsPem, now);
  } catch {
    return refuse('wallet_status_unavailable', 'the status list token is not signed by a trusted issuer, is for another uri, or is expired');
  }
  let status: number;
  try {
    status = list.getStatus(ref.idx as number);
  } catch {
    return refuse('wallet_status_unavailable', 'the status list does not hold the index');
  }
  // 0 is VALID; 1 INVALID (revoked), 2 SUSPENDED and the application-specific values all refuse.
  if (status !== 0) refuse('wallet_credential_revoked', `status ${status} at the credential's index`);
  return true;
}

async function fromJwt(token: string, uri: string, anchorsPem: string[], now: Date): Promise<StatusList> {
  const header = decodeProtectedHeader(token);
  if (header.typ !== 'statuslist+jwt' || header.alg !== 'ES256' || !Array.isArray(header.x5c)) throw new Error('header');
  const { leaf } = await chainToAnchor(
    header.x5c.map((c) => new Uint8Array(Buffer.from(c, 'base64'))),
    anchorsPem,
    now,
  );
  const { payload } = await compactVerify(token, await importX509(leaf.toString('pem'), 'ES256'));
  const claims = JSON.parse(new TextDecoder().decode(payload)) as { sub?: unknown; exp?: unknown };
  checkClaims(claims.sub, claims.exp, uri, now);
  return getListFromStatusListJWT(token);
}

/** The CWT form: @owf/mdoc's Sign1 (tagged or not), x5chain (protected or unprotected) to an anchor, ES256. */
async function fromCwt(token: Uint8Array, uri: string, anchorsPem: string[], now: Date): Promise<StatusList> {
  const sign1 = Sign1.decode(token);
  const typ = sign1.protectedHeaders.headers.get(COSE_TYP);
  if ((typ !== 'application/statuslist+cwt' && typ !== 'statuslist+cwt') || sign1.signatureAlgorithmName !== 'ES256' || !sign1.x5chain?.length) throw new Error('header');
  await chainToAnchor(sign1.x5chain, anchorsPem, now);
  if (!(await sign1.verifySignature({}, mdocContext))) throw new Error('signature');
  const claims = cborDecode(sign1.payload ?? new Uint8Array()) as Map<number, unknown>;
  if (!(claims instanceof Map)) throw new Error('claims');
  checkClaims(claims.get(CWT.sub), claims.get(CWT.exp), uri, now);
  const body = claims.get(CWT.statusList) as Map<string, unknown> | undefined;
  const bits = body instanceof Map ? body.get('bits') : undefined;
  const lst = body instanceof Map ? body.get('lst') : undefined;
  if (![1, 2, 4, 8].includes(bits as number) || !(lst instanceof Uint8Array)) throw new Error('status_list');
  return StatusList.decompressStatusList(Buffer.from(lst).toString('base64url'), bits as BitsPerStatus);
}

/** The subject is the uri the credential names (a list for another uri, replayed, does not count); `exp`, when present, not past. */
function checkClaims(sub: unknown, exp: unknown, uri: string, now: Date): void {
  if (sub !== uri) throw new Error('sub');
  if (exp !== undefined && (typeof exp !== 'number' || exp * 1000 < now.getTime())) throw new Error('exp');
}
