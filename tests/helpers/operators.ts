import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import {
  applyCaseTrigger,
  createFlowVersion,
  findCaseForUpdate,
  insertOperator,
  openReviewTask,
  storeCaseChecks,
  type OperatorRow,
  type Tenant,
} from '@idv/db';
import { STANDARD_FLOW, newId, type CheckReport, type OperatorRole, type Sensitivity } from '@idv/domain';
import { startTestApp, type ConsoleCredentials, type Credentials, type RequestOptions, type TestApp } from './app.ts';
import { issueKey } from './tenants.ts';

/**
 * A small identity provider for tests: a real key pair generated here, its public half served as
 * a JWKS over real HTTP on 127.0.0.1, and ID tokens signed with the private half. The service
 * verifies them exactly as it would a production provider's.
 */
interface TestIdp {
  issuer: string;
  jwksUrl: string;
  audience: string;
  /** An ID token for `sub`, re-authenticated at `authTime` (Unix seconds). */
  idToken(sub: string, authTime: number, extra?: { audience?: string; issuer?: string; expiresIn?: number }): Promise<string>;
  /** The same claims signed with a key the provider never published. */
  forgedToken(sub: string, authTime: number): Promise<string>;
  close(): Promise<void>;
}

async function startTestIdp(): Promise<TestIdp> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const forger = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/jwks') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const audience = 'idv-console';
  const sign = (key: CryptoKey, kid: string, sub: string, authTime: number, extra: { audience?: string; issuer?: string; expiresIn?: number } = {}) =>
    new SignJWT({ auth_time: authTime })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject(sub)
      .setIssuer(extra.issuer ?? base)
      .setAudience(extra.audience ?? audience)
      .setIssuedAt(authTime)
      .setExpirationTime(authTime + (extra.expiresIn ?? 3600))
      .sign(key);
  return {
    issuer: base,
    jwksUrl: `${base}/jwks`,
    audience,
    idToken: (sub, authTime, extra) => sign(privateKey, 'test-key-1', sub, authTime, extra),
    forgedToken: (sub, authTime) => sign(forger.privateKey, 'test-key-1', sub, authTime),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface ReviewTestApp extends TestApp {
  idp: TestIdp;
  tenant: Tenant;
  /** A console credential of the demo client (kind console). */
  consoleKey: ConsoleCredentials;
  /** Unix seconds on the test clock. */
  nowS(): number;
  /** A fresh re-authentication proof for an operator, on the test clock. */
  reauth(op: { subject: string | null }): Promise<string>;
  /** A request from the console acting for an operator, optionally re-authenticated. */
  asOperator(op: OperatorRow, method: string, url: string, opts?: RequestOptions & { reauth?: boolean }): ReturnType<TestApp['request']>;
}

export async function startReviewApp(env: Record<string, string> = {}): Promise<ReviewTestApp> {
  const idp = await startTestIdp();
  const t = await startTestApp({ OIDC_ISSUER: idp.issuer, OIDC_JWKS_URL: idp.jwksUrl, OIDC_AUDIENCE: idp.audience, ...env });
  const tenant: Tenant = { clientId: t.demo.client_id, environment: 'sandbox' };
  const consoleKey = await issueKey(t, { clientId: tenant.clientId, kind: 'console', name: 'console' });
  const nowS = () => Math.floor(t.clock.now().getTime() / 1000);
  const reauth = (op: { subject: string | null }) => idp.idToken(op.subject ?? 'none', nowS());
  const close = t.close;
  return Object.assign(t, {
    idp,
    tenant,
    consoleKey,
    nowS,
    reauth,
    asOperator: async (op: OperatorRow, method: string, url: string, opts: RequestOptions & { reauth?: boolean } = {}) => {
      const headers: Record<string, string> = { 'x-service-operator': op.id, ...opts.headers };
      if (opts.reauth) headers['x-service-reauthenticated-at'] = await reauth(op);
      return t.request(method, url, { key: consoleKey, ...opts, headers });
    },
    close: async () => {
      await close();
      await idp.close();
    },
  });
}

let subjects = 0;

/** An active operator with an attached subject, written directly (as the resolve route would leave it). */
export async function addOperator(
  t: ReviewTestApp,
  spec: { role: OperatorRole; countries?: string[]; sensitivity?: Sensitivity; name?: string; tenant?: Tenant; status?: 'active' | 'revoked' },
): Promise<OperatorRow> {
  const now = t.clock.now();
  subjects += 1;
  return insertOperator(t.database.db, {
    id: newId('op', now.getTime()),
    ...(spec.tenant ?? t.tenant),
    name: spec.name ?? `${spec.role} ${subjects}`,
    email: null,
    role: spec.role,
    countries: spec.countries ?? ['*'],
    sensitivity: spec.sensitivity ?? 'restricted',
    status: spec.status ?? 'active',
    subject: `idp-subject-${subjects}-${Math.random().toString(36).slice(2)}`,
    lastConnectionAt: now,
    createdBy: 'test',
    createdAt: now,
    updatedAt: now,
    revokedAt: spec.status === 'revoked' ? now : null,
  });
}

/** An activated flow `dual` (the standard flow with double validation) for the demo client. */
export async function activateDoubleValidationFlow(t: ReviewTestApp): Promise<void> {
  await t.database.db.transaction((tx) =>
    createFlowVersion(tx, t.tenant, 'dual', { ...STANDARD_FLOW, double_validation: true }, t.clock.now(), true),
  );
}

/**
 * A case of the demo client put in review the way the service does it: opened through the API,
 * its submission completed (the journey's transition), then sent to review with openReviewTask.
 */
export async function caseInReview(
  t: ReviewTestApp,
  spec: { country?: string; riskScore?: number; sensitivity?: Sensitivity; flow?: string; dueAt?: Date; checks?: CheckReport[]; externalRef?: string } = {},
): Promise<{ caseId: string; taskId: string }> {
  const body = { flow_name: spec.flow ?? 'standard', country: spec.country ?? 'FR', ...(spec.externalRef ? { external_ref: spec.externalRef } : {}) };
  const created = await t.request('POST', '/v1/cases', { signed: true, body });
  if (created.statusCode !== 201) throw new Error(`case creation failed: ${created.body}`);
  const caseId = created.json().id as string;
  const now = t.clock.now();
  const { task } = await t.database.db.transaction(async (tx) => {
    const row = (await findCaseForUpdate(tx, t.tenant, caseId))!;
    await applyCaseTrigger(tx, t.tenant, row, { type: 'submission_complete' }, now);
    // The reports as the checks runner stores them, when the test needs some (overrides).
    if (spec.checks) await storeCaseChecks(tx, t.tenant, caseId, spec.checks, [], now);
    return openReviewTask(
      tx,
      t.tenant,
      { caseId, riskScore: spec.riskScore ?? 50, sensitivity: spec.sensitivity ?? 'standard', reasons: ['faces_uncertain'], dueAt: spec.dueAt },
      now,
    );
  });
  // Later acts get later timestamps than the opening (ids and events sort by time).
  t.clock.advance(1000);
  return { caseId, taskId: task.id };
}
