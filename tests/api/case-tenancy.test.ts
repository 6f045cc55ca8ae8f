/**
 * Cases hold no foreign keys to clients and flows (schema.ts says why). What the keys guaranteed
 * must still hold: a case is only ever written under the authenticated key's own client and one of
 * that client's flows, and the rows a case refers to are never removed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { createCaseOnce, findActiveFlow, queryRows, type CaseRow } from '@idv/db';
import { newId, statusOf } from '@idv/domain';
import { secretHash } from '@idv/vault';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { otherClient } from '../helpers/tenants.ts';

let t: TestApp;
let other: Awaited<ReturnType<typeof otherClient>>;
before(async () => {
  t = await startTestApp();
  other = await otherClient(t);
});
after(() => t.close());

const casesOf = async (clientId: string) =>
  Number((await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM cases WHERE client_id = ${clientId}`))[0]!.n);

/** The one creation statement, with the demo key, writing the case row given. */
async function createWithDemoKey(row: { clientId: string; flowId: string }, idem: string) {
  const now = t.clock.now();
  const full: CaseRow = {
    id: newId('case', now.getTime()), clientId: row.clientId, environment: 'sandbox', flowId: row.flowId, flowName: 'standard', flowVersion: 1,
    country: 'FR', externalRef: null, declaredSealed: null, state: 'awaiting_applicant', status: statusOf('awaiting_applicant', false),
    journeyStarted: 0, checks: [], duplicates: [], decision: null, resubmission: null, createdAt: now, updatedAt: now, expiresAt: now,
  };
  return createCaseOnce(t.database.db, {
    secretHash: secretHash(t.demoKey.secret), apiKeyId: t.demoKey.id, idempotencyKey: idem, requestHash: 'h', now, retainUntil: now,
    response: { status: 201, body: {} }, row: full, journal: { actor: `key:${t.demoKey.id}`, action: 'case.created', detail: {} },
  });
}

describe('cases without foreign keys to clients and flows', () => {
  test("the creation statement writes nothing for another client's flow or under another client", async () => {
    const demoFlow = (await findActiveFlow(t.database.db, { clientId: t.demo.client_id, environment: 'sandbox' }, 'standard'))!;
    const otherFlow = (await findActiveFlow(t.database.db, { clientId: other.clientId, environment: 'sandbox' }, 'standard'))!;
    const before = [await casesOf(t.demo.client_id), await casesOf(other.clientId)];

    const foreignFlow = await createWithDemoKey({ clientId: t.demo.client_id, flowId: otherFlow.id }, 'tenancy-1');
    assert.equal(foreignFlow.result.outcome, 'flow_changed');
    const foreignClient = await createWithDemoKey({ clientId: other.clientId, flowId: otherFlow.id }, 'tenancy-2');
    assert.equal(foreignClient.result.outcome, 'flow_changed');
    assert.deepEqual([await casesOf(t.demo.client_id), await casesOf(other.clientId)], before);

    // The same statement with the key's own client and flow does write (the refusals above are not blanket).
    const own = await createWithDemoKey({ clientId: t.demo.client_id, flowId: demoFlow.id }, 'tenancy-3');
    assert.equal(own.result.outcome, 'created');
    assert.equal(await casesOf(t.demo.client_id), before[0]! + 1);
  });

  test('a client or a flow that cases refer to can be neither deleted nor renumbered', async () => {
    const res = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(res.statusCode, 201);
    const [{ client_id: clientId, flow_id: flowId }] = await queryRows<{ client_id: string; flow_id: string }>(
      t.database.db,
      sql`SELECT client_id, flow_id FROM cases WHERE id = ${res.json().id}`,
    );
    const refused = async (statement: ReturnType<typeof sql>) =>
      assert.rejects(queryRows(t.database.db, statement), (e: Error & { cause?: { code?: string } }) => {
        const code = (e as { code?: string }).code ?? e.cause?.code;
        assert.equal(code, '23503', String(e));
        return true;
      });
    await refused(sql`DELETE FROM flows WHERE id = ${flowId}`);
    await refused(sql`UPDATE flows SET id = 'flow_renumbered' WHERE id = ${flowId}`);
    await refused(sql`DELETE FROM clients WHERE id = ${clientId}`);
    await refused(sql`UPDATE clients SET id = 'cli_renumbered' WHERE id = ${clientId}`);
    const still = await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM cases c JOIN clients k ON k.id = c.client_id JOIN flows f ON f.id = c.flow_id WHERE c.id = ${res.json().id}`);
    assert.equal(still[0]!.n, 1);
  });
});
