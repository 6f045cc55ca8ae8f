import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { insertApiKey, type OperatorRow } from '@idv/db';
import { newId } from '@idv/domain';
import { randomSecret, secretHash } from '@idv/vault';
import { errorOf, type Credentials } from '../helpers/app.ts';
import { issueKey } from '../helpers/tenants.ts';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';
import { INTEGRATION_ROUTES, type IntegrationTarget } from '../helpers/integration-routes.ts';

/**
 * The console credential does operator-bound work only: on the integration routes (the ones the
 * spec gives no operator header) it is refused however it signs; on the routes open to both it
 * must name a real, active operator. It has no signing secret.
 */
let t: ReviewTestApp;
let admin: OperatorRow;
let target: IntegrationTarget;
before(async () => {
  t = await startReviewApp();
  admin = await addOperator(t, { role: 'administrator' });
  const { caseId } = await caseInReview(t, { country: 'FR' });
  const awaiting = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
  const session = await t.request('POST', '/v1/sessions', { signed: true, body: { case_id: awaiting.json().id, locale: 'en' } });
  assert.equal(session.statusCode, 201, session.body);
  target = { caseId, sessionId: session.json().id };
});
after(() => t.close());

const countCases = async () => (await t.request('GET', '/v1/cases?limit=100')).json().data.length as number;

/** A console credential issued before this rule, whose signing secret was printed: the signature checks out, the kind does not. */
async function olderConsoleCredential(): Promise<Credentials> {
  const now = t.clock.now();
  const id = newId('key', now.getTime());
  const secret = randomSecret('sk_sandbox_');
  const signingSecret = randomSecret('ssec_');
  await insertApiKey(t.database.db, {
    id,
    ...t.tenant,
    kind: 'console',
    name: 'older console',
    secretHash: secretHash(secret),
    secretPrefix: secret.slice(0, 15),
    signingSecretSealed: t.ctx.keyring.seal(signingSecret, `api_key:${id}:signing`),
    permissions: [],
    createdBy: 'test',
    createdAt: now,
  });
  return { id, secret, signingSecret };
}

// Every integration route against the console credential, with and without an operator: the
// authorisation matrix (operator-authz-matrix.test.ts). Here: what a signature cannot change.
describe('the console credential on integration routes', () => {
  test('signed correctly with the secret an older credential was given, it is refused all the same; nothing is created', async () => {
    const cases = await countCases();
    const older = await olderConsoleCredential();
    for (const route of INTEGRATION_ROUTES.filter((r) => r.signed)) {
      const { method, url, body } = route.request(target);
      const res = await t.request(method, url, { key: older, body, signed: true, headers: { 'x-service-operator': admin.id } });
      assert.deepEqual([res.statusCode, errorOf(res).code], [403, 'integration_key_required'], `${route.name}: ${res.body}`);
    }
    assert.equal(await countCases(), cases, 'no case was created');
    assert.equal((await t.request('GET', `/v1/cases/${target.caseId}`)).json().state, 'in_review', 'nor decided, nor erased');
  });

  test('an integration key still calls them; the console still does its own work', async () => {
    assert.equal((await t.request('GET', `/v1/cases/${target.caseId}`)).statusCode, 200);
    assert.equal((await t.asOperator(admin, 'GET', `/v1/cases/${target.caseId}/record`)).statusCode, 200);
    assert.equal((await t.asOperator(admin, 'GET', '/v1/cases?limit=1')).statusCode, 200);
  });
});

describe('the console credential on routes open to both', () => {
  const BOTH = ['/v1/cases', '/v1/api-keys', '/v1/webhook-endpoints', '/v1/webhook-deliveries', '/v1/webhook-events', '/v1/journey-embedding', '/v1/journey-appearance', '/v1/flows', '/v1/usage?period=2026-01', '/v1/api-usage', '/v1/contract'];

  test('must name a real, active operator of its client', async () => {
    const revoked = await addOperator(t, { role: 'administrator', status: 'revoked' });
    for (const url of BOTH) {
      const none = await t.request('GET', url, { key: t.consoleKey });
      assert.deepEqual([none.statusCode, errorOf(none).code], [401, 'operator_required'], `${url} without an operator`);
      const madeUp = await t.request('GET', url, { key: t.consoleKey, headers: { 'x-service-operator': newId('op', t.clock.now().getTime()) } });
      assert.deepEqual([madeUp.statusCode, errorOf(madeUp).code], [401, 'operator_unknown'], `${url} with a made-up operator`);
      const gone = await t.asOperator(revoked, 'GET', url);
      assert.deepEqual([gone.statusCode, errorOf(gone).code], [403, 'operator_revoked'], `${url} with a revoked operator`);
      assert.equal((await t.asOperator(admin, 'GET', url)).statusCode, 200, `${url} for an administrator`);
    }
  });
});

describe('a console credential has no signing secret', () => {
  test('issuing one gives none; a signed creation with it is refused and creates nothing', async () => {
    const issued = await issueKey(t, { clientId: t.tenant.clientId, kind: 'console' });
    assert.equal(issued.signingSecret, null);
    const cases = await countCases();
    const res = await t.request('POST', '/v1/cases', { key: issued, signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.deepEqual([res.statusCode, errorOf(res).code], [403, 'integration_key_required']);
    assert.equal(await countCases(), cases);
  });
});
