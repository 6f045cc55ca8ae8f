import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import { reauthIsRecent } from '@idv/domain';
import type { ReauthConfig } from '@idv/config';
import { ApiError } from '../http/api-error.ts';

/** Asymmetric algorithms only: a shared-secret (HS*) token could be forged by anyone holding the secret. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** A compact JWS: three base64url parts; ID tokens are far below this size. */
const COMPACT_JWS = /^[A-Za-z0-9_-]{1,4096}\.[A-Za-z0-9_-]{1,8192}\.[A-Za-z0-9_-]{1,1024}$/;

/**
 * Proof of a recent re-authentication: the OIDC ID token the identity provider issued when the
 * operator re-authenticated (prompt=login or max_age), sent unchanged in
 * X-Service-Reauthenticated-At. The service verifies its signature against the provider's JWKS,
 * its issuer, audience and expiry, that `sub` is the operator's attached subject, and that
 * `auth_time` is at most `maxAgeS` old on the service clock. Someone holding only the console
 * credential cannot forge it.
 */
export class ReauthVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    private readonly config: ReauthConfig,
    private readonly now: () => Date,
  ) {
    // Keys are cached and refetched when a token names an unknown key id (provider key rotation).
    this.jwks = createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
  }

  /** Throws reauth_required (missing or stale), reauth_invalid, or identity_provider_unavailable. */
  async verify(token: string | undefined, subject: string | null): Promise<void> {
    if (!token) throw new ApiError('reauth_required', 'This action requires X-Service-Reauthenticated-At: the ID token of a re-authentication within the last five minutes.');
    if (!COMPACT_JWS.test(token)) throw new ApiError('reauth_invalid', 'X-Service-Reauthenticated-At must be an ID token (a compact JWS).');
    if (!subject) throw new ApiError('reauth_invalid', 'The operator has no attached subject yet.');
    const now = this.now();
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['sub', 'exp', 'iat', 'auth_time'],
        currentDate: now,
        clockTolerance: 30,
      }));
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw new ApiError('reauth_required', 'The re-authentication token has expired: re-authenticate again.');
      if (err instanceof errors.JWKSTimeout || (err instanceof Error && !(err instanceof errors.JOSEError))) {
        throw new ApiError('identity_provider_unavailable');
      }
      throw new ApiError('reauth_invalid', 'The re-authentication token could not be verified (signature, issuer, audience or claims).');
    }
    if (payload.sub !== subject) throw new ApiError('reauth_invalid', 'The re-authentication token belongs to another subject than this operator.');
    const authTime = payload.auth_time;
    if (typeof authTime !== 'number' || !Number.isFinite(authTime)) throw new ApiError('reauth_invalid', 'The token carries no numeric auth_time.');
    if (!reauthIsRecent(authTime, Math.floor(now.getTime() / 1000), this.config.maxAgeS)) {
      throw new ApiError('reauth_required', `The last re-authentication is older than ${this.config.maxAgeS} seconds: re-authenticate again.`);
    }
  }
}
