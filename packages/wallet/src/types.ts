import { WALLET_CLAIMS, type CheckReason, type WalletClaimName, type WalletFormat } from '@idv/domain';

/**
 * The public names of @idv/wallet (docs/wallet.md; the shared contract of issue 42). Other
 * workspaces code against exactly these: add, never change.
 */

/** What a flow may ask of a wallet, in the service's own words (mapped onto PID and mDL claim names): the domain's list. */
export type WalletClaim = WalletClaimName;
export { WALLET_CLAIMS };

/** `dc+sd-jwt`: a PID as SD-JWT VC; `mso_mdoc`: a PID or an mDL as ISO/IEC 18013-5 mdoc (the flow's formats). */
export type CredentialFormat = WalletFormat;

/** A refusal: one of the `wallet` check's reasons (packages/domain/src/check-reasons.ts). */
export type WalletRefusal = Extract<CheckReason, `wallet_${string}`>;

/** The verifier: its signing key, its certificate chain (leaf first) and its client identifier. */
export interface VerifierIdentity {
  privateJwk: JsonWebKey;
  certificateChainPem: string[];
  dnsName: string;
  /** `x509_san_dns:<dnsName>` */
  clientId: string;
}

export interface TrustAnchor {
  kind: 'iaca' | 'sd_jwt_issuer';
  certificatePem: string;
}

export interface CertificateFacts {
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  fingerprintSha256: string;
  isCa: boolean;
}

export interface RequestInput {
  verifier: VerifierIdentity;
  /** What the flow needs; portrait only when a face match is wanted. */
  claims: WalletClaim[];
  /** Which credential formats to accept (PID SD-JWT VC, PID/mDL mdoc). */
  formats: CredentialFormat[];
  /** Fresh, base64url, at least 128 bits each. */
  nonce: string;
  state: string;
  mode: 'cross_device' | 'dc_api';
  /** cross_device: where the wallet POSTs (direct_post.jwt). */
  responseUri?: string;
  /** dc_api: the journey's origin(s). */
  expectedOrigins?: string[];
  expiresAt: Date;
}

export interface BuiltRequest {
  /** The signed request object (typ oauth-authz-req+jwt, x5c = the verifier's chain). */
  requestJwt: string;
  /** The ephemeral ECDH-ES private key (P-256) the response is encrypted to: seal it. */
  encryptionKey: JsonWebKey;
  /** dc_api mode: what the page passes to navigator.credentials.get. */
  dcApiRequest?: { protocol: 'openid4vp-v1-signed'; data: { request: string } };
}

export interface VerifyInput {
  /** cross_device: the `response` form field (compact JWE); dc_api: the credential's `data.response` (compact JWE). */
  response: string;
  encryptionKey: JsonWebKey;
  nonce: string;
  /** cross_device: `x509_san_dns:<dns>`; in dc_api mode the audience is `origin:<origin>`. */
  clientId: string;
  mode: 'cross_device' | 'dc_api';
  origin?: string;
  responseUri?: string;
  claims: WalletClaim[];
  formats: CredentialFormat[];
  trustAnchors: TrustAnchor[];
  now: Date;
  /**
   * Fetches a token status list (the credential's status.status_list.uri); the caller enforces SSRF
   * rules and limits. Text for the JWT form (`application/statuslist+jwt`), bytes for the CWT form
   * (`application/statuslist+cwt`).
   */
  fetchStatusList: (uri: string) => Promise<string | Uint8Array>;
}

export type ReadClaims = Partial<Record<Exclude<WalletClaim, 'portrait' | 'age_over_18'>, string>> & { age_over_18?: boolean };

export interface VerifiedPresentation {
  format: CredentialFormat;
  /** e.g. 'eu.europa.ec.eudi.pid.1', 'org.iso.18013.5.1.mDL', or the SD-JWT VC's vct. */
  docType: string;
  /** Dates ISO yyyy-mm-dd, countries ISO alpha-2. */
  claims: ReadClaims;
  /** JPEG bytes, when asked and disclosed. */
  portrait?: Uint8Array;
  issuer: { subject: string; anchorFingerprint: string };
  validUntil: Date;
  statusChecked: boolean;
  claimsDisclosed: number;
}

export type VerifyResult =
  | { ok: true; presentation: VerifiedPresentation }
  | { ok: false; reason: WalletRefusal; detail: string /* technical, never personal data */ };

/** An input the caller can show as it is (a certificate that is not one, a request that cannot be built). */
export class WalletInputError extends Error {
  override name = 'WalletInputError';
}

// Each refusal is a reason of the `wallet` check: a rename there breaks the build here.
type Assert<T extends true> = T;
type _RefusalsAreCheckReasons = Assert<WalletRefusal extends CheckReason ? true : false>;
