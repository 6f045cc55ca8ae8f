import * as client from 'openid-client';

export interface OidcSettings {
  /** The provider's issuer URL (discovery at `${issuer}/.well-known/openid-configuration`). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Extra scopes beside `openid` (space-separated); default none. */
  scopes?: string;
}

export interface AuthorizationStart {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * OpenID Connect through openid-client (certified): discovery, the authorization URL with PKCE
 * (S256), state and nonce, the code exchange with every check of the ID token (signature,
 * issuer, audience, expiry, nonce, state, and auth_time against max_age on a re-authentication),
 * and the provider's end-session URL. Discovery is retried at the next use when it failed.
 */
export class OidcClient {
  private config: Promise<client.Configuration> | null = null;

  constructor(
    private readonly settings: OidcSettings,
    private readonly redirectUri: string,
  ) {}

  get issuerOrigin(): string {
    return new URL(this.settings.issuer).origin;
  }

  private configuration(): Promise<client.Configuration> {
    if (!this.config) {
      const insecure = new URL(this.settings.issuer).protocol === 'http:';
      this.config = client
        .discovery(new URL(this.settings.issuer), this.settings.clientId, this.settings.clientSecret, undefined, insecure ? { execute: [client.allowInsecureRequests] } : undefined)
        .catch((err: unknown) => {
          this.config = null;
          throw err;
        });
    }
    return this.config;
  }

  async start(opts: { reauth: boolean }): Promise<AuthorizationStart> {
    const config = await this.configuration();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const params: Record<string, string> = {
      redirect_uri: this.redirectUri,
      scope: ['openid', ...(this.settings.scopes ?? '').split(' ').filter(Boolean)].join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    };
    // A re-authentication: the provider must ask for the credentials again, whatever its session.
    if (opts.reauth) Object.assign(params, { prompt: 'login', max_age: '0' });
    return { url: client.buildAuthorizationUrl(config, params).href, state, nonce, codeVerifier };
  }

  /** Exchanges the code of the callback URL; throws on any failed check. */
  async finish(callbackUrl: URL, expected: { state: string; nonce: string; codeVerifier: string; reauth: boolean }): Promise<{ idToken: string; subject: string; authTime: number | null }> {
    const config = await this.configuration();
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: expected.codeVerifier,
      expectedState: expected.state,
      expectedNonce: expected.nonce,
      idTokenExpected: true,
      // With max_age, openid-client checks that auth_time is present and recent.
      ...(expected.reauth ? { maxAge: 0 } : {}),
    });
    const claims = tokens.claims();
    if (!tokens.id_token || !claims?.sub) throw new Error('no ID token');
    // No auth_time (a provider that adds it only when max_age is asked): the token proves no
    // re-authentication to the service, which would refuse it as reauth_invalid; null says so.
    const authTime = typeof claims.auth_time === 'number' ? claims.auth_time : null;
    return { idToken: tokens.id_token, subject: claims.sub, authTime };
  }

  /** The provider's end-session URL (RP-initiated logout) when it offers one, else null. */
  async endSessionUrl(idToken: string, postLogoutRedirectUri: string): Promise<string | null> {
    const config = await this.configuration();
    if (!config.serverMetadata().end_session_endpoint) return null;
    return client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: postLogoutRedirectUri, client_id: this.settings.clientId }).href;
  }
}
