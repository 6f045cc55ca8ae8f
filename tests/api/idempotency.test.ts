import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { and, eq, sql } from 'drizzle-orm';
import { createClient, createFlowVersion, reserveIdempotencyKey, schema } from '@idv/db';
import { STANDARD_FLOW } from '@idv/domain';
import { signedHeaders } from '@idv/sdk';
import { errorOf, startTestApp, type Credentials, type TestApp } from '../helpers/app.ts';
import { activateStandardFlow, issueKey } from '../helpers/tenants.ts';

const LOCK_MS = 5_000;
const RETAIN_MS = 60_000;

let t: TestApp;
before(async () => {
  t = await startTestApp({ IDEMPOTENCY_LOCK_MS: String(LOCK_MS), IDEMPOTENCY_RETAIN_MS: String(RETAIN_MS) });
});
after(() => t.close());

const caseBody = (ref: string) => ({ flow_name: 'standard', country: 'FR', external_ref: ref });
const createCase = (ref: string, idempotencyKey: string, key?: Credentials) =>
  t.request('POST', '/v1/cases', { signed: true, body: caseBody(ref), idempotencyKey, key });
const casesWithRef = async (ref: string, key?: Credentials): Promise<string[]> => {
  const res = await t.request('GET', `/v1/cases?external_ref=${encodeURIComponent(ref)}&limit=100`, { key });
  assert.equal(res.statusCode, 200);
  return res.json().data.map((c: { id: string }) => c.id);
};
const sessionsOf = async (caseId: string) => t.database.db.select().from(schema.sessions).where(eq(schema.sessions.caseId, caseId));
const isReplay = (res: LightMyRequestResponse) => res.headers['idempotent-replayed'] === 'true';

/**
 * Puts an Idempotency-Key in the state "first request still running", as a concurrent or crashed
 * first request leaves it. The request fingerprint is taken from a completed twin request (same
 * method, path and body under another Idempotency-Key), so the test does not depend on how the
 * fingerprint is computed.
 */
async function reserveAsRunning(idem: string, twin: (twinIdem: string) => Promise<LightMyRequestResponse>): Promise<void> {
  const twinIdem = randomUUID();
  const res = await twin(twinIdem);
  assert.equal(res.statusCode, 201, res.body);
  const [twinRow] = await t.database.db
    .select()
    .from(schema.idempotencyKeys)
    .where(and(eq(schema.idempotencyKeys.apiKeyId, t.demoKey.id), eq(schema.idempotencyKeys.key, twinIdem)));
  assert.ok(twinRow, 'the twin request stored its idempotency entry');
  const reservation = await reserveIdempotencyKey(
    t.database.db,
    { apiKeyId: t.demoKey.id, key: idem, requestHash: twinRow.requestHash, signature: null },
    { now: t.clock.now(), lockMs: LOCK_MS, retainMs: RETAIN_MS },
  );
  assert.equal(reservation.outcome, 'reserved');
}

describe('replay', () => {
  test('a replay returns the same status and body with Idempotent-Replayed: true and creates nothing', async () => {
    const idem = randomUUID();
    const first = await createCase('replay-1', idem);
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined, 'the first response is not a replay');
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      const again = await createCase('replay-1', idem);
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
    }
    assert.deepEqual(await casesWithRef('replay-1'), [first.json().id]);
    const journal = await t.database.db.select().from(schema.caseJournal).where(eq(schema.caseJournal.caseId, first.json().id));
    assert.equal(journal.length, 1, 'one case.created entry');
  });

  test('a replayed session returns the same link and creates no second session', async () => {
    const caseId = (await createCase('replay-session', randomUUID())).json().id;
    const idem = randomUUID();
    const first = await t.request('POST', '/v1/sessions', { signed: true, body: { case_id: caseId }, idempotencyKey: idem });
    assert.equal(first.statusCode, 201);
    const again = await t.request('POST', '/v1/sessions', { signed: true, body: { case_id: caseId }, idempotencyKey: idem });
    assert.equal(again.statusCode, 201);
    assert.ok(isReplay(again));
    assert.deepEqual(again.json(), first.json());
    assert.equal((await sessionsOf(caseId)).length, 1);
  });

  test('a replay is still authenticated and signed: a stale signature is refused, not replayed', async () => {
    const idem = randomUUID();
    const first = await createCase('replay-signed', idem);
    assert.equal(first.statusCode, 201);
    const stale = await t.request('POST', '/v1/cases', { signed: true, body: caseBody('replay-signed'), idempotencyKey: idem, timestamp: Math.floor(t.clock.now().getTime() / 1000) - 400 });
    assert.equal(stale.statusCode, 401);
    assert.equal(errorOf(stale).code, 'signature_expired');
    assert.equal(isReplay(stale), false);
    const noKey = await t.request('POST', '/v1/cases', { key: null, body: caseBody('replay-signed'), headers: { 'idempotency-key': idem } });
    assert.equal(noKey.statusCode, 401);
    assert.equal(errorOf(noKey).code, 'api_key_missing');
  });

  test('a request refused before it ran (bad signature) does not use up its Idempotency-Key', async () => {
    const idem = randomUUID();
    const bad = await t.request('POST', '/v1/cases', { signed: true, body: caseBody('not-burnt'), idempotencyKey: idem, headers: { 'x-service-signature': `v2=${'0'.repeat(64)}` } });
    assert.equal(errorOf(bad).code, 'signature_invalid');
    const good = await createCase('not-burnt', idem);
    assert.equal(good.statusCode, 201);
    assert.equal(isReplay(good), false);
    assert.equal((await casesWithRef('not-burnt')).length, 1);
  });

  test('a stored 4xx refusal is replayed as well, even once the cause is gone', async () => {
    const idem = randomUUID();
    const body = { flow_name: 'premium', country: 'FR', external_ref: 'refused' };
    const first = await t.request('POST', '/v1/cases', { signed: true, body, idempotencyKey: idem });
    assert.equal(first.statusCode, 422);
    assert.equal(errorOf(first).code, 'unknown_flow');
    // The flow now exists; the same intention still gets the same answer.
    await t.database.db.transaction((tx) =>
      createFlowVersion(tx, { clientId: t.demo.client_id, environment: 'sandbox' }, 'premium', STANDARD_FLOW, t.clock.now(), true),
    );
    const again = await t.request('POST', '/v1/cases', { signed: true, body, idempotencyKey: idem });
    assert.equal(again.statusCode, 422);
    assert.ok(isReplay(again));
    assert.deepEqual(again.json(), first.json(), 'the stored body, unchanged (including its request_id)');
    assert.deepEqual(await casesWithRef('refused'), []);
    // A new intention (new key) now succeeds.
    const fresh = await t.request('POST', '/v1/cases', { signed: true, body, idempotencyKey: randomUUID() });
    assert.equal(fresh.statusCode, 201);
  });

  test('a refusal of the session route (404 case) is replayed too', async () => {
    const idem = randomUUID();
    const body = { case_id: 'case_00000000000000000000000000' };
    const first = await t.request('POST', '/v1/sessions', { signed: true, body, idempotencyKey: idem });
    assert.equal(first.statusCode, 404);
    const again = await t.request('POST', '/v1/sessions', { signed: true, body, idempotencyKey: idem });
    assert.equal(again.statusCode, 404);
    assert.ok(isReplay(again));
    assert.deepEqual(again.json(), first.json());
  });
});

describe('reuse and concurrency', () => {
  test('the same key with another body -> 422 idempotency_key_reused, nothing created', async () => {
    const idem = randomUUID();
    const first = await createCase('reuse-a', idem);
    assert.equal(first.statusCode, 201);
    const other = await createCase('reuse-b', idem);
    assert.equal(other.statusCode, 422);
    const err = errorOf(other);
    assert.equal(err.code, 'idempotency_key_reused');
    assert.equal(err.type, 'idempotency_error');
    assert.equal(err.field, 'Idempotency-Key');
    assert.deepEqual(await casesWithRef('reuse-b'), []);
    // Another route with the same key is another request too.
    const onSessions = await t.request('POST', '/v1/sessions', { signed: true, body: { case_id: first.json().id }, idempotencyKey: idem });
    assert.equal(onSessions.statusCode, 422);
    assert.equal(errorOf(onSessions).code, 'idempotency_key_reused');
    assert.equal((await sessionsOf(first.json().id)).length, 0);
    // And the original intention still replays.
    const replay = await createCase('reuse-a', idem);
    assert.ok(isReplay(replay));
    assert.equal(replay.json().id, first.json().id);
  });

  test('the same key while the first request runs -> 409 idempotency_request_in_progress; another body -> 422 reused', async () => {
    const idem = randomUUID();
    await reserveAsRunning(idem, (k) => createCase('in-progress', k));
    const before = await casesWithRef('in-progress');
    const res = await createCase('in-progress', idem);
    assert.equal(res.statusCode, 409);
    const err = errorOf(res);
    assert.equal(err.code, 'idempotency_request_in_progress');
    assert.equal(err.type, 'idempotency_error');
    assert.equal(res.headers['retry-after'], '1');
    const other = await createCase('in-progress-other', idem);
    assert.equal(errorOf(other).code, 'idempotency_key_reused');
    assert.deepEqual(await casesWithRef('in-progress'), before, 'nothing created while the first runs');
    assert.deepEqual(await casesWithRef('in-progress-other'), []);
  });

  test('50 concurrent identical requests create exactly one case; each answer is the 201, its replay, or 409 in progress', async () => {
    const idem = randomUUID();
    const responses = await Promise.all(Array.from({ length: 50 }, () => createCase('concurrent-50', idem)));
    const ids = await casesWithRef('concurrent-50');
    assert.equal(ids.length, 1, `exactly one case, got ${ids.length}`);
    const originals = responses.filter((r) => r.statusCode === 201 && !isReplay(r));
    assert.equal(originals.length, 1, 'exactly one request did the work');
    for (const r of responses) {
      if (r.statusCode === 201) assert.equal(r.json().id, ids[0]);
      else {
        assert.equal(r.statusCode, 409, r.body);
        assert.equal(errorOf(r).code, 'idempotency_request_in_progress');
      }
    }
    const tally = responses.reduce<Record<string, number>>((acc, r) => {
      const k = r.statusCode === 201 ? (isReplay(r) ? '201 replayed' : '201') : `${r.statusCode}`;
      acc[k] = (acc[k] ?? 0) + 1;
      return acc;
    }, {});
    console.log(`50 concurrent identical creations: ${JSON.stringify(tally)}`);
    const replay = await createCase('concurrent-50', idem);
    assert.ok(isReplay(replay));
    assert.equal(replay.json().id, ids[0]);
  });

  test('50 concurrent different keys create 50 cases, each committed with its journal entry and stored response', async () => {
    const idems = Array.from({ length: 50 }, () => randomUUID());
    const responses = await Promise.all(idems.map((idem) => createCase('concurrent-distinct', idem)));
    assert.deepEqual(new Set(responses.map((r) => r.statusCode)), new Set([201]));
    assert.equal((await casesWithRef('concurrent-distinct')).length, 50);
    // xmin: the transaction that wrote each row.
    const { rows } = (await t.database.db.execute(sql`
      SELECT i.key AS "idem", c.id AS "caseId", c.xmin::text AS "case", j.xmin::text AS "journal", i.xmin::text AS "entry"
      FROM idempotency_keys AS i, cases AS c JOIN case_journal AS j ON j.case_id = c.id
      WHERE i.key IN ${idems} AND c.id IN ${responses.map((r) => r.json().id as string)}`)) as unknown as {
      rows: { idem: string; caseId: string; case: string; journal: string; entry: string }[];
    };
    const caseOf = new Map<string, string>(idems.map((idem, i) => [idem, responses[i].json().id as string]));
    const pairs = rows.filter((r) => caseOf.get(r.idem) === r.caseId);
    assert.equal(pairs.length, 50);
    for (const r of pairs) assert.deepEqual([r.journal, r.entry], [r.case, r.case], 'a case, its journal entry and its stored response commit together');
  });

  test('concurrent creations are written together (one statement, one commit) and each keeps its own answer', async () => {
    const idems = Array.from({ length: 20 }, () => randomUUID());
    const responses = await Promise.all(idems.map((idem, i) => createCase(`group-${i}`, idem)));
    assert.deepEqual(new Set(responses.map((r) => r.statusCode)), new Set([201]));
    const ids = responses.map((r) => r.json().id as string);
    const { rows } = (await t.database.db.execute(sql`SELECT DISTINCT xmin::text AS "tx" FROM cases WHERE id IN ${ids}`)) as unknown as { rows: { tx: string }[] };
    assert.ok(rows.length < ids.length, `20 creations in ${rows.length} transactions: some share one`);
  });

  test('a burst mixing new creations, twins of one Idempotency-Key and a replayed signature: each its own answer', async () => {
    const body = JSON.stringify(caseBody('burst-replayed'));
    const headers = {
      authorization: `Bearer ${t.demoKey.secret}`,
      'content-type': 'application/json',
      ...signedHeaders(t.demoKey.signingSecret, 'POST', '/v1/cases', body, randomUUID(), Math.floor(t.clock.now().getTime() / 1000) - 7),
    };
    const first = await t.app.inject({ method: 'POST', url: '/v1/cases', headers, payload: body });
    assert.equal(first.statusCode, 201, first.body);
    const twin = randomUUID();
    const burst = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => createCase(`burst-new-${i}`, randomUUID())),
      ...Array.from({ length: 3 }, () => createCase('burst-twin', twin)),
      t.app.inject({ method: 'POST', url: '/v1/cases', headers: { ...headers, 'idempotency-key': randomUUID() }, payload: body }),
    ]);
    assert.deepEqual(burst.slice(0, 8).map((r) => r.statusCode), Array(8).fill(201));
    assert.equal(new Set(burst.slice(0, 8).map((r) => r.json().id)).size, 8);
    const twins = burst.slice(8, 11);
    assert.ok(twins.every((r) => r.statusCode === 201 || r.statusCode === 409), twins.map((r) => r.body).join('\n'));
    assert.equal((await casesWithRef('burst-twin')).length, 1, 'one case for the twins');
    assert.equal(burst[11].statusCode, 401);
    assert.equal(errorOf(burst[11]).code, 'signature_replayed');
    assert.deepEqual(await casesWithRef('burst-replayed'), [first.json().id], 'the replay created nothing');
  });

  test('the key is per API key: the same Idempotency-Key on two keys creates two cases', async () => {
    const sibling = await issueKey(t, { clientId: t.demo.client_id });
    const idem = randomUUID();
    const a = await createCase('per-key', idem);
    const b = await createCase('per-key', idem, sibling);
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201);
    assert.equal(isReplay(b), false);
    assert.notEqual(a.json().id, b.json().id);
    assert.equal((await casesWithRef('per-key')).length, 2);
    // Across clients too: a second client's key with the same Idempotency-Key.
    const client = await createClient(t.database.db, 'Second', t.clock.now());
    await activateStandardFlow(t, client.id, 'sandbox');
    const foreign = await issueKey(t, { clientId: client.id });
    const c = await createCase('per-key', idem, foreign);
    assert.equal(c.statusCode, 201);
    assert.equal(isReplay(c), false);
    assert.deepEqual(await casesWithRef('per-key', foreign), [c.json().id]);
  });
});

describe('retention and crash recovery', () => {
  test('within the retention window a replay; after it, the key may be used again', async () => {
    const idem = randomUUID();
    const first = await createCase('retained', idem);
    assert.equal(first.statusCode, 201);
    t.clock.advance(RETAIN_MS - 1000);
    const within = await createCase('retained', idem);
    assert.ok(isReplay(within));
    assert.equal(within.json().id, first.json().id);
    t.clock.advance(2000);
    const afterWindow = await createCase('retained', idem);
    assert.equal(afterWindow.statusCode, 201);
    assert.equal(isReplay(afterWindow), false);
    assert.notEqual(afterWindow.json().id, first.json().id);
    assert.equal((await casesWithRef('retained')).length, 2);
    // Expired, the key also accepts a different request.
    t.clock.advance(RETAIN_MS + 1000);
    const different = await createCase('retained-other', idem);
    assert.equal(different.statusCode, 201);
    assert.equal(isReplay(different), false);
  });

  test('a reservation whose lock elapsed (crashed first request) is taken over by a retry', async () => {
    const idem = randomUUID();
    await reserveAsRunning(idem, (k) => createCase('crashed', k));
    const before = await casesWithRef('crashed');
    t.clock.advance(LOCK_MS - 1000);
    const early = await createCase('crashed', idem);
    assert.equal(early.statusCode, 409, 'still within the lock');
    assert.equal(errorOf(early).code, 'idempotency_request_in_progress');
    t.clock.advance(2000);
    const retry = await createCase('crashed', idem);
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(isReplay(retry), false);
    const after = await casesWithRef('crashed');
    assert.equal(after.length, before.length + 1);
    assert.ok(after.includes(retry.json().id));
    const [row] = await t.database.db
      .select()
      .from(schema.idempotencyKeys)
      .where(and(eq(schema.idempotencyKeys.apiKeyId, t.demoKey.id), eq(schema.idempotencyKeys.key, idem)));
    assert.equal(row.state, 'done');
    assert.equal(row.responseStatus, 201);
    const replay = await createCase('crashed', idem);
    assert.ok(isReplay(replay));
    assert.equal(replay.json().id, retry.json().id);
  });

  test('an elapsed lock is not taken over by a different request', async () => {
    const idem = randomUUID();
    await reserveAsRunning(idem, (k) => createCase('crashed-b', k));
    t.clock.advance(LOCK_MS + 1000);
    const other = await createCase('crashed-other', idem);
    assert.equal(other.statusCode, 422);
    assert.equal(errorOf(other).code, 'idempotency_key_reused');
    assert.deepEqual(await casesWithRef('crashed-other'), []);
  });
});
