import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { findCheckJob } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { ChecksPool, generateDocument } from '@idv/engine';
import { serveProcessMetrics } from '@idv/metrics';
import { WebhookDispatcher } from '@idv/worker';
import { activateFlow, fixture, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';
import { freePort } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { createEndpoint, newTenant, type TestTenant } from '../helpers/webhooks.ts';
import { checksRunnerFor } from '../helpers/checks-runner.ts';

/**
 * One journey followed by its request id and by the metrics: the finish (a real API request on a
 * real database) queues the check job with its `req_…` id; the queue gauges count the job waiting,
 * then running; the checks runner (the real engine in its thread pool) logs the id and records
 * the engine's task timings; the decision's event waits in the outbox (backlog gauge), and the
 * dispatcher's log line for the delivery to a real receiver names the same id.
 */

const FLOW = 'observed';
const DEFINITION: FlowDefinition = { ...STANDARD_FLOW, steps: ['applicant', 'document', 'face'], documents: [{ country: '*', types: ['passport'] }], liveness: { challenges: [] } };

let t: JourneyTestApp;
let who: TestTenant;
let rx: Receiver;
let pool: ChecksPool;
let metrics: Awaited<ReturnType<typeof serveProcessMetrics>>;
const lines: Record<string, unknown>[] = [];
const log = pino(
  { level: 'info' },
  new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  }),
);

before(async () => {
  t = await startJourneyApp({ WEBHOOK_POLL_MS: '50' });
  who = await newTenant(t, 'sandbox');
  await activateFlow(t, who.tenant.clientId, 'sandbox', FLOW, DEFINITION);
  rx = await startReceiver();
  await createEndpoint(t, who, rx.url, ['case.decided', 'case.resubmission_requested']);
  pool = new ChecksPool({ threads: 1 });
  metrics = await serveProcessMetrics(await freePort(), '127.0.0.1', t.database);
});

after(async () => {
  await metrics?.close();
  await pool?.destroy();
  await rx?.close();
  await t?.close();
});

/** The value of an unlabelled (or exactly labelled) sample in the scrape, or null when absent. */
async function sample(name: string): Promise<number | null> {
  const res = await fetch(`http://127.0.0.1:${metrics.port}/metrics`);
  assert.equal(res.status, 200);
  const text = await res.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : null;
}

test('a request id goes from the journey finish through the check job to the webhook delivery, and the gauges follow the job and the event', async () => {
  const caseId = await openCase(t, { flow_name: FLOW, country: 'FR' }, who.key);
  const token = await newSession(t, caseId, 'en', who.key);
  const applicant = await journey(t, 'POST', '/applicant', token, { body: { given_names: 'Julien', surname: 'Martin', birth_date: '1984-05-17' } });
  assert.equal(applicant.statusCode, 200, applicant.body);
  assert.equal((await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'passport' } })).statusCode, 200);
  const fields = {
    document_code: 'P', issuing_country: 'FRA', document_number: '14FP52K81', surname: 'MARTIN', given_names: 'JULIEN',
    nationality: 'FRA', birth_date: '1984-05-17', sex: 'M' as const, expiry_date: '2033-06-30',
  };
  const document = await generateDocument({ format: 'TD3', fields, portrait: fixture('faces/face_recognition/examples/obama.jpg'), seed: 7 });
  assert.equal((await journey(t, 'PUT', '/pieces/document_front', token, { bytes: document.image })).statusCode, 200);
  assert.equal((await journey(t, 'PUT', '/pieces/selfie', token, { bytes: fixture('faces/face_recognition/examples/obama2.jpg') })).statusCode, 200);
  const finish = await journey(t, 'POST', '/finish', token);
  assert.equal(finish.statusCode, 200, finish.body);
  const requestId = String(finish.headers['x-request-id']);
  assert.match(requestId, /^req_/);

  // The job keeps the request that queued it; waiting until a runner claims it.
  assert.equal((await findCheckJob(t.database.db, caseId, 1))?.requestId, requestId);
  assert.equal(await sample('idv_check_jobs_waiting'), 1);
  assert.equal(await sample('idv_check_jobs_running'), 0);

  const runner = checksRunnerFor(t, pool, { log });
  const [job] = await runner.claim(1);
  assert.equal(job?.requestId, requestId);
  assert.equal(await sample('idv_check_jobs_waiting'), 0);
  assert.equal(await sample('idv_check_jobs_running'), 1);
  const outcome = await runner.runJob(job);
  assert.notEqual(outcome, 'failed');
  assert.equal(await sample('idv_check_jobs_running'), 0);
  const done = lines.find((l) => l.msg === 'checks done' && l.case === caseId);
  assert.equal(done?.reqId, requestId, 'the runner logs the request that queued the job');
  assert.ok((await sample('idv_check_task_duration_seconds_count{task="document"}'))! >= 1, 'the engine task timings are recorded');

  // The decision's event is in the outbox with the same request id, one delivery waiting.
  assert.equal(await sample('idv_webhook_outbox_backlog'), 1);
  assert.ok((await sample('idv_webhook_outbox_oldest_age_seconds'))! >= 0);
  const dispatcher = new WebhookDispatcher({ db: t.database.db, keyring: t.ctx.keyring, settings: t.config.webhooks, listen: t.database.listen, log });
  await dispatcher.start();
  try {
    await rx.waitFor((r) => r.length >= 1, 15_000, 'the decision webhook');
  } finally {
    await dispatcher.stop();
  }
  const attempt = lines.find((l) => l.msg === 'webhook attempt');
  assert.equal(attempt?.reqId, requestId, 'the dispatcher logs the request that caused the event');
  assert.equal(attempt?.result, 'success');
  assert.equal(await sample('idv_webhook_outbox_backlog'), 0);
  assert.equal(await sample('idv_webhook_attempts_total{result="success"}'), 1);
  assert.equal(await sample('idv_webhook_delivery_lag_seconds_count'), 1);

  // No personal data in those log lines: ids, codes and timings only.
  for (const line of [done, attempt]) assert.doesNotMatch(JSON.stringify(line), /Julien|Martin|1984|14FP52K81/i);
});
