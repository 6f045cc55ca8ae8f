import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { build } from '@idv/api';
import { loadConfig, type Config } from '@idv/config';
import { bootstrapDemoClient, type DemoCredentials } from '../../apps/api/src/bootstrap.ts';
import type { App, AppContext } from '../../apps/api/src/context.ts';
import { signedHeaders } from '@idv/sdk';
import { MasterKeyring, generateMasterKey } from '@idv/vault';
import type { Database } from '@idv/db';
import { freshDatabase } from './database.ts';
import { TestClock } from './clock.ts';
import { signing } from './signing.ts';

export interface Credentials {
  secret: string;
  signingSecret: string;
  id: string;
}

/** A console credential: no signing secret, since it signs nothing. */
export interface ConsoleCredentials {
  secret: string;
  signingSecret: null;
  id: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text, sent as is (for malformed JSON or exact bytes). */
  raw?: string;
  /** Defaults to the demo key; null sends no Authorization header. */
  key?: Credentials | ConsoleCredentials | null;
  signed?: boolean;
  idempotencyKey?: string;
  /** Signature time in Unix seconds; defaults to the test clock. */
  timestamp?: number;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: App;
  ctx: AppContext;
  database: Database;
  clock: TestClock;
  config: Config;
  demo: DemoCredentials;
  demoKey: Credentials;
  request(method: string, url: string, opts?: RequestOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export const DOCS_URL = 'http://docs.test';
export const JOURNEY_URL = 'http://journey.test';

/** The real app on a real fresh database (PGlite or PostgreSQL per TEST_DB), with the demo client bootstrapped. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const { database, drop } = await freshDatabase();
  const config = loadConfig({ DOCS_URL, JOURNEY_URL, LOG_LEVEL: 'silent', MASTER_KEY: generateMasterKey(), ...env });
  const keyring = new MasterKeyring(config.masterKey!);
  const clock = new TestClock();
  const demo = (await bootstrapDemoClient(database.db, keyring, clock.now()))!;
  const { app, ctx } = await build({ config, db: database.db, keyring, now: clock.now, logger: false });
  const demoKey = { id: demo.api_key.id, secret: demo.api_key.secret, signingSecret: demo.api_key.signing_secret };

  const request = (method: string, url: string, opts: RequestOptions = {}) => {
    const key = opts.key === undefined ? demoKey : opts.key;
    const payload = opts.raw ?? (opts.body === undefined ? '' : JSON.stringify(opts.body));
    const headers: Record<string, string> = {};
    if (key) headers.authorization = `Bearer ${key.secret}`;
    if (payload) headers['content-type'] = 'application/json';
    if (opts.signed && key) {
      const idempotencyKey = opts.idempotencyKey ?? randomUUID();
      // A console credential signs nothing: like the console, it sends the Idempotency-Key alone.
      if (key.signingSecret === null) headers['idempotency-key'] = idempotencyKey;
      else {
        const ts = opts.timestamp ?? signing.next(method, url, payload, Math.floor(clock.now().getTime() / 1000));
        Object.assign(headers, signedHeaders(key.signingSecret, method, url, payload, idempotencyKey, ts));
      }
    }
    Object.assign(headers, opts.headers);
    return app.inject({ method: method as 'GET', url, headers, payload: payload || undefined });
  };

  return {
    app,
    ctx,
    database,
    clock,
    config,
    demo,
    demoKey,
    request,
    close: async () => {
      await app.close();
      await drop();
    },
  };
}

/** Asserts the spec's error shape and returns the error object. */
export function errorOf(res: LightMyRequestResponse): { type: string; code: string; message: string; doc_url: string; request_id: string; field?: string } {
  const body = res.json();
  const keys = Object.keys(body.error).sort();
  const allowed = ['code', 'doc_url', 'field', 'message', 'request_id', 'type'];
  if (Object.keys(body).length !== 1 || keys.some((k) => !allowed.includes(k))) {
    throw new Error(`not the error shape: ${res.body}`);
  }
  if (!body.error.request_id.startsWith('req_') || body.error.request_id !== res.headers['x-request-id']) {
    throw new Error(`request_id missing or not echoed in X-Request-Id: ${res.body}`);
  }
  if (body.error.doc_url !== `${DOCS_URL}/errors/${body.error.code}`) throw new Error(`doc_url wrong: ${body.error.doc_url}`);
  return body.error;
}
