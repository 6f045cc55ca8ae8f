import { mkdtempSync, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createConsoleServer, type ConsoleAssets } from '@idv/console';
import { createDevIdp, type DevIdp } from '@idv/dev-idp';
import { startTestApp, type ConsoleCredentials, type TestApp } from './app.ts';
import { freePort } from './processes.ts';
import { issueKey } from './tenants.ts';

/**
 * One development provider, one service and one console server, each on its own port of
 * 127.0.0.1, talking real HTTP; the console's clock can be moved (session timeouts) while the
 * provider and the service keep the real time.
 */
export interface ConsoleStack {
  idp: DevIdp;
  api: TestApp;
  apiUrl: string;
  consoleUrl: string;
  consoleKey: ConsoleCredentials;
  tenant: { clientId: string; environment: 'sandbox' };
  /** The console server's log lines (JSON), as written. */
  logs: string[];
  /** Moves the console server's clock forward. */
  advance(ms: number): void;
  close(): Promise<void>;
}

const TEST_ASSETS: ConsoleAssets = new Map([
  ['/index.html', { body: Buffer.from('<!doctype html><title>console</title><p>console app</p>'), contentType: 'text/html; charset=utf-8', immutable: false }],
  ['/assets/app-0123abcd.js', { body: Buffer.from('console.log(1)'), contentType: 'text/javascript; charset=utf-8', immutable: true }],
]);

/** `env`: the service's settings beyond the provider's (rate limits, say). */
export async function startConsoleStack(env: Record<string, string> = {}): Promise<ConsoleStack> {
  const dir = mkdtempSync(join(tmpdir(), 'idv-console-'));
  const consoleUrl = `http://127.0.0.1:${await freePort()}`;
  const idp = await createDevIdp({ issuer: `http://127.0.0.1:${await freePort()}`, dataDir: join(dir, 'idp'), consoleUrl });
  const api = await startTestApp({ ...env, OIDC_ISSUER: idp.issuer, OIDC_JWKS_URL: idp.jwksUrl, OIDC_AUDIENCE: idp.clientId });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const apiUrl = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  const tenant = { clientId: api.demo.client_id, environment: 'sandbox' as const };
  const consoleKey = await issueKey(api, { clientId: tenant.clientId, kind: 'console', name: 'console' });
  // The service checks auth_time against its clock: it follows the real time, like the provider's.
  const realTime = setInterval(() => api.clock.set(new Date()), 100);
  realTime.unref();
  let offset = 0;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const consoleServer = await createConsoleServer({
    assets: TEST_ASSETS,
    apiBaseUrl: apiUrl,
    consoleCredential: consoleKey.secret,
    oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret },
    consoleUrl,
    docsUrl: 'http://docs.test',
    db: api.database.db,
    keyring: api.ctx.keyring,
    now: () => new Date(Date.now() + offset),
    logger: pino({ level: 'info' }, sink),
  });
  await new Promise<void>((resolve) => consoleServer.server.listen(Number(new URL(consoleUrl).port), '127.0.0.1', resolve));
  return {
    idp,
    api,
    apiUrl,
    consoleUrl,
    consoleKey,
    tenant,
    logs,
    advance: (ms) => void (offset += ms),
    close: async () => {
      clearInterval(realTime);
      await consoleServer.close();
      await idp.close();
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A browser without a browser: a cookie jar (one host, 127.0.0.1) and redirects followed by hand,
 * so each hop can be looked at. Cookies are sent whatever their path (harmless here).
 */
export class Agent {
  readonly cookies = new Map<string, string>();
  readonly setCookieHeaders: string[] = [];

  async request(url: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(cookie ? { cookie } : {}), ...init.headers } });
    for (const line of res.headers.getSetCookie()) {
      this.setCookieHeaders.push(line);
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && new Date(a.split('=')[1]).getTime() < Date.now()));
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Follows redirects from `url` until an answer that is not one, or until `stop` says so for a URL. */
  async follow(url: string, stop?: (url: URL) => boolean): Promise<{ res: Response; url: URL; hops: URL[] }> {
    let current = new URL(url);
    const hops: URL[] = [];
    for (let i = 0; i < 20; i++) {
      hops.push(current);
      if (stop?.(current)) return { res: new Response(null, { status: 599 }), url: current, hops };
      const res = await this.request(current.href);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current, hops };
      current = new URL(location, current);
    }
    throw new Error('too many redirects');
  }

  /** At the provider's sign-in page (after following to it): submits login and password, follows on. */
  async signIn(formUrl: URL, login: string, password: string): Promise<{ res: Response; url: URL; hops: URL[] }> {
    const res = await this.request(formUrl.href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login, password }).toString(),
    });
    const location = res.headers.get('location');
    if (!location) throw new Error(`sign-in refused (${res.status}): ${await res.text()}`);
    return this.follow(new URL(location, formUrl).href);
  }
}
