import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, eq, inArray } from 'drizzle-orm';
import { schema } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { ChecksPool } from '@idv/engine';
import { IMAGES, activateFlow, fixture, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';
import { checksRunnerFor } from '../helpers/checks-runner.ts';

/**
 * Every time the service reports about an automated decision is when the decision was taken, not
 * when the analysis began: the real engine analyses a real passport photo while the clock moves
 * on by two minutes (as a long queue or a slow machine would make it), and the case's
 * decision.decided_at, the case.decided event's time and the journal all say the later time.
 */

const FLOW = 'doc-only';
const DEFINITION: FlowDefinition = { ...STANDARD_FLOW, steps: ['document'], documents: [{ country: '*', types: ['passport'] }], liveness: { challenges: [] } };
const ANALYSIS_MS = 120_000;
let t: JourneyTestApp;
let pool: ChecksPool;

before(async () => {
  t = await startJourneyApp();
  await activateFlow(t, t.demo.client_id, 'sandbox', FLOW, DEFINITION);
  pool = new ChecksPool({ threads: 1 });
});
after(async () => {
  await pool?.destroy();
  await t?.close();
});

test('decided_at, the event and the journal carry the time of the decision, after the analysis', async () => {
  // A sandbox test value decides the outcome (approve) whatever the photo: the checks still run.
  const caseId = await openCase(t, { flow_name: FLOW, country: 'FR', declared: { given_names: 'Sandbox Approve', surname: 'Martin' } });
  const token = await newSession(t, caseId);
  assert.equal((await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'passport' } })).statusCode, 200);
  assert.equal((await journey(t, 'PUT', '/pieces/document_front', token, { bytes: fixture(IMAGES.passport) })).statusCode, 200);
  assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 200);

  const started = t.clock.now();
  const runner = checksRunnerFor(t, {
    analyse: async (input) => {
      const analysis = await pool.analyse(input);
      t.clock.advance(ANALYSIS_MS);
      return analysis;
    },
  });
  assert.deepEqual((await runner.drain()).map((r) => r.outcome), ['approved']);
  const decidedAt = new Date(started.getTime() + ANALYSIS_MS).toISOString();

  const shown = (await t.request('GET', `/v1/cases/${caseId}`)).json();
  assert.equal(shown.decision.outcome, 'approved');
  assert.equal(shown.decision.decided_at, decidedAt);

  const db = t.database.db;
  const events = await db.select().from(schema.webhookEvents).where(and(eq(schema.webhookEvents.objectId, caseId), eq(schema.webhookEvents.type, 'case.decided')));
  assert.equal(events.length, 1);
  assert.equal(events[0].occurredAt.toISOString(), decidedAt);
  assert.equal(JSON.parse(events[0].body).occurred_at, decidedAt);

  const journal = await db.select().from(schema.caseJournal).where(and(eq(schema.caseJournal.caseId, caseId), inArray(schema.caseJournal.action, ['checks.completed', 'case.decided'])));
  assert.equal(journal.length, 2);
  for (const row of journal) assert.equal(row.at.toISOString(), decidedAt, row.action);
});
