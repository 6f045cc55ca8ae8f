import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { findActiveFlow, listClientJournal, type OperatorRow } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { addOperator, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';
import { caseReports, seedDecidedCases } from '../helpers/flows.ts';
import { otherClient } from '../helpers/tenants.ts';

/**
 * The flow routes (docs/flows.md): read, create a version (signed, idempotent, validated with the
 * offending path), activate (journaled; cases keep their version), dry run on stored reports; open
 * to integration keys and, through the console credential, to administrators (all) and
 * supervisors (read and dry run), never to reviewers or support accounts.
 */

let t: ReviewTestApp;
let admin: OperatorRow;
let supervisor: OperatorRow;
let reviewer: OperatorRow;
let support: OperatorRow;
const edited = (patch: (d: FlowDefinition) => void): FlowDefinition => {
  const d = structuredClone(STANDARD_FLOW);
  patch(d);
  return d;
};

before(async () => {
  t = await startReviewApp();
  admin = await addOperator(t, { role: 'administrator' });
  supervisor = await addOperator(t, { role: 'supervisor' });
  reviewer = await addOperator(t, { role: 'reviewer' });
  support = await addOperator(t, { role: 'support' });
});
after(() => t.close());

const console_ = (op: OperatorRow, method: string, url: string, body?: unknown, idem: string | null = randomUUID()) =>
  t.asOperator(op, method, url, { body, headers: idem ? { 'idempotency-key': idem } : {} });

describe('flows: reading', () => {
  test('GET /v1/flows lists the client’s flows with their active version; GET /v1/flows/{name} gives every version with its definition', async () => {
    const list = await t.request('GET', '/v1/flows');
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(
      list.json().data.map((f: { name: string; active_version: number; latest_version: number; versions: number }) => [f.name, f.active_version, f.latest_version, f.versions]),
      [['standard', 1, 1, 1]],
    );
    const one = await t.request('GET', '/v1/flows/standard');
    assert.equal(one.statusCode, 200);
    assert.equal(one.json().active_version, 1);
    assert.deepEqual(one.json().versions[0].definition, STANDARD_FLOW);
    assert.equal((await t.request('GET', '/v1/flows/nothing')).json().error.code, 'resource_not_found');
    assert.equal((await t.request('GET', '/v1/flows/Not-A-Name')).json().error.code, 'parameter_invalid');
  });

  test('another client sees only its own flows', async () => {
    const other = await otherClient(t);
    const answer = await t.request('GET', '/v1/flows', { key: other.key });
    assert.equal(answer.statusCode, 200);
    const created = await t.request('POST', '/v1/flows/standard/versions', { signed: true, key: other.key, body: { definition: STANDARD_FLOW } });
    assert.equal(created.json().version, 2);
    assert.equal((await t.request('GET', '/v1/flows/standard')).json().versions.length >= 1, true);
    assert.equal((await t.request('GET', '/v1/flows/standard')).json().versions.every((v: { id: string }) => v.id !== created.json().id), true);
  });
});

describe('flows: creating and activating versions', () => {
  test('a signed creation makes the next version, a draft, idempotent; unsigned it is refused', async () => {
    const body = { definition: edited((d) => (d.double_validation = true)) };
    const idem = randomUUID();
    const first = await t.request('POST', '/v1/flows/standard/versions', { signed: true, body, idempotencyKey: idem });
    assert.equal(first.statusCode, 201, first.body);
    assert.deepEqual([first.json().version, first.json().status, first.json().definition.double_validation], [2, 'draft', true]);
    const again = await t.request('POST', '/v1/flows/standard/versions', { signed: true, body, idempotencyKey: idem });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().id, first.json().id);
    assert.equal((await t.request('POST', '/v1/flows/standard/versions', { body })).json().error.code, 'signature_missing');
    assert.equal((await t.request('GET', '/v1/flows/standard')).json().versions.length, 2);
  });

  test('an invalid definition is refused with the offending path in field: schema (parameter_invalid) and rules (flow_definition_invalid)', async () => {
    const post = (definition: unknown) => t.request('POST', '/v1/flows/standard/versions', { signed: true, body: { definition } });
    const schemaError = (await post(edited((d) => (d.checks.face_match_max_distance = 3)))).json().error;
    assert.deepEqual([schemaError.code, schemaError.field], ['parameter_invalid', 'definition.checks.face_match_max_distance']);
    const unknown = (await post({ ...STANDARD_FLOW, colour: 'red' })).json().error;
    assert.deepEqual([unknown.code, unknown.field], ['parameter_unknown', 'definition.colour']);
    const rule = await post(edited((d) => (d.checks.face_match_max_distance = STANDARD_FLOW.checks.face_review_max_distance + 0.05)));
    assert.equal(rule.statusCode, 422);
    assert.deepEqual([rule.json().error.code, rule.json().error.field], ['flow_definition_invalid', 'definition.checks.face_match_max_distance']);
    const twice = (await post(edited((d) => d.documents.push({ country: '*', types: ['passport'] })))).json().error;
    assert.deepEqual([twice.code, twice.field], ['flow_definition_invalid', 'definition.documents.1.country']);
  });

  test('decision.presentation_attacks: a version keeps what it sets; an unknown action or reason is refused with 422 at its path', async () => {
    const post = (definition: unknown) => t.request('POST', '/v1/flows/standard/versions', { signed: true, body: { definition } });
    const set = { challenge_expired: 'review', selfie_is_document_portrait: 'retake' } as const;
    const created = await post(edited((d) => (d.decision.presentation_attacks = { ...set })));
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(created.json().definition.decision.presentation_attacks, set);
    const action = await post(edited((d) => (d.decision.presentation_attacks = { challenge_expired: 'approve' as never })));
    assert.equal(action.statusCode, 422);
    assert.deepEqual([action.json().error.code, action.json().error.field], ['parameter_invalid', 'definition.decision.presentation_attacks.challenge_expired']);
    const reason = await post(edited((d) => (d.decision.presentation_attacks = { faces_differ: 'review' } as never)));
    assert.equal(reason.statusCode, 422);
    assert.deepEqual([reason.json().error.code, reason.json().error.field], ['parameter_unknown', 'definition.decision.presentation_attacks.faces_differ']);
  });

  test('activation is journaled; a case opened before keeps its version, one opened after uses the new one', async () => {
    const before_ = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(before_.json().flow_version, 1);
    const created = await t.request('POST', '/v1/flows/standard/versions', { signed: true, body: { definition: edited((d) => (d.case_lifetime_hours = 48)) } });
    const version = created.json().version as number;
    const activated = await t.request('POST', `/v1/flows/standard/versions/${version}/activate`, { signed: true });
    assert.equal(activated.statusCode, 200, activated.body);
    assert.deepEqual([activated.json().version, activated.json().status], [version, 'active']);
    assert.equal((await findActiveFlow(t.database.db, t.tenant, 'standard'))?.version, version);

    const after_ = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(after_.json().flow_version, version);
    assert.equal((await t.request('GET', `/v1/cases/${before_.json().id}`)).json().flow_version, 1);

    const journal = (await listClientJournal(t.database.db, t.tenant)).filter((e) => e.action.startsWith('flow.'));
    const last = journal.find((e) => e.action === 'flow.version_activated' && e.detail.version === version)!;
    assert.deepEqual([last.action, last.actor, last.detail], ['flow.version_activated', `key:${t.demoKey.id}`, { name: 'standard', version, previous_version: 1 }]);
    // Again: nothing changes, nothing more is journaled.
    await t.request('POST', `/v1/flows/standard/versions/${version}/activate`, { signed: true });
    assert.equal((await listClientJournal(t.database.db, t.tenant)).filter((e) => e.action.startsWith('flow.')).length, journal.length);
    const list = (await t.request('GET', '/v1/flows')).json().data.find((f: { name: string }) => f.name === 'standard');
    assert.equal(list.active_version, version);
    assert.equal((await t.request('POST', '/v1/flows/standard/versions/99/activate', { signed: true })).json().error.code, 'resource_not_found');
    // Back to version 1 for the tests that follow (a rollback is an activation like another).
    assert.equal((await t.request('POST', '/v1/flows/standard/versions/1/activate', { signed: true })).json().status, 'active');
  });
});

describe('flows: the console, by role', () => {
  test('an administrator creates and activates without a signature but with an Idempotency-Key; the journal names the operator', async () => {
    const created = await console_(admin, 'POST', '/v1/flows/standard/versions', { definition: edited((d) => (d.liveness.challenges = ['look_up'])) });
    assert.equal(created.statusCode, 201, created.body);
    const v = created.json().version;
    const activated = await console_(admin, 'POST', `/v1/flows/standard/versions/${v}/activate`);
    assert.equal(activated.statusCode, 200, activated.body);
    const journal = (await listClientJournal(t.database.db, t.tenant)).filter((e) => e.actor === `op:${admin.id}`);
    assert.deepEqual(journal.map((e) => e.action).sort(), ['flow.version_activated', 'flow.version_created']);
    const missing = await console_(admin, 'POST', '/v1/flows/standard/versions', { definition: STANDARD_FLOW }, null);
    assert.equal(missing.json().error.code, 'idempotency_key_missing');
    await console_(admin, 'POST', '/v1/flows/standard/versions/1/activate');
  });

  test('a supervisor reads and dry-runs but may not create or activate; reviewers and support accounts get nothing', async () => {
    assert.equal((await console_(supervisor, 'GET', '/v1/flows')).statusCode, 200);
    assert.equal((await console_(supervisor, 'GET', '/v1/flows/standard')).statusCode, 200);
    assert.equal((await console_(supervisor, 'POST', '/v1/flows/standard/dry-run', { version: 1, cases: 10 })).statusCode, 200);
    for (const [method, url, body] of [
      ['POST', '/v1/flows/standard/versions', { definition: STANDARD_FLOW }],
      ['POST', '/v1/flows/standard/versions/1/activate', undefined],
    ] as const) {
      const refused = await console_(supervisor, method, url, body);
      assert.deepEqual([refused.statusCode, refused.json().error.code], [403, 'operator_role_insufficient'], url);
    }
    for (const op of [reviewer, support]) {
      for (const [method, url, body] of [
        ['GET', '/v1/flows', undefined],
        ['GET', '/v1/flows/standard', undefined],
        ['POST', '/v1/flows/standard/dry-run', { version: 1 }],
        ['POST', '/v1/flows/standard/versions', { definition: STANDARD_FLOW }],
        ['POST', '/v1/flows/standard/versions/1/activate', undefined],
      ] as const) {
        const refused = await console_(op, method, url, body);
        assert.deepEqual([refused.statusCode, refused.json().error.code], [403, 'operator_role_insufficient'], `${op.role} ${method} ${url}`);
      }
    }
    // The console credential must name an operator.
    assert.equal((await t.request('GET', '/v1/flows', { key: t.consoleKey })).json().error.code, 'operator_required');
  });
});

describe('flows: dry run', () => {
  test('a draft decided on the stored reports of the newest decided cases: counts from → to, a few ids, nothing personal', async () => {
    const flow = (await findActiveFlow(t.database.db, t.tenant, 'standard'))!;
    assert.equal(flow.version, 1);
    const approved = Array.from({ length: 6 }, () => ({ reports: caseReports(STANDARD_FLOW, 0.4), state: 'approved' as const }));
    const uncertain = Array.from({ length: 7 }, (_, i) => ({ reports: caseReports(STANDARD_FLOW, 1.07 + i / 200), state: 'in_review' as const }));
    const differ = Array.from({ length: 2 }, () => ({ reports: caseReports(STANDARD_FLOW, 1.3), state: 'rejected' as const }));
    const ids = await seedDecidedCases(t.database.db, t.tenant, flow, [...approved, ...uncertain, ...differ], t.clock.now());

    const draft = edited((d) => (d.decision.on_attention = 'reject'));
    const res = await t.request('POST', '/v1/flows/standard/dry-run', { body: { definition: draft, cases: 100 } });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['cases_requested', 'changed', 'evaluated', 'matrix', 'name', 'object', 'skipped', 'version']);
    assert.deepEqual([body.evaluated, body.changed, body.skipped, body.version], [15, 7, 0, null]);
    const moved = body.matrix.find((c: { from: string; to: string }) => c.from === 'in_review' && c.to === 'rejected');
    assert.equal(moved.count, 7);
    const uncertainIds = ids.slice(6, 13).reverse();
    assert.deepEqual(moved.case_ids, uncertainIds.slice(0, 5), 'newest first, five at most');
    assert.deepEqual(
      body.matrix.filter((c: { from: string; to: string }) => c.from === c.to).map((c: { from: string; count: number; case_ids: string[] }) => [c.from, c.count, c.case_ids.length]),
      [['approved', 6, 0], ['rejected', 2, 0]],
    );

    // Only the newest N; and a wider face threshold approves the uncertain ones instead.
    const newest = (await t.request('POST', '/v1/flows/standard/dry-run', { body: { definition: draft, cases: 2 } })).json();
    assert.deepEqual([newest.evaluated, newest.changed], [2, 0]);
    const wider = (await t.request('POST', '/v1/flows/standard/dry-run', { body: { definition: edited((d) => (d.checks.face_match_max_distance = 1.12)), cases: 100 } })).json();
    assert.deepEqual(wider.matrix.filter((c: { from: string; to: string }) => c.from !== c.to).map((c: { from: string; to: string; count: number }) => [c.from, c.to, c.count]), [['in_review', 'approved', 7]]);

    // A stored version by its number: version 1 against itself changes nothing.
    const same = (await t.request('POST', '/v1/flows/standard/dry-run', { body: { version: 1 } })).json();
    assert.deepEqual([same.version, same.cases_requested, same.changed, same.evaluated], [1, 1000, 0, 15]);
  });

  test('bad bodies: both or neither draft, too many cases, an unknown version, a definition breaking a rule', async () => {
    const post = (body: unknown) => t.request('POST', '/v1/flows/standard/dry-run', { body });
    assert.deepEqual(pick((await post({ version: 1, definition: STANDARD_FLOW })).json()), ['parameter_invalid', 'definition']);
    assert.deepEqual(pick((await post({})).json()), ['parameter_invalid', 'definition']);
    assert.deepEqual(pick((await post({ version: 1, cases: 10_001 })).json()), ['parameter_invalid', 'cases']);
    assert.deepEqual(pick((await post({ version: 1, cases: 0 })).json()), ['parameter_invalid', 'cases']);
    assert.equal((await post({ version: 42 })).json().error.code, 'resource_not_found');
    assert.deepEqual(pick((await post({ definition: edited((d) => (d.steps = ['face'])) })).json()), ['flow_definition_invalid', 'definition.steps']);
  });
});

const pick = (body: { error: { code: string; field?: string } }) => [body.error.code, body.error.field];
