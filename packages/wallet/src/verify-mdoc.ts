/**
 * mdoc (the mDL, the PID as mdoc): IssuerAuth's x5chain chaining to an `iaca` anchor (x509.ts),
 * then @owf/mdoc's verification — the MSO's signature and validity info, the value digest of
 * every disclosed element, the docType, and DeviceAuth's signature over the OpenID4VP session
 * transcript of this request (OpenID4VP 1.0 Annex B: client_id, nonce, the response key's JWK
 * thumbprint and response_uri; over the DC API: origin, nonce, thumbprint); then the MSO's token
 * status list reference, when it has one, through the same status-list.ts as the SD-JWT VC.
 */
import { calculateJwkThumbprint } from 'jose';
import { DeviceResponse, SessionTranscript, Verifier, cborDecode, type MobileSecurityObject, type VerificationAssessment } from '@owf/mdoc';
import { MDOC_DOCTYPES, MDOC_ELEMENTS, country, isoDate } from './claims.ts';
import { mdocContext } from './mdoc-context.ts';
import { Refusal, refuse } from './refusal.ts';
import { checkStatusList } from './status-list.ts';
import { chainToAnchor, ChainError, derOf } from './x509.ts';
import type { ReadClaims, VerifiedPresentation, VerifyInput, WalletClaim } from './types.ts';

const SKEW_S = 60;

export async function verifyMdoc(queryId: string, encoded: string, input: VerifyInput): Promise<VerifiedPresentation> {
  const expected = MDOC_DOCTYPES.find((d) => d.id === queryId)!;
  const bytes = new Uint8Array(Buffer.from(encoded, 'base64url'));
  // A document without a device signature is refused as such before the library's parser, which
  // rejects it as malformed.
  try {
    const raw = cborDecode(bytes) as Map<string, unknown>;
    for (const doc of (raw.get('documents') as Array<Map<string, unknown>> | undefined) ?? []) {
      const auth = (doc.get('deviceSigned') as Map<string, unknown> | undefined)?.get('deviceAuth') as Map<string, unknown> | undefined;
      if (!auth?.has('deviceSignature')) refuse('wallet_device_binding_invalid', 'the mdoc has no device signature');
    }
  } catch (e) {
    if (e instanceof Refusal) throw e;
    return refuse('wallet_presentation_invalid', 'the mdoc DeviceResponse is not CBOR');
  }
  let response: DeviceResponse;
  try {
    response = DeviceResponse.decode(bytes);
  } catch {
    return refuse('wallet_presentation_invalid', 'the mdoc DeviceResponse could not be parsed');
  }
  const documents = response.documents ?? [];
  if (response.status !== 0 || documents.length !== 1) refuse('wallet_presentation_invalid', 'the DeviceResponse must hold exactly one document');
  const document = documents[0];
  if (document.docType !== expected.docType) refuse('wallet_presentation_invalid', `docType is not ${expected.docType}`);
  const issuerAuth = document.issuerSigned.issuerAuth;
  // The docType the issuer signed, not only the one the wallet wrote beside it.
  let msoDocType: string;
  try {
    msoDocType = issuerAuth.mobileSecurityObject.docType;
  } catch {
    return refuse('wallet_presentation_invalid', 'the MSO could not be read');
  }
  if (msoDocType !== document.docType) refuse('wallet_presentation_invalid', "the MSO's docType is not the document's");
  const anchors = input.trustAnchors.filter((a) => a.kind === 'iaca').map((a) => a.certificatePem);
  let chain: Awaited<ReturnType<typeof chainToAnchor>>;
  try {
    chain = await chainToAnchor(issuerAuth.certificateChain, anchors, input.now);
  } catch (e) {
    return refuse('wallet_issuer_untrusted', e instanceof ChainError ? e.message : 'the x5chain could not be read');
  }
  const thumbprint = new Uint8Array(Buffer.from(await calculateJwkThumbprint(publicOf(input.encryptionKey), 'sha256'), 'base64url'));
  const sessionTranscript =
    input.mode === 'dc_api'
      ? await SessionTranscript.forOid4VpDcApi({ origin: input.origin ?? '', nonce: input.nonce, jwkThumbprint: thumbprint }, mdocContext)
      : await SessionTranscript.forOid4Vp({ clientId: input.clientId, nonce: input.nonce, jwkThumbprint: thumbprint, responseUri: input.responseUri ?? '' }, mdocContext);
  const failed: VerificationAssessment[] = [];
  try {
    await Verifier.verifyDeviceResponse(
      {
        deviceResponse: response,
        sessionTranscript,
        trustedCertificates: [derOf(chain.anchor)],
        disableCertificateChainValidation: true,
        now: input.now,
        skewSeconds: SKEW_S,
        onCheck: (check) => {
          if (check.status === 'FAILED') failed.push(check);
        },
      },
      mdocContext,
    );
  } catch {
    return refuse('wallet_presentation_invalid', 'the mdoc could not be verified');
  }
  // The most telling failure first: a forged or edited credential, then its dates, then the device.
  const validity = (c: VerificationAssessment) => c.check.startsWith('The MSO must be valid');
  const integrity = failed.find((c) => c.category !== 'DEVICE_AUTH' && !validity(c));
  if (integrity) refuse('wallet_presentation_invalid', integrity.check.slice(0, 200));
  if (failed.some(validity)) refuse('wallet_credential_expired', 'the MSO is outside its validity period');
  if (failed.some((c) => c.category === 'DEVICE_AUTH')) refuse('wallet_device_binding_invalid', "the device signature does not verify over this request's session transcript");

  // Only what was asked, in the expected namespace.
  const askedElements = new Map(input.claims.map((c) => [MDOC_ELEMENTS[c], c] as [string, WalletClaim]));
  const values = new Map<WalletClaim, unknown>();
  let disclosed = 0;
  for (const [namespace, items] of document.issuerSigned.issuerNamespaces.issuerNamespaces.entries()) {
    for (const item of items) {
      disclosed++;
      const claim = namespace === expected.namespace ? askedElements.get(item.elementIdentifier) : undefined;
      if (!claim) refuse('wallet_claims_not_requested', `disclosed without being asked: ${namespace.slice(0, 60)}/${item.elementIdentifier.slice(0, 60)}`);
      else values.set(claim, item.elementValue);
    }
  }
  const claims: ReadClaims = {};
  const str = (v: unknown) => (typeof v === 'string' && v.length <= 200 ? v : undefined);
  const set = <K extends keyof ReadClaims>(k: K, v: ReadClaims[K] | null | undefined) => {
    if (v !== undefined && v !== null) claims[k] = v;
  };
  set('given_names', str(values.get('given_names')));
  set('surname', str(values.get('surname')));
  set('birth_date', values.has('birth_date') ? isoDate(values.get('birth_date')) : undefined);
  set('nationality', values.has('nationality') ? country(values.get('nationality')) : undefined);
  set('issuing_country', values.has('issuing_country') ? country(values.get('issuing_country')) : undefined);
  set('document_number', str(values.get('document_number')));
  set('expiry_date', values.has('expiry_date') ? isoDate(values.get('expiry_date')) : undefined);
  const age = values.get('age_over_18');
  if (typeof age === 'boolean') claims.age_over_18 = age;
  const portrait = values.get('portrait');
  // The status list is signed under the same IACA anchors as the mdoc (ISO/IEC 18013-5 second edition).
  const statusChecked = await checkStatusList(msoStatus(issuerAuth.mobileSecurityObject), anchors, input.fetchStatusList, input.now);
  return {
    format: 'mso_mdoc',
    docType: document.docType,
    claims,
    ...(portrait instanceof Uint8Array ? { portrait: new Uint8Array(portrait) } : {}),
    issuer: { subject: chain.leaf.subject, anchorFingerprint: chain.anchorFingerprint },
    validUntil: issuerAuth.mobileSecurityObject.validityInfo.validUntil,
    statusChecked,
    claimsDisclosed: disclosed,
  };
}

/**
 * The MSO's `status` (draft-ietf-oauth-status-list, "Referenced Token in COSE": a map whose
 * `status_list` holds `idx` and `uri`), as the plain object status-list.ts reads for both
 * formats; undefined when the MSO has none. @owf/mdoc keeps keys its schema does not name, as
 * decoded CBOR (maps).
 */
function msoStatus(mso: MobileSecurityObject): unknown {
  const status = (mso.decodedStructure as unknown as { get(key: string): unknown }).get('status');
  if (status === undefined) return undefined;
  const plain = (v: unknown): unknown => (v instanceof Map ? Object.fromEntries([...v.entries()].filter(([k]) => typeof k === 'string')) : v);
  const top = plain(status);
  if (!top || typeof top !== 'object') return top;
  const list = (top as Record<string, unknown>).status_list;
  return { ...(top as Record<string, unknown>), status_list: plain(list) };
}

function publicOf(jwk: JsonWebKey) {
  const { kty, crv, x, y } = jwk;
  return { kty, crv, x, y } as { kty: string; crv: string; x: string; y: string };
}
