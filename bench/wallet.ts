/**
 * `npm run bench:wallet`: the time from a wallet's response to the case's decision, per credential
 * format (a PID as SD-JWT VC, an mDL as mdoc), p50 and p95 over BENCH_CASES cases each (default
 * 20), on the database TEST_DB names (pglite by default, postgres with TEST_DATABASE_URL). Ends
 * with one line of JSON.
 *
 * Each case goes through the journey API over real HTTP as in the tests (tests/e2e/wallet-journey):
 * the page asks for a cross-device request, the test wallet fetches the request object and posts
 * its encrypted answer as a form; the clock starts as that POST is sent. The page then finishes
 * the journey, and the running checks runner (woken by the finish's NOTIFY, with a real ChecksPool
 * of one thread) decides; the clock stops when the case's state leaves processing (polled every 5
 * ms). `respond_ms` is the POST alone (decryption, verification, the status list over HTTP, the
 * sealed write), `decision_ms` the whole.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { findCase, insertTrustAnchor } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { ChecksPool } from '@idv/engine';
import { PieceBlobs } from '@idv/case-data';
import { ChecksRunner } from '@idv/worker';
import { describeCertificate } from '@idv/wallet';
import { TestWallet, createStatusList, createTestIssuer, type TestPerson } from '@idv/wallet/testing';
import { activateFlow, newSession, openCase, startJourneyApp } from '../tests/helpers/journey.ts';
import { newTenant } from '../tests/helpers/webhooks.ts';

const CASES = Number(process.env.BENCH_CASES ?? 20);
const FLOW = 'bench_wallet';
const DEFINITION: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['consent', 'wallet'],
  checks: { ...STANDARD_FLOW.checks, min_age: 18 },
  wallet: { formats: ['dc+sd-jwt', 'mso_mdoc'], document_fallback: false },
};
const PERSON: TestPerson = {
  given_names: 'Julien',
  surname: 'Martin',
  birth_date: '1984-05-17',
  nationality: 'FR',
  issuing_country: 'FR',
  document_number: '14FP52K81',
  expiry_date: '2033-06-30',
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! * 10) / 10;
};

async function main(): Promise<void> {
  const t = await startJourneyApp({ LOG_LEVEL: 'silent', API_BASE_URL: 'http://wallet-verifier.idv.test' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const who = await newTenant(t, 'sandbox');
  await activateFlow(t, who.tenant.clientId, 'sandbox', FLOW, DEFINITION);
  const issuer = await createTestIssuer({ name: 'Bench issuer', country: 'FR' });
  for (const [kind, pem] of [['sd_jwt_issuer', issuer.sdJwtIssuerPem], ['iaca', issuer.iacaPem]] as const) {
    const f = describeCertificate(pem);
    await insertTrustAnchor(t.database.db, {
      id: `ta_${randomUUID()}`,
      ...who.tenant,
      kind,
      label: null,
      certificatePem: pem,
      fingerprint: f.fingerprintSha256,
      subject: f.subject,
      notBefore: f.notBefore,
      notAfter: f.notAfter,
      createdBy: 'bench',
      createdAt: t.clock.now(),
    });
  }
  let statusToken = '';
  const statusServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/statuslist+jwt' }).end(statusToken));
  await new Promise<void>((r) => statusServer.listen(0, '127.0.0.1', r));
  const statusUri = `http://127.0.0.1:${(statusServer.address() as AddressInfo).port}/status`;
  statusToken = await createStatusList(issuer, [], statusUri);

  const wallet = await TestWallet.create();
  await wallet.addPid(issuer, PERSON, { statusListUri: statusUri, statusIndex: 1 });
  await wallet.addMdl(issuer, PERSON);

  const pool = new ChecksPool({ threads: 1 });
  await pool.warmUp();
  // Woken by the finish's NOTIFY as in a worker process.
  const runner = new ChecksRunner({
    db: t.database.db,
    keyring: t.ctx.keyring,
    vault: t.ctx.vault,
    pieces: new PieceBlobs(t.ctx.blobs, t.ctx.vault, t.ctx.keyring),
    analyser: pool,
    now: t.clock.now,
    listen: t.database.listen,
  });
  await runner.start();

  const page = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/v1/sessions/current${path}`, {
      method,
      headers: { authorization: `Session ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };

  const one = async (format: 'dc+sd-jwt' | 'mso_mdoc') => {
    // The test clock follows the wall clock here: the wallet signs with the real time.
    t.clock.set(new Date());
    const caseId = await openCase(t, { flow_name: FLOW, country: 'FR' }, who.key);
    const token = await newSession(t, caseId, 'en', who.key);
    await page(token, 'POST', '/consent', { accepted: true });
    const created = await page(token, 'POST', '/wallet/requests', { mode: 'cross_device' });
    const requestJwt = await (await fetch(`${base}${new URL(created.cross_device.request_uri).pathname}`)).text();
    const { response } = await wallet.respond({ requestJwt, mode: 'cross_device' }, { format });
    const t0 = performance.now();
    const posted = await fetch(`${base}/v1/wallet/responses/${created.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ response }).toString(),
    });
    const respondMs = performance.now() - t0;
    if (posted.status !== 200) throw new Error(`refused: ${await posted.text()}`);
    await page(token, 'POST', '/finish');
    for (;;) {
      const row = await findCase(t.database.db, who.tenant, caseId);
      if (row && row.state !== 'processing') {
        if (row.state !== 'approved') throw new Error(`case ${caseId} ${row.state}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    return { respondMs, decisionMs: performance.now() - t0 };
  };

  const results: Record<string, unknown> = {};
  try {
    for (const format of ['dc+sd-jwt', 'mso_mdoc'] as const) {
      await one(format); // warm-up
      const runs: { respondMs: number; decisionMs: number }[] = [];
      for (let i = 0; i < CASES; i++) runs.push(await one(format));
      const decision = runs.map((r) => r.decisionMs);
      const respond = runs.map((r) => r.respondMs);
      results[format] = { cases: CASES, decision_p50_ms: pct(decision, 50), decision_p95_ms: pct(decision, 95), respond_p50_ms: pct(respond, 50), respond_p95_ms: pct(respond, 95) };
      process.stderr.write(`${format}: ${JSON.stringify(results[format])}\n`);
    }
  } finally {
    await runner.stop();
    await pool.destroy();
    await new Promise((r) => statusServer.close(r));
    await t.close();
  }
  console.log(JSON.stringify({ bench: 'wallet', database: process.env.TEST_DB ?? 'pglite', ...results }));
}

await main();
