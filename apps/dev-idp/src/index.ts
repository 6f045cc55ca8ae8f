import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdirSync } from 'node:fs';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { AccountFile, MAX_LOGIN, MAX_PASSWORD } from './accounts.ts';
import { loadOrCreateState } from './keys.ts';
import { STYLESHEET, STYLESHEET_PATH, messagePage, signInPage, signOutPage } from './pages.ts';

/**
 * The development OpenID provider (oidc-provider, a certified implementation): what `npm start`
 * runs when no OIDC_ISSUER is configured, so that the console can be tried without an identity
 * provider of one's own. One registered client, the console (authorization code + PKCE, a client
 * secret); accounts in a file; the console's consent is given automatically. Never in production.
 */
export interface DevIdpOptions {
  /** The issuer, IDP_URL (default http://localhost:8084); the server listens on its port. */
  issuer: string;
  /** Where the signing key, cookie keys, client secret and accounts are kept (created 0700). */
  dataDir: string;
  /** The console's public URL: redirect `${consoleUrl}/auth/callback`, post-logout `${consoleUrl}/signed-out`. */
  consoleUrl: string;
  clientId?: string;
  host?: string;
  /** Listen on this port instead of the issuer's (0: any free port; tests). */
  port?: number;
  /** Defaults to process.env.NODE_ENV; "production" refuses to start. */
  nodeEnv?: string;
}

export interface DevIdp {
  server: Server;
  issuer: string;
  jwksUrl: string;
  clientId: string;
  /** The console client's secret (generated once, kept in the data directory). */
  clientSecret: string;
  /** Adds an account (or resets its password) and returns its subject (the ID token's `sub`). */
  addAccount(login: string, password: string): string;
  close(): Promise<void>;
}

export const DEFAULT_IDP_URL = 'http://localhost:8084';
const DEFAULT_CLIENT_ID = 'idv-console';

const MAX_FORM_BYTES = 4_096;

export async function createDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  if ((options.nodeEnv ?? process.env.NODE_ENV) === 'production') {
    throw new Error('The development identity provider does not run with NODE_ENV=production: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET to your own provider.');
  }
  const issuer = options.issuer.replace(/\/+$/, '');
  const clientId = options.clientId ?? DEFAULT_CLIENT_ID;
  const consoleUrl = options.consoleUrl.replace(/\/+$/, '');
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const state = await loadOrCreateState(options.dataDir);
  const accounts = new AccountFile(options.dataDir);
  const consoleOrigin = new URL(consoleUrl).origin;
  // The sign-in form posts here, and the provider then redirects to the console: form-action names both.
  const csp = `default-src 'none'; style-src 'self'; form-action 'self' ${consoleOrigin}; frame-ancestors 'none'; base-uri 'none'`;

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: state.clientSecret,
        client_name: 'Operator console',
        redirect_uris: [`${consoleUrl}/auth/callback`],
        post_logout_redirect_uris: [`${consoleUrl}/signed-out`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        // Every ID token says when the person signed in: the sign-in itself then counts as a
        // re-authentication for REAUTH_MAX_AGE (the service refuses a token without auth_time).
        require_auth_time: true,
      },
    ],
    jwks: { keys: [state.signingKey as never] },
    cookies: { keys: state.cookieKeys },
    pkce: { required: () => true },
    // Lifetimes in seconds, set rather than left to the library's defaults (which it warns about at
    // every start): a provider session as long as the console's absolute session, tokens an hour.
    ttl: { Session: 12 * 3600, Grant: 12 * 3600, Interaction: 3600, AuthorizationCode: 60, AccessToken: 3600, IdToken: 3600 },
    responseTypes: ['code'],
    scopes: ['openid', 'profile'],
    claims: { openid: ['sub'], profile: ['preferred_username'] },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx: KoaContextWithOIDC, form: string) => {
          ctx.set('Content-Security-Policy', csp);
          ctx.type = 'html';
          ctx.body = signOutPage(form, ctx.host);
        },
        postLogoutSuccessSource: (ctx: KoaContextWithOIDC) => {
          ctx.set('Content-Security-Policy', csp);
          ctx.type = 'html';
          ctx.body = messagePage('Signed out', 'You are signed out of the development identity provider.');
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const account = accounts.find(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, preferred_username: account.login }) };
    },
    // The console is the provider's own first-party client: its consent is given, never asked.
    loadExistingGrant: async (ctx) => {
      const client = ctx.oidc.client!;
      const session = ctx.oidc.session!;
      const grantId = ctx.oidc.result?.consent?.grantId || session.grantIdFor(client.clientId);
      if (grantId) {
        const found = await ctx.oidc.provider.Grant.find(grantId);
        if (found) return found;
      }
      if (client.clientId !== clientId || !session.accountId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId, accountId: session.accountId });
      grant.addOIDCScope('openid profile');
      await grant.save();
      return grant;
    },
    renderError: (ctx, out) => {
      ctx.set('Content-Security-Policy', csp);
      ctx.type = 'html';
      ctx.body = messagePage('Sign-in problem', `${out.error}: ${out.error_description ?? ''}`);
    },
  };
  const provider = new Provider(issuer, configuration);
  const handleOidc = provider.callback();

  const html = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
    res.end(body);
  };

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, submit: boolean): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return html(res, 400, messagePage('Sign-in problem', 'This sign-in page is out of date; start again from the console.'));
    const action = `/interaction/${uid}`;
    const reauth = details.params.prompt === 'login' || details.params.max_age === 0 || details.params.max_age === '0';
    if (details.prompt.name === 'login') {
      if (!submit) return html(res, 200, signInPage({ action, reauth }));
      const form = await readForm(req);
      const login = form.get('login') ?? '';
      const password = form.get('password') ?? '';
      const account = login.length <= MAX_LOGIN && password.length <= MAX_PASSWORD ? accounts.verify(login, password) : null;
      if (!account) return html(res, 401, signInPage({ action, reauth, login: login.slice(0, MAX_LOGIN), error: 'The login or the password is wrong.' }));
      // A fresh sign-in every time it is asked for: auth_time is now.
      await provider.interactionFinished(req, res, { login: { accountId: account.subject } }, { mergeWithLastSubmission: false });
      return;
    }
    // Consent for the console (first-party): granted without a screen.
    if (details.prompt.name === 'consent' && details.params.client_id === clientId && details.session?.accountId) {
      const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ clientId, accountId: details.session.accountId });
      grant!.addOIDCScope('openid profile');
      const grantId = await grant!.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      return;
    }
    html(res, 400, messagePage('Sign-in problem', 'This client needs a consent the development provider does not give.'));
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const match = /^\/interaction\/([A-Za-z0-9_-]{1,64})$/.exec(url.pathname);
    if (url.pathname === STYLESHEET_PATH && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' });
      res.end(STYLESHEET);
      return;
    }
    if (match && (req.method === 'GET' || req.method === 'POST')) {
      interaction(req, res, match[1], req.method === 'POST').catch((err: Error) => {
        if (!res.headersSent) html(res, 400, messagePage('Sign-in problem', err.name === 'SessionNotFound' ? 'This sign-in has expired; start again from the console.' : 'The sign-in could not be completed; start again from the console.'));
        else res.end();
      });
      return;
    }
    handleOidc(req, res);
  });
  const listenPort = options.port ?? Number(new URL(issuer).port || 80);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, options.host ?? '127.0.0.1', () => resolve());
  });

  return {
    server,
    issuer,
    jwksUrl: `${issuer}/jwks`,
    clientId,
    clientSecret: state.clientSecret,
    addAccount: (login, password) => accounts.add(login, password),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return new URLSearchParams();
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new Error('form too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
