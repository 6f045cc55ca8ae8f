import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { applyCaseTrigger, findCaseForUpdate, insertActiveOperator, openReviewTask, storeCaseChecks, type OperatorRow, type Tenant } from '@idv/db';
import { newId, type CheckReport, type OperatorRole, type Sensitivity } from '@idv/domain';
import { ChecksPool } from '@idv/engine';
import { MasterKeyring } from '@idv/vault';
import { WebhookDispatcher } from '@idv/worker';
import { createDevIdp, type DevIdp } from '../../apps/dev-idp/src/index.ts';
import { loadAssets } from '../../apps/console/src/load-assets.ts';
import { createConsoleServer } from '../../apps/console/src/server/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { DESKTOP, PHONE, launchChromium } from '../helpers/browser.ts';
import { screenAudits as sharedScreenAudits } from '../helpers/axe.ts';
import { ROOT, freePort } from '../helpers/processes.ts';
import { IMAGES, allowStills, fixture, journey, newSession } from '../helpers/journey.ts';
import { issueKey } from '../helpers/tenants.ts';
import { checksRunnerFor } from '../helpers/checks-runner.ts';
import { clipFrames } from '../helpers/liveness-clips.ts';

/**
 * The whole console for browser tests, once per file: the service (the real app on its own
 * database, listening on a real port), the development OpenID provider, the console server
 * serving the built web app, and Debian's Chromium. Everything on 127.0.0.1 over real HTTP.
 */
export interface ConsoleHarness {
  t: TestApp;
  tenant: Tenant;
  idp: DevIdp;
  consoleUrl: string;
  browser: Browser;
  /** An operator attached to a new account of the provider (every country and `restricted` unless said); its login and password. */
  operator(role: OperatorRole, name: string, clearance?: { countries?: string[]; sensitivity?: Sensitivity }): Promise<{ op: OperatorRow; login: string; password: string }>;
  /** A case of the demo client with declared data, sent to review as the checks engine does. */
  taskInReview(spec?: { riskScore?: number; dueAt?: Date; surname?: string; flow?: string; checks?: CheckReport[] }): Promise<{ caseId: string; taskId: string }>;
  /**
   * The person's whole journey for a case through the journey routes, with real photos from the
   * shared fixtures (passport page, selfie, two head turns as stills: the harness started with
   * `stills`), finished: the case waits for its checks. `filmed`: the head turns as a live
   * sequence instead, 16 frames of a real head-turn clip for a drawn challenge (a case whose
   * capture raises no presentation-attack reason; about a second more of the checks' CPU).
   */
  completeJourney(caseId: string, opts?: { filmed?: boolean }): Promise<void>;
  /** Runs every due checks job (harness started with `worker`); returns each job's outcome. */
  runChecks(): Promise<{ caseId: string; outcome: string }[]>;
  /**
   * A browser context of its own for an operator (phone or desktop, English unless said), signed in
   * through the provider's real pages, on `path`. Closed with the harness.
   */
  openAs(who: { login: string; password: string }, path: string, opts?: { viewport?: 'phone' | 'desktop'; locale?: string }): Promise<Page>;
  /** A browser context of its own, signed in as nobody (an invitation's first visit, say). Closed with the harness. */
  newContext(opts?: { viewport?: 'phone' | 'desktop'; locale?: string }): Promise<BrowserContext>;
  /** Moves the console server's clock forward (the service and the provider keep theirs). */
  advanceConsoleClock(ms: number): void;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /**
   * The service's clock follows the real time (as the provider's does, whose `auth_time` the
   * service checks) instead of moving only when told.
   */
  realTime?: boolean;
  /** The automated checks (a one-thread pool, jobs run by `runChecks`) and the webhook dispatcher run beside the service. */
  worker?: boolean;
  /** The webhook dispatcher alone runs beside the service (without the checks). */
  webhooks?: boolean;
  /**
   * The demo tenant's `standard` flow accepts stills (a second version, allowStills), for suites
   * whose cases go through `completeJourney`: it sends one still per movement, cheaper than a sequence.
   */
  stills?: boolean;
}

export const ARTIFACTS = join(ROOT, 'artifacts', 'console');
export { PHONE, DESKTOP };
export { saveScreenshot } from '../helpers/browser.ts';

export async function startConsoleHarness(options: HarnessOptions = {}): Promise<ConsoleHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'console-ui-'));
  const [idpPort, apiPort, consolePort] = [await freePort(), await freePort(), await freePort()];
  const consoleUrl = `http://127.0.0.1:${consolePort}`;
  const issuer = `http://127.0.0.1:${idpPort}`;
  const idp = await createDevIdp({ issuer, dataDir: join(dir, 'idp'), consoleUrl, host: '127.0.0.1', nodeEnv: 'test' });
  // The journey's photos go to a blob store of this run only.
  const t = await startTestApp({ OIDC_ISSUER: issuer, OIDC_JWKS_URL: idp.jwksUrl, OIDC_AUDIENCE: idp.clientId, DATA_DIR: join(dir, 'data'), WEBHOOK_POLL_MS: '50' });
  const realTime = options.realTime ? setInterval(() => t.clock.set(new Date()), 100) : undefined;
  realTime?.unref();
  await t.app.listen({ port: apiPort, host: '127.0.0.1' });
  const tenant: Tenant = { clientId: t.demo.client_id, environment: 'sandbox' };
  if (options.stills) await allowStills(t, tenant);
  const consoleKey = await issueKey(t, { clientId: tenant.clientId, kind: 'console', name: 'console' });
  let consoleOffset = 0;
  const pool = options.worker ? new ChecksPool({ threads: 1 }) : undefined;
  const runner = pool
    ? checksRunnerFor(t, pool)
    : undefined;
  const dispatcher = options.worker || options.webhooks ? new WebhookDispatcher({ db: t.database.db, keyring: t.ctx.keyring, settings: t.config.webhooks, listen: t.database.listen }) : undefined;
  await dispatcher?.start();
  const console_ = await createConsoleServer({
    assets: await loadAssets(),
    apiBaseUrl: `http://127.0.0.1:${apiPort}`,
    consoleCredential: consoleKey.secret,
    oidc: { issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, scopes: '' },
    consoleUrl,
    db: t.database.db,
    keyring: new MasterKeyring(t.config.masterKey!),
    now: () => new Date(Date.now() + consoleOffset),
  });
  await new Promise<void>((resolve) => (console_.server as Server).listen(consolePort, '127.0.0.1', resolve));
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  const newContext: ConsoleHarness['newContext'] = async (opts = {}) => {
    const context = await browser.newContext({ ...(opts.viewport === 'phone' ? PHONE : DESKTOP), locale: opts.locale ?? 'en-GB', acceptDownloads: true });
    contexts.push(context);
    return context;
  };
  let n = 0;
  /** A challenge drawn for the journey, answered with 16 frames of p01's phone clip (jittered times, a phone's camera). */
  const filmHeadTurns = async (token: string) => {
    const challenge = await journey(t, 'POST', '/face/challenge', token);
    if (challenge.statusCode !== 201) throw new Error(`face challenge: ${challenge.body}`);
    const { id, nonce } = challenge.json() as { id: string; nonce: string };
    const clip = clipFrames('bona_fide/bf_p01_phone_turn_right_left.mp4', { start: 0.5, duration: 1.6 });
    const frames = clip.frames.slice(0, 16).map((f, i) => ({ t: 1000.5 + i * 100 + ((i * 7) % 5) - 2, image: f.toString('base64') }));
    // The capture lasts 1.5 s: it cannot have arrived sooner after its challenge was issued.
    if (options.realTime) await new Promise((r) => setTimeout(r, 1600));
    else t.clock.advance(1600);
    const camera = { label: 'Front Camera', width: 720, height: 1280, frame_rate: 30, facing_mode: 'user', video_inputs: 2 };
    const res = await journey(t, 'POST', '/face/sequence', token, { body: { challenge_id: id, nonce, frames, camera } });
    if (res.statusCode !== 200) throw new Error(`face sequence: ${res.body}`);
  };
  return {
    t,
    tenant,
    idp,
    consoleUrl,
    browser,
    async operator(role, name, clearance = {}) {
      n += 1;
      const login = `${role}-${n}`;
      const password = `password-${role}-${n}`;
      const subject = idp.addAccount(login, password);
      const now = t.clock.now();
      const op = await insertActiveOperator(t.database.db, tenant, { id: newId('op', now.getTime()), name, role, subject, ...clearance, createdBy: 'test' }, now);
      return { op, login, password };
    },
    async taskInReview(spec = {}) {
      const created = await t.request('POST', '/v1/cases', {
        signed: true,
        body: { flow_name: spec.flow ?? 'standard', country: 'FR', external_ref: `ref-${Date.now()}-${n++}`, declared: { surname: spec.surname ?? 'Martin', given_names: 'Claire', birth_date: '1990-04-12' } },
      });
      if (created.statusCode !== 201) throw new Error(`case creation failed: ${created.body}`);
      const caseId = created.json().id as string;
      const now = t.clock.now();
      const { task } = await t.database.db.transaction(async (tx) => {
        const row = (await findCaseForUpdate(tx, tenant, caseId))!;
        await applyCaseTrigger(tx, tenant, row, { type: 'submission_complete' }, now);
        // The checks' reports as the runner stores them, when a test needs particular verdicts.
        if (spec.checks) await storeCaseChecks(tx, tenant, caseId, spec.checks, [], now);
        return openReviewTask(tx, tenant, { caseId, riskScore: spec.riskScore ?? 50, sensitivity: 'standard', reasons: ['faces_uncertain', 'subject_mismatch'], dueAt: spec.dueAt }, now);
      });
      t.clock.advance(1000);
      return { caseId, taskId: task.id };
    },
    async completeJourney(caseId, opts = {}) {
      const token = await newSession(t, caseId, 'en');
      const steps: [string, unknown][] = [
        ['/consent', { accepted: true }],
        ['/applicant', { given_names: 'Grace Brewster', surname: 'Hopper', birth_date: '1906-12-09' }],
        ['/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } }],
        ['/document', { country: 'FR', type: 'passport' }],
      ];
      for (const [path, body] of steps) {
        const res = await journey(t, 'POST', path, token, { body });
        if (res.statusCode !== 200) throw new Error(`journey ${path}: ${res.body}`);
      }
      const pieces: [string, string][] = [
        ['document_front', IMAGES.passport],
        ['selfie', IMAGES.selfie],
        ...(opts.filmed
          ? []
          : ([
              ['liveness_turn_left', IMAGES.turnLeft],
              ['liveness_turn_right', IMAGES.turnRight],
            ] as [string, string][])),
      ];
      for (const [kind, path] of pieces) {
        const res = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes: fixture(path) });
        if (res.statusCode !== 200) throw new Error(`journey piece ${kind}: ${res.body}`);
        // A piece's id orders it to the millisecond (the frame strip shows them by id): two
        // uploads between two ticks of the real-time clock would come out in either order.
        t.clock.advance(1);
      }
      if (opts.filmed) await filmHeadTurns(token);
      const done = await journey(t, 'POST', '/finish', token);
      if (done.statusCode !== 200) throw new Error(`journey finish: ${done.body}`);
    },
    async runChecks() {
      if (!runner) throw new Error('the harness runs the checks only when started with { worker: true }');
      return runner.drain();
    },
    newContext,
    async openAs(who, path, opts = {}) {
      const context = await newContext(opts);
      const page = await context.newPage();
      await signIn(page, consoleUrl, path, who.login, who.password);
      return page;
    },
    advanceConsoleClock(ms) {
      consoleOffset += ms;
    },
    async close() {
      if (realTime) clearInterval(realTime);
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
      await console_.close();
      await dispatcher?.stop();
      await pool?.destroy();
      await idp.close();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs in through the provider's real pages, starting from a console path; ends on that path. */
export async function signIn(page: Page, consoleUrl: string, path: string, login: string, password: string): Promise<void> {
  await page.goto(`${consoleUrl}${path}`);
  await page.waitForSelector('input[name="login"]');
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', password);
  await Promise.all([page.waitForURL((u) => u.origin === consoleUrl && u.pathname === path.split('?')[0]), page.click('button[type="submit"]')]);
}

export { axeViolations } from '../helpers/axe.ts';

/** A call to the console's /api from the signed-in page, with its CSRF token and an Idempotency-Key (what the app's client sends). */
export async function apiFromPage(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ([method, path, body]) => {
      const session = await (await fetch('/auth/session')).json();
      const res = await fetch(`/api${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token, 'idempotency-key': crypto.randomUUID() },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    [method, path, body] as const,
  );
}

/**
 * Screenshots into artifacts/console/<name>-<viewport>.png, each with its axe audit
 * (tests/helpers/axe.ts); `alsoIn`, a folder each is copied into as well.
 */
export function screenAudits(opts: { alsoIn?: string } = {}): ReturnType<typeof sharedScreenAudits> {
  return sharedScreenAudits(ARTIFACTS, opts);
}
