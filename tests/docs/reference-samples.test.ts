import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build as esbuild } from 'esbuild';
import { moduleBuildOptions } from '../../scripts/build-packages.ts';
import { SignJWT, importJWK, type JWK } from 'jose';
import { IdvClient } from '@idv/sdk';
import { STANDARD_FLOW } from '@idv/domain';
import { TestWallet, createTestIssuer, type TestIssuer } from '@idv/wallet/testing';
import { referenceSamples, SAMPLE_API, SHELL_SIGN, type CodeSample, type OperationSamples } from '../../scripts/code-samples/generate.ts';
import { selfSigned } from '../helpers/certificates.ts';
import { FIXTURES, IMAGES, STANDARD_WITH_STILLS, completeStandardJourney, fixture, journeyCaller } from '../helpers/journey.ts';
import { ROOT, childEnv } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { clipFrames } from '../helpers/liveness-clips.ts';
import { startWholeService, waitUntil, type WholeService } from '../helpers/service.ts';

/**
 * Every code sample of the API reference (the `x-codeSamples` of openapi/openapi.json, generated
 * by scripts/code-samples) run against one started service: the curl samples in bash, the Node.js
 * samples with plain node in a folder where `@idv/sdk` is the SDK bundled as scripts/build-packages.ts
 * bundles it for integrators (JavaScript, as they get it: no TypeScript loader, which cost each of
 * the ninety-odd samples a second and a half of CPU). Two lanes run side by
 * side, one per language, each going through the operations in an order where the ids they need
 * exist (a case, its session, the journey, the review, ...), each with its own ids. Every sample
 * must exit 0 with the status its operation documents. docs/docs-site.md ("Reference samples").
 */

const DOC = JSON.parse(readFileSync(join(ROOT, 'openapi', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; 'x-codeSamples'?: CodeSample[] }>>;
};
const OPERATIONS = new Map(referenceSamples(DOC as unknown as Parameters<typeof referenceSamples>[0], new Set(Object.getOwnPropertyNames(IdvClient.prototype))).map((o) => [o.operationId, o]));
/** What the reader sees: the samples as committed in the document (npm run openapi -- --check keeps them generated). */
const COMMITTED = new Map<string, CodeSample[]>();
for (const item of Object.values(DOC.paths)) for (const op of Object.values(item)) if (op.operationId) COMMITTED.set(op.operationId, op['x-codeSamples'] ?? []);

type Language = 'curl' | 'node';

let service: WholeService;
let receiver: Receiver;
let work: string;
let consoleKey: string;
let adminSubject: string;
/** An ID token of that subject, re-authenticated now, as the development provider signs it. */
let reauthToken: (subject: string) => Promise<string>;
const ran = new Set<string>();

before(async () => {
  service = await startWholeService();
  receiver = await startReceiver();
  work = join(ROOT, '.tmp', `reference-samples-${process.pid}`);
  mkdirSync(work, { recursive: true });
  // The file the upload sample sends, read in place from the fixtures.
  symlinkSync(join(FIXTURES, IMAGES.passport), join(work, 'passport.jpg'));
  // `@idv/sdk` resolves there to its bundle (esbuild, as the published package is built).
  const sdk = join(work, 'node_modules', '@idv', 'sdk');
  mkdirSync(sdk, { recursive: true });
  writeFileSync(join(sdk, 'package.json'), JSON.stringify({ name: '@idv/sdk', type: 'module', exports: './index.js' }));
  await esbuild(moduleBuildOptions('sdk', join(sdk, 'index.js')));
  // Each Node.js sample reports the status of every answer it gets, on stderr, for the test to compare.
  writeFileSync(
    join(work, 'status-probe.mjs'),
    "const f = globalThis.fetch; globalThis.fetch = async (...a) => { const r = await f(...a); process.stderr.write(`\\nHTTP-STATUS ${r.status}\\n`); return r; };\n",
  );
  consoleKey = readFileSync(join(service.dataDir, 'console-credential'), 'utf8').trim();
  // The console's demo administrator: its subject at the development identity provider, and that
  // provider's signing key, with which the test signs the re-authentication proof the console
  // would get from a fresh sign-in (what the service verifies: issuer, audience, auth_time).
  const idpDir = join(service.dataDir, 'dev-idp');
  adminSubject = (JSON.parse(readFileSync(join(idpDir, 'accounts.json'), 'utf8')) as { subject: string }[])[0].subject;
  const state = JSON.parse(readFileSync(join(idpDir, 'provider-state.json'), 'utf8')) as { signingKey: JWK };
  const key = await importJWK(state.signingKey, 'RS256');
  reauthToken = (subject) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ auth_time: now })
      .setProtectedHeader({ alg: 'RS256', kid: state.signingKey.kid })
      .setSubject(subject)
      .setIssuer(service.idpUrl)
      .setAudience('idv-console')
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(key);
  };
});
after(async () => {
  await receiver?.close();
  await service?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The addresses of a default start, as the samples write them, replaced by the started service's. */
function localised(code: string): string {
  return code.replaceAll(SAMPLE_API, service.api).replaceAll('http://localhost:4000/webhooks', receiver.url + '/webhooks');
}

interface Outcome {
  status: number;
  /** The answer: parsed JSON, or the text. */
  body: unknown;
}

function exec(command: string, args: string[], env: Record<string, string>, ms: number): Promise<{ code: number | string; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: work, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    // 'close', not 'exit': output still in the pipes when the process exits is read before resolving.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, out, err });
    });
  });
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

let fileCount = 0;
/** Runs one operation's sample of a language with these variables; fails unless it exits 0 with the documented status. */
async function runSample(language: Language, op: OperationSamples, vars: Record<string, string>): Promise<Outcome> {
  const committed = COMMITTED.get(op.operationId) ?? [];
  const sample = committed.find((s) => s.lang === (language === 'curl' ? 'Shell' : 'JavaScript'));
  assert.ok(sample, `${op.operationId}: no ${language} sample in openapi/openapi.json`);
  for (const v of op.variables) assert.ok(vars[v] !== undefined, `${op.operationId} (${language}) reads ${v}, which the test has not set`);
  const what = `the ${language} sample of ${op.operationId}`;
  let outcome: Outcome;
  if (language === 'curl') {
    // The reader's terminal: idv_sign defined once (docs/authentication.md). curl also prints the
    // status last, and a refusal's body (--fail-with-body fails as -f does, exit 22) for the report.
    const wrapper = `curl() { local a=(); for x in "$@"; do if [ "$x" = -fsS ]; then a+=(-sS --fail-with-body); else a+=("$x"); fi; done; command curl -w '\\n%{http_code}' "\${a[@]}"; }`;
    const script = `set -euo pipefail\n${SHELL_SIGN}\n${wrapper}\n${localised(sample.source)}`;
    const r = await exec('bash', ['-c', script], vars, 60_000);
    assert.equal(r.code, 0, `${what} failed (${r.code}):\n${sample.source}\n${r.out}\n${r.err}`);
    const lines = r.out.trimEnd().split('\n');
    outcome = { status: Number(lines.pop()), body: parsed(lines.join('\n')) };
  } else {
    const file = `${op.operationId}-${++fileCount}.mjs`;
    writeFileSync(join(work, file), localised(sample.source));
    const r = await exec(process.execPath, ['--import', './status-probe.mjs', file], vars, 90_000);
    assert.equal(r.code, 0, `${what} failed (${r.code}):\n${r.out}\n${r.err}`);
    const statuses = [...r.err.matchAll(/HTTP-STATUS (\d+)/g)].map((m) => Number(m[1]));
    outcome = { status: statuses[statuses.length - 1] ?? 0, body: parsed(r.out) };
  }
  assert.equal(outcome.status, op.status, `${what} answered ${outcome.status}, its operation documents ${op.status}:\n${JSON.stringify(outcome.body)}`);
  ran.add(`${op.operationId}:${language}`);
  return outcome;
}

/** Calls of the test's own (not samples): setting up what a sample needs that no earlier sample made. */
function apiClient(): IdvClient {
  return new IdvClient({ baseUrl: service.api, apiKey: service.creds.api_key.secret, signingSecret: service.creds.api_key.signing_secret });
}

async function consoleCall(method: string, path: string, body?: unknown, operatorId?: string, reauth?: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { authorization: `Bearer ${consoleKey}` };
  if (operatorId) headers['x-service-operator'] = operatorId;
  if (reauth) headers['x-service-reauthenticated-at'] = reauth;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(service.api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const tokenOf = (url: unknown) => {
  const m = /#([A-Za-z0-9_-]{43})$/.exec(String(url));
  assert.ok(m, `a journey link ends with #<token>: ${String(url)}`);
  return m[1];
};

async function waitForState(caseId: string, state: string): Promise<void> {
  const idv = apiClient();
  let seen = '';
  try {
    await waitUntil(`case ${caseId} ${state}`, async () => (seen = (await idv.getCase(caseId)).state) === state, 300_000);
  } catch (err) {
    throw new Error(`${(err as Error).message} (last seen ${seen}): ${JSON.stringify(await idv.getCaseResults(caseId))}`);
  }
}

/**
 * The flow of the test's own cases: the standard flow accepting stills, which completeStandardJourney
 * sends (cheaper than a sequence). Not `standard` itself: the samples activate a version of it.
 */
const STILLS_FLOW = 'stills';
let stillsFlow: Promise<void> | null = null;

/** A case of the test's own, its journey completed with these given names; resolves once it is in that state. */
async function caseInState(givenNames: string, state: string): Promise<string> {
  const idv = apiClient();
  stillsFlow ??= idv.createFlowVersion(STILLS_FLOW, { definition: STANDARD_WITH_STILLS }).then((v) => idv.activateFlowVersion(STILLS_FLOW, v.version)).then(() => undefined);
  await stillsFlow;
  const created = await idv.createCase({ flow_name: STILLS_FLOW, country: 'FR', declared: { given_names: givenNames } });
  const session = await idv.createSession({ case_id: created.id, locale: 'en' });
  await completeStandardJourney(service.api, tokenOf(session.url), givenNames);
  await waitForState(created.id, state);
  return created.id;
}

/** One language's pass over every operation. */
async function lane(language: Language): Promise<void> {
  const vars: Record<string, string> = {
    IDV_API_KEY: service.creds.api_key.secret,
    IDV_SIGNING_SECRET: service.creds.api_key.signing_secret,
    IDV_CONSOLE_KEY: consoleKey,
    OPERATOR_SUBJECT: adminSubject,
  };
  const op = (id: string) => {
    const o = OPERATIONS.get(id);
    assert.ok(o, `no operation ${id} in the document`);
    return o;
  };
  const run = async (id: string, extra: Record<string, string> = {}) => (await runSample(language, op(id), { ...vars, ...extra })).body as Record<string, unknown>;
  const all = (ids: string[]) => Promise.all(ids.map((id) => run(id)));

  // What the test itself prepares meanwhile (the checks take a while): a case in review for the
  // key's decision, and a case whose link hands the journey off to a phone.
  const decidable = caseInState('Sandbox Review', 'in_review');
  decidable.catch(() => {});

  // Reads of the client's settings, and the console's operator.
  await all(['listCases', 'exportCases', 'listWebhookEvents', 'listFlows', 'getFlow']);
  await all(['getJourneyEmbedding', 'getJourneyAppearance', 'getContract', 'getApiUsage']);
  await all(['getUsage', 'getDailyUsage', 'exportUsage', 'listApiKeys']);
  const resolved = await run('resolveOperator');
  vars.IDV_OPERATOR_ID = String((resolved.operator as { id: string }).id);
  await all(['operatorDirectory', 'listOperators', 'reviewSummary', 'reviewMetrics', 'decisionAnalytics']);
  await all(['listSupportAccess', 'listWebhookEndpoints', 'listWebhookDeliveries']);

  // Settings written.
  await all(['updateJourneyEmbedding', 'updateJourneyAppearance']);
  vars.KEY_ID = String((await run('createApiKey')).id);
  await run('revokeApiKey');
  vars.FLOW_VERSION = String((await run('createFlowVersion')).version);
  await run('dryRunFlow');
  await run('activateFlowVersion');

  // A wallet trust anchor's life, with a certificate of this lane's own (the lanes run at once).
  vars.CERTIFICATE_PEM_JSON = JSON.stringify(selfSigned(`/C=FR/O=Reference Samples/CN=IACA ${language}`).pem);
  vars.ANCHOR_ID = String((await run('createTrustAnchor')).id);
  await run('listTrustAnchors');
  await run('deleteTrustAnchor');

  // A webhook endpoint's life, with a test delivery to read and replay.
  vars.ENDPOINT_ID = String((await run('createWebhookEndpoint')).id);
  vars.DELIVERY_ID = String((await run('testWebhookEndpoint')).id);
  await receiver.waitFor((r) => r.length > 0, 60_000, 'a test delivery');
  await all(['getWebhookDelivery', 'listWebhookEndpointDeliveries']);
  await run('replayWebhookDelivery');
  await run('replayWebhookEndpointDelivery');
  await run('updateWebhookEndpoint');
  await run('disableWebhookEndpoint');
  await run('enableWebhookEndpoint');
  await run('resumeWebhookEndpoint');
  await run('rotateWebhookEndpointSecret');
  await run('deleteWebhookEndpoint');

  // A case, its journey link, and the journey's own routes with the link's token.
  vars.CASE_ID = String((await run('createCase')).id);
  await run('getCase');
  await run('createCaseJourneyLink');
  const session = await run('createSession');
  vars.SESSION_ID = String(session.id);
  vars.IDV_SESSION_TOKEN = tokenOf(session.url);
  await all(['getSession', 'getJourney', 'getJourneyFrame']);
  await run('giveJourneyConsent');
  await run('enterJourneyApplicant');
  await run('answerJourneyQuestionnaire');
  await run('chooseJourneyDocument');
  await run('uploadJourneyPiece');
  // The selfie as the journey sends it (the upload's sample showed one piece); the movements come as the live sequence below.
  await journeyCaller(service.api, vars.IDV_SESSION_TOKEN)('PUT', '/pieces/selfie', undefined, fixture(IMAGES.selfie));
  // The live sequence: a challenge, then 16 real frames of a head-turn clip answering it (1.6 s, small enough for a variable).
  const challenge = await run('createFaceChallenge');
  const clip = clipFrames('bona_fide/bf_p01_phone_turn_right_left.mp4', { duration: 1.6 });
  const frames = clip.frames.slice(0, 16).map((f, i) => ({ t: clip.times[i]! + (i % 3), image: f.toString('base64') }));
  await run('uploadFaceSequence', { CHALLENGE_ID: String(challenge.id), CHALLENGE_NONCE: String(challenge.nonce), SEQUENCE_FRAMES: JSON.stringify(frames) });
  // The handoff to a phone, on a link of its own (opening it hands this journey to the phone).
  const handoffCase = await apiClient().createCase({ flow_name: 'standard', country: 'FR' });
  const handoffSession = await apiClient().createSession({ case_id: handoffCase.id, locale: 'en' });
  const handoffToken = tokenOf(handoffSession.url);
  const handoff = await run('createJourneyHandoff', { IDV_SESSION_TOKEN: handoffToken });
  await run('getJourneyHandoff', { IDV_SESSION_TOKEN: handoffToken, HANDOFF_ID: String(handoff.id) });
  await run('openJourneyHandoff', { HANDOFF_CODE: String(handoff.code) });
  await run('finishJourney');

  // The case in review: the operator's routes, then the client's reads of it.
  await waitForState(vars.CASE_ID, 'in_review');
  const reviews = await run('listReviews');
  const task = (reviews.data as { id: string; case_id: string }[]).find((t) => t.case_id === vars.CASE_ID);
  assert.ok(task, `the review queue lists the case ${vars.CASE_ID}`);
  vars.TASK_ID = task.id;
  await run('getReview');
  await run('claimReview');
  await run('extendReviewLock');
  const reviewCase = await run('getReviewCase');
  vars.PIECE_ID = pieceIdOf(reviewCase);
  await run('addReviewCorrection');
  await all(['unmaskReview', 'unmaskCaseIdentity', 'unmaskCaseQuestionnaire', 'unmaskCaseApplicantData']);
  await all(['getReviewPiece', 'getCasePiece', 'getCaseRecord', 'getCaseImage']);
  await all(['getCaseResults', 'getCaseData', 'getCaseAccessLog']);

  // Operators and support access, re-authenticated: a support account invited, attached at its
  // first connection (what the console's resolve does), opened the case, then withdrawn.
  vars.IDV_REAUTH_TOKEN = await reauthToken(adminSubject);
  const invited = await run('inviteOperator');
  const support = invited.operator as { id: string };
  await consoleCall('POST', '/v1/operators/resolve', { subject: `support-${language}-${Date.now()}`, invitation_token: invited.invitation_token });
  vars.TARGET_ID = support.id;
  vars.SUPPORT_OPERATOR_ID = support.id;
  vars.GRANT_ID = String((await run('openSupportAccess')).id);
  await run('listMySupportAccess', { IDV_OPERATOR_ID: support.id });
  await run('revokeSupportAccess');
  await run('updateOperatorClearance');
  await run('revokeOperator');

  // The decision, its revision, the key's own decision on another case, the erasure.
  await run('decideReview');
  // Only a supervisor revises: one invited and attached by the test, re-authenticated.
  const supervisorSubject = `supervisor-${language}-${Date.now()}`;
  const supervisor = await consoleCall(
    'POST',
    '/v1/operators',
    { name: 'Supervisor', role: 'supervisor', countries: ['*'], sensitivity: 'restricted' },
    vars.IDV_OPERATOR_ID,
    await reauthToken(adminSubject),
  );
  await consoleCall('POST', '/v1/operators/resolve', { subject: supervisorSubject, invitation_token: supervisor.invitation_token });
  await run('reviseReview', { IDV_OPERATOR_ID: (supervisor.operator as { id: string }).id, IDV_REAUTH_TOKEN: await reauthToken(supervisorSubject) });
  await run('decideCase', { CASE_ID: await decidable });
  await run('eraseCasePersonalData');
}

/** A piece of the case as the review screen lists it (the first id of a piece: `pc_…`). */
function pieceIdOf(reviewCase: unknown): string {
  const m = /"(pc_[0-9a-z]+)"/.exec(JSON.stringify(reviewCase));
  assert.ok(m, `the review case lists a piece: ${JSON.stringify(reviewCase).slice(0, 500)}`);
  return m[1];
}

/** A flow of the test's own that asks for the wallet alone (after consent), PID as SD-JWT VC. */
const WALLET_FLOW = 'reference_wallet';

async function walletSetUp(): Promise<TestIssuer> {
  const idv = apiClient();
  const issuer = await createTestIssuer({ name: 'Reference samples PID provider', country: 'FR' });
  await idv.createTrustAnchor({ kind: 'sd_jwt_issuer', certificate_pem: issuer.sdJwtIssuerPem, label: 'reference samples' });
  const definition = { ...STANDARD_FLOW, steps: ['consent', 'wallet'], wallet: { formats: ['dc+sd-jwt'], document_fallback: false } };
  const { version } = await idv.createFlowVersion(WALLET_FLOW, { definition } as Parameters<IdvClient['createFlowVersion']>[1]);
  await idv.activateFlowVersion(WALLET_FLOW, version);
  return issuer;
}

/**
 * The wallet's routes in one language: the page's request (cross-device), the request object as
 * the wallet fetches it, the wallet's encrypted answer posted from a file, the page's follow-up;
 * then a same-device request answered through the page's route, and one answered by the sandbox
 * test wallet. One language after the other:
 * the answer's file is in the shared folder.
 */
async function walletLane(language: Language, issuer: TestIssuer): Promise<void> {
  const idv = apiClient();
  const wallet = await TestWallet.create();
  await wallet.addPid(issuer, { given_names: 'Grace', surname: 'Hopper', birth_date: '1906-12-09', nationality: 'US', issuing_country: 'US', document_number: 'X1234567', expiry_date: '2031-12-31' });
  const tokenFor = async () => {
    const created = await idv.createCase({ flow_name: WALLET_FLOW, country: 'FR' });
    const token = tokenOf((await idv.createSession({ case_id: created.id, locale: 'en' })).url);
    await journeyCaller(service.api, token)('POST', '/consent', { accepted: true });
    return token;
  };
  const vars = { IDV_SESSION_TOKEN: await tokenFor() };
  const run = async (id: string, extra: Record<string, string> = {}) => {
    const o = OPERATIONS.get(id);
    assert.ok(o, `no operation ${id} in the document`);
    return (await runSample(language, o, { ...vars, ...extra })).body as Record<string, unknown>;
  };
  const request = await run('createWalletRequest');
  const id = String(request.id);
  await run('getWalletRequestObject', { ID: id });
  const requestJwt = readFileSync(join(work, 'wallet-request-object'), 'utf8');
  const { response } = await wallet.respond({ requestJwt, mode: 'cross_device' });
  writeFileSync(join(work, 'wallet-response.txt'), new URLSearchParams({ response }).toString());
  await run('postWalletResponse', { ID: id });
  assert.equal((await run('getWalletRequest', { ID: id })).status, 'accepted');
  // Same device: the Digital Credentials API's answer handed to the page's route.
  const sameDevice = { IDV_SESSION_TOKEN: await tokenFor() };
  const res = await fetch(`${service.api}/v1/sessions/current/wallet/requests`, {
    method: 'POST',
    headers: { authorization: `Session ${sameDevice.IDV_SESSION_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'dc_api' }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const created = (await res.json()) as { id: string; dc_api: { data: { request: string } } };
  const answer = await wallet.respond({ requestJwt: created.dc_api.data.request, mode: 'dc_api', origin: new URL(service.journeyUrl).origin });
  const answered = await run('answerWalletRequest', { ...sameDevice, ID: created.id, WALLET_RESPONSE: answer.response });
  assert.equal(answered.status, 'accepted');
  // The sandbox test wallet answers a request of the page (the service's own wallet and sandbox issuer).
  const sandboxWallet = { IDV_SESSION_TOKEN: await tokenFor() };
  const pending = await fetch(`${service.api}/v1/sessions/current/wallet/requests`, {
    method: 'POST',
    headers: { authorization: `Session ${sandboxWallet.IDV_SESSION_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'cross_device' }),
  });
  assert.equal(pending.status, 201, await pending.clone().text());
  const presented = await run('presentWithSandboxWallet', { ...sandboxWallet, ID: ((await pending.json()) as { id: string }).id });
  assert.equal(presented.status, 'accepted');
}

test('every code sample of the API reference runs against a started service', async () => {
  for (const [id, samples] of COMMITTED) assert.deepEqual(samples.map((s) => s.lang), ['Shell', 'JavaScript'], `${id} has its curl and Node.js samples`);
  const issuer = await walletSetUp();
  await Promise.all([lane('curl'), lane('node')]);
  await walletLane('curl', issuer);
  await walletLane('node', issuer);
  const missing = [...OPERATIONS.keys()].flatMap((id) => (['curl', 'node'] as const).filter((l) => !ran.has(`${id}:${l}`)).map((l) => `${id} (${l})`));
  assert.deepEqual(missing, [], 'every operation ran in both languages');
});

test('the shell signing function of the samples is the one the authentication guide defines', () => {
  const guide = readFileSync(join(ROOT, 'docs', 'authentication.md'), 'utf8');
  assert.ok(guide.includes(`\`\`\`sh exec\n${SHELL_SIGN}\n`), 'docs/authentication.md defines idv_sign exactly as the samples use it, in an executed block');
});
