/**
 * SD-JWT VC (the PID): issuer signature by the x5c leaf chaining to an `sd_jwt_issuer` anchor,
 * every disclosure referenced by the signed digests, vct, validity, key binding JWT signed by the
 * credential's cnf.jwk for this request (nonce, audience, fresh iat, sd_hash), the claims, and the
 * status list. Parsing and disclosure digests through @sd-jwt; signatures through jose.
 */
import { createHash } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK, importX509 } from 'jose';
import { SDJwt } from '@sd-jwt/core';
import { digest } from '@sd-jwt/crypto-nodejs';
import { SD_JWT_PATHS, SD_JWT_TECHNICAL, country, isPidVct, isoDate } from './claims.ts';
import { refuse } from './refusal.ts';
import { checkStatusList } from './status-list.ts';
import { chainToAnchor, ChainError } from './x509.ts';
import type { ReadClaims, VerifiedPresentation, VerifyInput, WalletClaim } from './types.ts';

const SKEW_S = 60;
const KB_MAX_AGE_S = 300;

export async function verifySdJwt(token: string, input: VerifyInput): Promise<VerifiedPresentation> {
  const nowS = Math.floor(input.now.getTime() / 1000);
  let sdjwt: SDJwt;
  try {
    sdjwt = await SDJwt.fromEncode(token, digest);
  } catch {
    return refuse('wallet_presentation_invalid', 'the SD-JWT VC could not be parsed');
  }
  const jwt = sdjwt.jwt;
  if (!jwt?.header || !jwt.payload) return refuse('wallet_presentation_invalid', 'the SD-JWT VC has no issuer-signed JWT');
  const header = jwt.header as { alg?: string; typ?: string; x5c?: unknown };
  if (header.alg !== 'ES256') refuse('wallet_presentation_invalid', `issuer signature algorithm ${String(header.alg).slice(0, 10)} not accepted`);
  if (header.typ !== 'dc+sd-jwt' && header.typ !== 'vc+sd-jwt') refuse('wallet_presentation_invalid', 'typ is not dc+sd-jwt');
  if (!Array.isArray(header.x5c) || header.x5c.some((c) => typeof c !== 'string')) return refuse('wallet_issuer_untrusted', 'no x5c certificate chain in the SD-JWT VC header');
  const anchors = input.trustAnchors.filter((a) => a.kind === 'sd_jwt_issuer').map((a) => a.certificatePem);
  let chain: Awaited<ReturnType<typeof chainToAnchor>>;
  try {
    chain = await chainToAnchor((header.x5c as string[]).map((c) => new Uint8Array(Buffer.from(c, 'base64'))), anchors, input.now);
  } catch (e) {
    return refuse('wallet_issuer_untrusted', e instanceof ChainError ? e.message : 'the certificate chain could not be read');
  }
  const issuerJwt = token.slice(0, token.indexOf('~'));
  try {
    await compactVerify(issuerJwt, await importX509(chain.leaf.toString('pem'), 'ES256'));
  } catch {
    return refuse('wallet_presentation_invalid', "the issuer's signature does not verify");
  }
  // Every disclosure must be one the issuer signed a digest of: an edited or added one is refused.
  const signedDigests = new Set<string>();
  collectDigests(jwt.payload, signedDigests);
  for (const d of sdjwt.disclosures ?? []) {
    if (!signedDigests.has(createHash('sha256').update(d.encode()).digest('base64url'))) refuse('wallet_presentation_invalid', 'a disclosure does not match the digests the issuer signed');
    collectDigests(d.value, signedDigests); // digests nested in a disclosed object
  }
  const claims = (await sdjwt.getClaims(digest)) as Record<string, unknown>;
  if (!isPidVct(claims.vct)) refuse('wallet_presentation_invalid', 'vct is not a PID type');
  for (const k of ['iat', 'nbf', 'exp'] as const) if (claims[k] !== undefined && typeof claims[k] !== 'number') refuse('wallet_presentation_invalid', `${k} is not a number`);
  if (typeof claims.exp !== 'number') refuse('wallet_presentation_invalid', 'the credential has no exp');
  if ((claims.exp as number) + SKEW_S < nowS) refuse('wallet_credential_expired', 'exp is in the past');
  if (typeof claims.nbf === 'number' && claims.nbf - SKEW_S > nowS) refuse('wallet_credential_expired', 'nbf is in the future');
  if (typeof claims.iat === 'number' && claims.iat - SKEW_S > nowS) refuse('wallet_presentation_invalid', 'iat is in the future');

  // Key binding: signed by the credential's device key, for this request.
  const kb = token.slice(token.lastIndexOf('~') + 1);
  if (!kb) refuse('wallet_device_binding_invalid', 'no key binding JWT');
  const cnf = (claims.cnf as { jwk?: Record<string, unknown> } | undefined)?.jwk;
  if (!cnf || cnf.kty !== 'EC' || cnf.crv !== 'P-256' || 'd' in cnf) return refuse('wallet_presentation_invalid', 'the credential has no P-256 cnf.jwk');
  let kbPayload: { iat?: unknown; aud?: unknown; nonce?: unknown; sd_hash?: unknown };
  try {
    const kbHeader = decodeProtectedHeader(kb);
    if (kbHeader.typ !== 'kb+jwt' || kbHeader.alg !== 'ES256') throw new Error('header');
    const { payload } = await compactVerify(kb, await importJWK(cnf as never, 'ES256'));
    kbPayload = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return refuse('wallet_device_binding_invalid', "the key binding JWT is not signed by the credential's device key");
  }
  if (kbPayload.nonce !== input.nonce) refuse('wallet_device_binding_invalid', "the key binding JWT's nonce is not this request's");
  const audiences = input.mode === 'dc_api' ? [`origin:${input.origin}`, input.clientId] : [input.clientId];
  if (typeof kbPayload.aud !== 'string' || !audiences.includes(kbPayload.aud)) refuse('wallet_device_binding_invalid', "the key binding JWT's audience is not this verifier");
  if (typeof kbPayload.iat !== 'number' || kbPayload.iat > nowS + SKEW_S || kbPayload.iat < nowS - KB_MAX_AGE_S) refuse('wallet_device_binding_invalid', "the key binding JWT's iat is not fresh");
  const presented = token.slice(0, token.lastIndexOf('~') + 1);
  if (kbPayload.sd_hash !== createHash('sha256').update(presented).digest('base64url')) refuse('wallet_device_binding_invalid', "the key binding JWT's sd_hash is not the presentation's");

  // Only what was asked.
  const asked = new Set(input.claims.map((c) => SD_JWT_PATHS[c].join('/')));
  const disclosedPaths = disclosedClaimPaths(sdjwt);
  const extra = disclosedPaths.filter((p) => !asked.has(p));
  if (extra.length) refuse('wallet_claims_not_requested', `disclosed without being asked: ${extra.slice(0, 5).join(', ')}`);
  const read = readClaims(claims, input.claims);
  const statusChecked = await checkStatusList(claims.status, anchors, input.fetchStatusList, input.now);
  return {
    format: 'dc+sd-jwt',
    docType: claims.vct as string,
    claims: read.claims,
    ...(read.portrait ? { portrait: read.portrait } : {}),
    issuer: { subject: chain.leaf.subject, anchorFingerprint: chain.anchorFingerprint },
    validUntil: new Date((claims.exp as number) * 1000),
    statusChecked,
    claimsDisclosed: disclosedPaths.length,
  };
}

function collectDigests(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) {
      if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as Record<string, unknown>)['...'] === 'string') into.add((v as Record<string, string>)['...']);
      else collectDigests(v, into);
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '_sd' && Array.isArray(v)) for (const d of v) if (typeof d === 'string') into.add(d);
      collectDigests(v, into);
    }
  }
}

/** The paths of the disclosed claims, named from the top (age_equal_or_over/18), technical ones left out. */
function disclosedClaimPaths(sdjwt: SDJwt): string[] {
  const paths: string[] = [];
  const payload = sdjwt.jwt!.payload as Record<string, unknown>;
  for (const d of sdjwt.disclosures ?? []) {
    if (!d.key) continue; // an array element: counted with its claim
    const digestOf = createHash('sha256').update(d.encode()).digest('base64url');
    const top = Array.isArray(payload._sd) && (payload._sd as string[]).includes(digestOf);
    if (top) {
      if (!SD_JWT_TECHNICAL.has(d.key)) paths.push(d.key);
      continue;
    }
    const parent = Object.entries(payload).find(([, v]) => v && typeof v === 'object' && Array.isArray((v as { _sd?: unknown })._sd) && ((v as { _sd: string[] })._sd).includes(digestOf));
    paths.push(parent ? `${parent[0]}/${d.key}` : `?/${d.key}`);
  }
  return paths;
}

function readClaims(c: Record<string, unknown>, asked: WalletClaim[]): { claims: ReadClaims; portrait?: Uint8Array } {
  const claims: ReadClaims = {};
  const str = (v: unknown) => (typeof v === 'string' && v.length <= 200 ? v : undefined);
  const put = <K extends keyof ReadClaims>(k: K, v: ReadClaims[K] | null | undefined) => {
    if (v !== undefined && v !== null && asked.includes(k as WalletClaim)) claims[k] = v;
  };
  put('given_names', str(c.given_name));
  put('surname', str(c.family_name));
  put('birth_date', isoDate(c.birthdate));
  put('nationality', country(c.nationalities));
  put('issuing_country', country(c.issuing_country));
  put('document_number', str(c.document_number));
  put('expiry_date', isoDate(c.date_of_expiry));
  const age = (c.age_equal_or_over as Record<string, unknown> | undefined)?.['18'];
  if (typeof age === 'boolean' && asked.includes('age_over_18')) claims.age_over_18 = age;
  let portrait: Uint8Array | undefined;
  if (asked.includes('portrait') && typeof c.picture === 'string') {
    const m = /^data:image\/jpeg;base64,([A-Za-z0-9+/=]+)$/.exec(c.picture);
    if (m) portrait = new Uint8Array(Buffer.from(m[1], 'base64'));
  }
  return { claims, portrait };
}
