import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { findCheckJob } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { IMAGES, activateFlow, fixture, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';
import { checksRunnerFor } from '../helpers/checks-runner.ts';

/**
 * A check run that throws (here an analyser failing on purpose, as an engine bug would): the job's
 * stored error and the worker's log line carry the error's name and code, never its message, which
 * may quote what was read on a document; after the last attempt the case goes to review.
 */

const FLOW = 'doc-only';
const DEFINITION: FlowDefinition = { ...STANDARD_FLOW, steps: ['document'], documents: [{ country: '*', types: ['passport'] }], liveness: { challenges: [] } };
let t: JourneyTestApp;
const lines: string[] = [];

before(async () => {
  t = await startJourneyApp();
  await activateFlow(t, t.demo.client_id, 'sandbox', FLOW, DEFINITION);
});
after(() => t.close());

test('a failing run stores and logs the error name and code only; the last attempt sends the case to review', async () => {
  const caseId = await openCase(t, { flow_name: FLOW, country: 'FR' });
  const token = await newSession(t, caseId);
  assert.equal((await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'passport' } })).statusCode, 200);
  assert.equal((await journey(t, 'PUT', '/pieces/document_front', token, { bytes: fixture(IMAGES.passport) })).statusCode, 200);
  assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 200);

  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }));
  let clock = t.clock.now().getTime();
  const runner = checksRunnerFor(t, {
    analyse: async () => {
      throw Object.assign(new TypeError('could not parse P<FRAMARTIN<<JULIEN<<<'), { code: 'E_MRZ_PARSE' });
    },
  }, {
    now: () => new Date(clock),
    log: { info: (o, m) => log.info(o, m), warn: (o, m) => log.warn(o, m), error: (o, m) => log.error(o, m) },
    maxAttempts: 2,
  });
  assert.deepEqual((await runner.drain()).map((r) => r.outcome), ['failed']);
  const job = await findCheckJob(t.database.db, caseId, 1);
  assert.equal(job?.lastError, 'TypeError (E_MRZ_PARSE)');
  clock += 60_000; // past the retry delay
  assert.deepEqual((await runner.drain()).map((r) => r.outcome), ['failed']);
  const written = lines.join('');
  assert.match(written, /E_MRZ_PARSE/);
  assert.doesNotMatch(written, /MARTIN|JULIEN/, 'nothing read on the document reaches the log');
  assert.equal((await t.request('GET', `/v1/cases/${caseId}`)).json().status, 'review');
});
