/**
 * Cases hold no foreign keys to clients and flows (schema.ts says why). What the keys guaranteed
 * must still hold: a case is only ever written under the authenticated key's own client and one of
 * that client's flows, and the rows a case refers to are never removed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { findActiveFlow, queryRows } from '@idv/db';
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

/** The client and flow a created case was written under. */
const ownerOf = async (caseId: string) =>
  (await queryRows<{ client_id: string; flow_id: string }>(t.database.db, sql`SELECT client_id, flow_id FROM cases WHERE id = ${caseId}`))[0]!;

describe('cases without foreign keys to clients and flows', () => {
  test("a creation writes the case under the key's own client and that client's flow of the name, never another's", async () => {
    const demoFlow = (await findActiveFlow(t.database.db, { clientId: t.demo.client_id, environment: 'sandbox' }, 'standard'))!;
    const otherFlow = (await findActiveFlow(t.database.db, { clientId: other.clientId, environment: 'sandbox' }, 'standard'))!;
    assert.notEqual(demoFlow.id, otherFlow.id);
    const before = [await casesOf(t.demo.client_id), await casesOf(other.clientId)];

    const demo = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(demo.statusCode, 201, demo.body);
    assert.deepEqual(await ownerOf(demo.json().id), { client_id: t.demo.client_id, flow_id: demoFlow.id });
    const theirs = await t.request('POST', '/v1/cases', { signed: true, key: other.key, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(theirs.statusCode, 201, theirs.body);
    assert.deepEqual(await ownerOf(theirs.json().id), { client_id: other.clientId, flow_id: otherFlow.id });
    assert.deepEqual([await casesOf(t.demo.client_id), await casesOf(other.clientId)], [before[0]! + 1, before[1]! + 1]);
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
