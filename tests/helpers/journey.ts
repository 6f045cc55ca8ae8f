import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { createFlowVersion, type Environment, type Tenant } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { IdvClient } from '@idv/sdk';
import { startTestApp, type Credentials, type TestApp } from './app.ts';

/** The shared fixtures beside the checkout (read in place, never copied into the repository). */
export const FIXTURES = resolve(fileURLToPath(new URL('../../../shared/fixtures', import.meta.url)));

export function fixture(path: string): Buffer {
  const full = join(FIXTURES, path);
  if (!existsSync(full)) throw new Error(`fixture ${full} is missing: the tests read ../shared/fixtures beside the checkout`);
  return readFileSync(full);
}

/** Real photos used as journey pieces (all within the pixel bounds). */
export const IMAGES = {
  passport: 'documents/passporteye/100_pass-lux.jpg',
  idFront: 'documents/image-js/id1.jpg',
  idBack: 'documents/passporteye/77_card-cmw.png',
  selfie: 'faces/debian/grace_hopper_512x512.jpg',
  turnLeft: 'faces/face-api-js/bbt2.jpg',
  turnRight: 'faces/face-api-js/disgusted.jpg',
  /** 250×159: too small to read. */
  tiny: 'documents/passporteye/53_id-d.jpg',
  /** 400×300: a face photo below the 320-pixel short side. */
  smallFace: 'faces/face-api-js/sad.jpg',
} as const;

/**
 * The selfie's face as the service's own analysis boxes it (analyseFaces, pixels of the photo):
 * the browser suites build their selfie frames around it (selfieFrame) to place the face in the oval.
 */
export const SELFIE_BOX = { x: 168, y: 115, width: 186, height: 198 };

export interface JourneyTestApp extends TestApp {
  dataDir: string;
}

/** The real app with its blob store in a temporary DATA_DIR (removed at close). */
export async function startJourneyApp(env: Record<string, string> = {}): Promise<JourneyTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-journey-'));
  const t = await startTestApp({ DATA_DIR: dataDir, ...env });
  return {
    ...t,
    dataDir,
    close: async () => {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function openCase(t: TestApp, body: Record<string, unknown> = { flow_name: 'standard', country: 'FR' }, key?: Credentials): Promise<string> {
  const res = await t.request('POST', '/v1/cases', { key, signed: true, body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** A journey link for the case; returns the token (the url fragment). */
export async function newSession(t: TestApp, caseId: string, locale = 'en', key?: Credentials): Promise<string> {
  const res = await t.request('POST', '/v1/sessions', { key, signed: true, body: { case_id: caseId, locale } });
  assert.equal(res.statusCode, 201, res.body);
  const m = /#([A-Za-z0-9_-]{43})$/.exec(res.json().url);
  assert.ok(m, 'the url ends with #<token>');
  return m[1];
}

export interface JourneyRequest {
  body?: unknown;
  bytes?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

/** A call of the journey app: Authorization: Session <token>, JSON or image bytes. */
export function journey(t: TestApp, method: string, path: string, token: string | null, opts: JourneyRequest = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (token !== null) headers.authorization = `Session ${token}`;
  let payload: string | Buffer | undefined;
  if (opts.bytes) {
    payload = opts.bytes;
    headers['content-type'] = opts.contentType ?? 'image/jpeg';
  } else if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  return t.app.inject({ method: method as 'GET', url: `/v1/sessions/current${path}`, headers, payload });
}

/** An activated flow of the test's choosing for a client and environment. */
export async function activateFlow(t: TestApp, clientId: string, environment: Environment, name: string, definition: FlowDefinition): Promise<void> {
  await t.database.db.transaction((tx) => createFlowVersion(tx, { clientId, environment }, name, definition, t.clock.now(), true));
}

/**
 * The standard flow with the stills path open (`liveness.allow_stills`,
 * docs/flows.md#the-live-sequence-or-stills): the flow of suites whose subject is not liveness.
 * They send one still per movement, as a capture client that cannot film would, because a live
 * sequence costs the checks about a second of CPU more per case (docs/liveness.md) and CI is
 * CPU-bound. Their cases carry `challenge_stills` (never approved without a sandbox test value,
 * which they use). The standard flow itself refuses stills: tests/api/face-stills.test.ts.
 */
export const STANDARD_WITH_STILLS: FlowDefinition = { ...STANDARD_FLOW, liveness: { ...STANDARD_FLOW.liveness, allow_stills: true } };

/** The tenant's `standard` flow accepts stills from now on: a new version, activated (cases opened before keep theirs). */
export async function allowStills(t: TestApp, tenant: Tenant = { clientId: t.demo.client_id, environment: 'sandbox' }): Promise<void> {
  await activateFlow(t, tenant.clientId, tenant.environment, 'standard', STANDARD_WITH_STILLS);
}

/** The same on a started service, through the API with a key of its client (the demo key by default). */
export async function allowStillsOver(api: string, key: { secret: string; signing_secret: string }): Promise<void> {
  const idv = new IdvClient({ baseUrl: api, apiKey: key.secret, signingSecret: key.signing_secret });
  const created = await idv.createFlowVersion('standard', { definition: STANDARD_WITH_STILLS });
  await idv.activateFlowVersion('standard', created.version);
}

/** Runs the standard flow's steps up to the document choice (consent, applicant, questionnaire). */
export async function fillStandardSteps(t: TestApp, token: string): Promise<void> {
  const steps: [string, unknown][] = [
    ['/consent', { accepted: true }],
    ['/applicant', { given_names: 'Grace Brewster', surname: 'Hopper', birth_date: '1906-12-09', email: 'grace@example.com' }],
    ['/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } }],
  ];
  for (const [path, body] of steps) {
    const res = await journey(t, 'POST', path, token, { body });
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
  }
}

/** The journey app's calls over real HTTP with a link's token (JSON, or image bytes); any answer but 200 fails. */
export function journeyCaller(api: string, token: string): (method: string, path: string, body?: unknown, bytes?: Buffer) => Promise<void> {
  return async (method, path, body, bytes) => {
    const headers: Record<string, string> = { authorization: `Session ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (bytes) headers['content-type'] = 'image/jpeg';
    const res = await fetch(`${api}/v1/sessions/current${path}`, { method, headers, body: bytes ? new Uint8Array(bytes) : body === undefined ? undefined : JSON.stringify(body) });
    assert.equal(res.status, 200, `${method} ${path}: ${await res.text()}`);
  };
}

/**
 * The standard flow's first steps over real HTTP, as the journey app makes its calls: consent,
 * entered data with these given names (a sandbox test value forces the decision,
 * docs/sandbox.md), the questionnaire and a French passport. The journey then waits for the
 * document photo.
 */
export async function journeyToDocumentPhoto(api: string, token: string, givenNames = 'Sandbox Approve'): Promise<void> {
  const call = journeyCaller(api, token);
  await call('POST', '/consent', { accepted: true });
  await call('POST', '/applicant', { given_names: givenNames, surname: 'Hopper', birth_date: '1906-12-09', email: 'grace@example.com' });
  await call('POST', '/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } });
  await call('POST', '/document', { country: 'FR', type: 'passport' });
}

/** Real fixture photos of the passport, the selfie and both liveness challenges (the case's flow allows stills: allowStillsOver), then the finish. */
async function sendStandardPhotos(api: string, token: string): Promise<void> {
  const call = journeyCaller(api, token);
  for (const [kind, path] of [['document_front', IMAGES.passport], ['selfie', IMAGES.selfie], ['liveness_turn_left', IMAGES.turnLeft], ['liveness_turn_right', IMAGES.turnRight]] as const) {
    await call('PUT', `/pieces/${kind}`, undefined, fixture(path));
  }
  await call('POST', '/finish');
}

/** The person's whole journey of the standard flow over real HTTP: the first steps, the photos and the finish. */
export async function completeStandardJourney(api: string, token: string, givenNames = 'Sandbox Approve'): Promise<void> {
  await journeyToDocumentPhoto(api, token, givenNames);
  await sendStandardPhotos(api, token);
}
