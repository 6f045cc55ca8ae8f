import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { insertSupportGrant, updateTask, type OperatorRow } from '@idv/db';
import { newId, type OperatorRole } from '@idv/domain';
import { errorOf, type ConsoleCredentials, type Credentials } from '../helpers/app.ts';
import { INTEGRATION_ROUTES, type IntegrationTarget } from '../helpers/integration-routes.ts';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';

/**
 * The authorisation matrix: every operator-bound route × every role, in and out of clearance,
 * revoked, without or with a stale re-authentication, with an integration key instead of the
 * console credential, and without the operator header; every integration route × the console
 * credential (with and without an operator) and an integration key; and key-against-key
 * revocation, every permission set against every other and the console credential. Each cell has
 * its expected status and code, written here from the spec's rules (not from the service's own
 * tables); each matrix is printed as a table.
 */

let t: ReviewTestApp;
before(async () => {
  t = await startReviewApp();
});

type Role = OperatorRole;
interface Route {
  name: string;
  /** Roles the spec lets through. */
  roles: Role[];
  reauth: boolean;
  /** Bound to a task or case, so an operator outside its country gets 404. */
  clearance: boolean;
  /** Open to support accounts only through a support grant in force: without one, 404 as outside the clearance. */
  supportNeedsGrant?: boolean;
  /** Also an integration route (case search): an integration key is answered as usual, unchecked for an operator. */
  integrationKeyOk?: boolean;
  ok: number;
  /** Builds a fresh target for one cell; `op` is the acting operator (locks are given to it). */
  prepare(op: OperatorRow): Promise<{ method: string; url: string; body?: unknown }>;
}

const ALL: Role[] = ['administrator', 'supervisor', 'reviewer', 'support'];
const CASE_READERS: Role[] = ['administrator', 'supervisor', 'reviewer', 'support'];
const REVIEWERS: Role[] = ['administrator', 'supervisor', 'reviewer'];

async function lockedTask(op: OperatorRow) {
  const { taskId, caseId } = await caseInReview(t, { country: 'FR' });
  await updateTask(t.database.db, t.tenant, taskId, { lockedBy: op.id, lockExpiresAt: new Date(t.clock.now().getTime() + 30 * 60_000) });
  return { taskId, caseId };
}

const ROUTES: Route[] = [
  { name: 'GET /v1/operators/directory', roles: ALL, reauth: false, clearance: false, ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/operators/directory' }) },
  { name: 'GET /v1/operators', roles: ['administrator'], reauth: false, clearance: false, ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/operators' }) },
  {
    name: 'POST /v1/operators',
    roles: ['administrator'],
    reauth: true,
    clearance: false,
    ok: 201,
    prepare: async () => ({ method: 'POST', url: '/v1/operators', body: { name: 'New One', role: 'reviewer', countries: ['FR'], sensitivity: 'standard' } }),
  },
  {
    name: 'PATCH /v1/operators/{id}',
    roles: ['administrator'],
    reauth: true,
    clearance: false,
    ok: 200,
    prepare: async () => ({ method: 'PATCH', url: `/v1/operators/${(await addOperator(t, { role: 'reviewer' })).id}`, body: { sensitivity: 'sensitive' } }),
  },
  {
    name: 'POST /v1/operators/{id}/revoke',
    roles: ['administrator'],
    reauth: true,
    clearance: false,
    ok: 204,
    prepare: async () => ({ method: 'POST', url: `/v1/operators/${(await addOperator(t, { role: 'reviewer' })).id}/revoke` }),
  },
  { name: 'GET /v1/reviews', roles: REVIEWERS, reauth: false, clearance: false, ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/reviews' }) },
  { name: 'GET /v1/reviews/summary', roles: REVIEWERS, reauth: false, clearance: false, ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/reviews/summary' }) },
  {
    name: 'GET /v1/reviews/metrics',
    roles: ['administrator', 'supervisor'],
    reauth: false,
    clearance: false,
    ok: 200,
    prepare: async () => ({ method: 'GET', url: '/v1/reviews/metrics' }),
  },
  {
    name: 'GET /v1/reviews/analytics',
    roles: ['administrator', 'supervisor'],
    reauth: false,
    clearance: false,
    ok: 200,
    prepare: async () => ({ method: 'GET', url: '/v1/reviews/analytics' }),
  },
  {
    name: 'GET /v1/reviews/{id}',
    roles: REVIEWERS,
    reauth: false,
    clearance: true,
    ok: 200,
    prepare: async () => ({ method: 'GET', url: `/v1/reviews/${(await caseInReview(t, { country: 'FR' })).taskId}` }),
  },
  {
    name: 'POST /v1/reviews/{id}/claim',
    roles: REVIEWERS,
    reauth: false,
    clearance: true,
    ok: 200,
    prepare: async () => ({ method: 'POST', url: `/v1/reviews/${(await caseInReview(t, { country: 'FR' })).taskId}/claim` }),
  },
  {
    name: 'POST /v1/reviews/{id}/lock',
    roles: REVIEWERS,
    reauth: false,
    clearance: true,
    ok: 200,
    prepare: async (op) => ({ method: 'POST', url: `/v1/reviews/${(await lockedTask(op)).taskId}/lock` }),
  },
  {
    name: 'GET /v1/reviews/{id}/case',
    roles: REVIEWERS,
    reauth: false,
    clearance: true,
    ok: 200,
    prepare: async () => ({ method: 'GET', url: `/v1/reviews/${(await caseInReview(t, { country: 'FR' })).taskId}/case` }),
  },
  {
    name: 'POST /v1/reviews/{id}/corrections',
    roles: REVIEWERS,
    reauth: false,
    clearance: true,
    ok: 201,
    prepare: async (op) => ({
      method: 'POST',
      url: `/v1/reviews/${(await lockedTask(op)).taskId}/corrections`,
      body: { field: 'subject.surname', value: 'Martin' },
    }),
  },
  {
    name: 'POST /v1/reviews/{id}/decision',
    roles: REVIEWERS,
    reauth: false,
    clearance: true,
    ok: 201,
    prepare: async (op) => ({ method: 'POST', url: `/v1/reviews/${(await lockedTask(op)).taskId}/decision`, body: { outcome: 'approve' } }),
  },
  {
    name: 'POST /v1/reviews/{id}/revision',
    roles: ['supervisor'],
    reauth: true,
    clearance: true,
    ok: 201,
    prepare: async () => {
      const { taskId, caseId } = await caseInReview(t, { country: 'FR' });
      const decided = await t.request('POST', `/v1/cases/${caseId}/decision`, { signed: true, body: { outcome: 'approve' } });
      assert.equal(decided.statusCode, 201, decided.body);
      return { method: 'POST', url: `/v1/reviews/${taskId}/revision`, body: { outcome: 'reject', reason_code: 'suspected_fraud' } };
    },
  },
  {
    name: 'POST /v1/cases/{id}/journey-link',
    roles: REVIEWERS,
    reauth: false,
    clearance: true,
    ok: 201,
    prepare: async () => {
      const created = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
      return { method: 'POST', url: `/v1/cases/${created.json().id}/journey-link`, body: {} };
    },
  },
  // Case search: with the console credential, within the operator's clearance (an operator outside it gets an empty page, not 404).
  { name: 'GET /v1/cases', roles: REVIEWERS, reauth: false, clearance: false, integrationKeyOk: true, ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/cases?limit=5' }) },
  { name: 'GET /v1/cases/export', roles: REVIEWERS, reauth: false, clearance: false, integrationKeyOk: true, ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/cases/export?country=FR' }) },
  {
    name: 'GET /v1/cases/{id}/record',
    roles: CASE_READERS,
    reauth: false,
    clearance: true,
    supportNeedsGrant: true,
    ok: 200,
    prepare: async () => ({ method: 'GET', url: `/v1/cases/${(await caseInReview(t, { country: 'FR' })).caseId}/record` }),
  },
  {
    name: 'POST /v1/support-access',
    roles: ['administrator', 'supervisor'],
    reauth: true,
    clearance: true,
    ok: 201,
    prepare: async () => ({
      method: 'POST',
      url: '/v1/support-access',
      body: { case_id: (await caseInReview(t, { country: 'FR' })).caseId, operator_id: (await addOperator(t, { role: 'support' })).id, reason: 'ticket' },
    }),
  },
  {
    name: 'GET /v1/support-access',
    roles: ['administrator', 'supervisor'],
    reauth: false,
    clearance: false,
    ok: 200,
    prepare: async () => ({ method: 'GET', url: '/v1/support-access' }),
  },
  {
    name: 'POST /v1/support-access/{id}/revoke',
    roles: ['administrator', 'supervisor'],
    reauth: false,
    clearance: false,
    ok: 200,
    prepare: async () => {
      const { caseId } = await caseInReview(t, { country: 'FR' });
      const support = await addOperator(t, { role: 'support' });
      const grantId = newId('grt', t.clock.now().getTime());
      const now = t.clock.now();
      await insertSupportGrant(t.database.db, { id: grantId, ...t.tenant, caseId, operatorId: support.id, reasonSealed: null, grantedBy: 'test', createdAt: now, expiresAt: new Date(now.getTime() + 4 * 3_600_000) });
      return { method: 'POST', url: `/v1/support-access/${grantId}/revoke` };
    },
  },
  { name: 'GET /v1/reviews/support-access', roles: ['support'], reauth: false, clearance: false, ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/reviews/support-access' }) },
  {
    name: 'POST /v1/reviews/{id}/unmask',
    roles: REVIEWERS,
    reauth: false,
    clearance: true,
    ok: 200,
    prepare: async () => ({ method: 'POST', url: `/v1/reviews/${(await caseInReview(t, { country: 'FR' })).taskId}/unmask` }),
  },
  ...(['unmask', 'questionnaires/unmask', 'applicant-data/unmask'] as const).map(
    (path): Route => ({
      name: `POST /v1/cases/{id}/${path}`,
      roles: CASE_READERS,
      reauth: false,
      clearance: true,
      supportNeedsGrant: true,
      ok: 200,
      prepare: async () => ({ method: 'POST', url: `/v1/cases/${(await caseInReview(t, { country: 'FR' })).caseId}/${path}` }),
    }),
  ),
];

interface Scenario {
  name: string;
  role: Role;
  inClearance: boolean;
  revoked?: boolean;
  reauth: 'fresh' | 'missing' | 'stale';
  key: 'console' | 'integration';
  operatorHeader?: boolean;
}

const SCENARIOS: Scenario[] = [
  ...ALL.map((role): Scenario => ({ name: role, role, inClearance: true, reauth: 'fresh', key: 'console' })),
  ...ALL.map((role): Scenario => ({ name: `${role} out`, role, inClearance: false, reauth: 'fresh', key: 'console' })),
  { name: 'revoked admin', role: 'administrator', inClearance: true, revoked: true, reauth: 'fresh', key: 'console' },
  { name: 'admin no Re', role: 'administrator', inClearance: true, reauth: 'missing', key: 'console' },
  { name: 'admin stale Re', role: 'administrator', inClearance: true, reauth: 'stale', key: 'console' },
  { name: 'superv. no Re', role: 'supervisor', inClearance: true, reauth: 'missing', key: 'console' },
  { name: 'superv. stale Re', role: 'supervisor', inClearance: true, reauth: 'stale', key: 'console' },
  { name: 'integration key', role: 'administrator', inClearance: true, reauth: 'fresh', key: 'integration' },
  { name: 'no op header', role: 'administrator', inClearance: true, reauth: 'fresh', key: 'console', operatorHeader: false },
];

/** The expected answer, from the spec's order: credential, operator, role, re-authentication, clearance. */
function expected(route: Route, s: Scenario): [number, string] {
  if (s.key === 'integration') return route.integrationKeyOk ? [route.ok, 'ok'] : [403, 'console_credential_required'];
  if (s.operatorHeader === false) return [401, 'operator_required'];
  if (s.revoked) return [403, 'operator_revoked'];
  if (!route.roles.includes(s.role)) return [403, 'operator_role_insufficient'];
  if (route.reauth && s.reauth !== 'fresh') return [403, 'reauth_required'];
  if (route.clearance && !s.inClearance) return [404, 'resource_not_found'];
  if (route.supportNeedsGrant && s.role === 'support') return [404, 'resource_not_found'];
  return [route.ok, 'ok'];
}

const SHORT: Record<string, string> = {
  ok: '',
  console_credential_required: 'console',
  operator_required: 'no-op',
  operator_revoked: 'revoked',
  operator_role_insufficient: 'role',
  reauth_required: 'reauth',
  resource_not_found: 'hidden',
};

const table = new Map<string, Map<string, string>>();
const operators = new Map<string, OperatorRow>();
let integrationKey: Credentials;

describe('authorisation matrix of operator-bound routes', () => {
  before(async () => {
    integrationKey = t.demoKey;
    for (const s of SCENARIOS) {
      operators.set(
        s.name,
        await addOperator(t, { role: s.role, countries: s.inClearance ? ['FR'] : ['DE'], sensitivity: 'restricted', status: s.revoked ? 'revoked' : 'active' }),
      );
    }
  });

  for (const route of ROUTES) {
    test(route.name, async () => {
      const row = new Map<string, string>();
      table.set(route.name, row);
      for (const s of SCENARIOS) {
        const op = operators.get(s.name)!;
        const target = await route.prepare(op);
        const headers: Record<string, string> = {};
        if (s.operatorHeader !== false) headers['x-service-operator'] = op.id;
        if (s.reauth !== 'missing') headers['x-service-reauthenticated-at'] = await t.idp.idToken(op.subject!, t.nowS() - (s.reauth === 'stale' ? 360 : 5));
        const res = await t.request(target.method, target.url, {
          key: s.key === 'console' ? t.consoleKey : integrationKey,
          body: target.body,
          headers,
        });
        const [status, code] = expected(route, s);
        const got = res.statusCode >= 400 ? res.json().error.code : 'ok';
        row.set(s.name, `${res.statusCode}${SHORT[got] !== undefined ? (SHORT[got] ? ' ' + SHORT[got] : '') : ' ' + got}`);
        assert.equal(res.statusCode, status, `${route.name} as ${s.name}: ${res.body}`);
        assert.equal(got, code, `${route.name} as ${s.name}`);
      }
    });
  }

  after(() =>
    printMatrix(
      [
        'Authorisation matrix (status and code; every cell asserted). Codes: console = console_credential_required, no-op = operator_required,',
        'revoked = operator_revoked, role = operator_role_insufficient, reauth = reauth_required, hidden = resource_not_found (outside the clearance).',
        '"out" = operator cleared for DE only, the task or case is in FR. Re routes: POST/PATCH operators, revoke, revision, POST support-access. Support: case routes only through a grant (none here).',
      ],
      table,
      ROUTES.map((r) => r.name),
      SCENARIOS.map((s) => s.name),
    ),
  );
});

/** Prints one matrix: a row per route (or caller), a column per scenario (or target). */
function printMatrix(title: string[], cells: Map<string, Map<string, string>>, rows: string[], cols: string[]): void {
  const width = Math.max(...rows.map((r) => r.length));
  const cellWidth = cols.map((c) => Math.max(c.length, 11));
  const line = (first: string, items: string[]) => `${first.padEnd(width)} | ${items.map((c, i) => c.padEnd(cellWidth[i])).join(' | ')}`;
  const out = [
    '',
    ...title,
    line('', cols),
    line('-'.repeat(width), cellWidth.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(r, cols.map((c) => cells.get(r)?.get(c) ?? '—'))),
    '',
  ];
  console.log(out.join('\n'));
}

/**
 * Integration routes (the spec gives them no operator header): a console credential is refused,
 * whether it names an operator or not (integration_key_required), before anything is read, checked
 * or written; an integration key holding both permissions is never refused for its kind (the
 * route then answers as it does: 200, 201, or its own refusal, such as 409 case_open).
 */
describe('authorisation matrix of integration routes', () => {
  const integrationTable = new Map<string, Map<string, string>>();
  type Caller = { name: string; key: () => Credentials | ConsoleCredentials; operator: boolean };
  const CALLERS: Caller[] = [
    { name: 'console', key: () => t.consoleKey, operator: false },
    { name: 'console + admin', key: () => t.consoleKey, operator: true },
    { name: 'integration key', key: () => t.demoKey, operator: false },
  ];
  let admin: OperatorRow;
  let target: IntegrationTarget;
  before(async () => {
    admin = await addOperator(t, { role: 'administrator' });
    const inReview = await caseInReview(t, { country: 'FR' });
    const awaiting = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
    const session = await t.request('POST', '/v1/sessions', { signed: true, body: { case_id: awaiting.json().id, locale: 'en' } });
    assert.equal(session.statusCode, 201, session.body);
    target = { caseId: inReview.caseId, sessionId: session.json().id };
  });

  for (const route of INTEGRATION_ROUTES) {
    test(route.name, async () => {
      const row = new Map<string, string>();
      integrationTable.set(route.name, row);
      for (const caller of CALLERS) {
        const { method, url, body } = route.request(target);
        const headers: Record<string, string> = caller.operator ? { 'x-service-operator': admin.id } : {};
        const res = await t.request(method, url, { key: caller.key(), body, signed: route.signed, headers });
        const code = res.statusCode >= 400 ? errorOf(res).code : 'ok';
        row.set(caller.name, `${res.statusCode}${code === 'ok' ? '' : code === 'integration_key_required' ? ' console' : ` ${code}`}`);
        if (caller.name.startsWith('console')) {
          assert.deepEqual([res.statusCode, code], [403, 'integration_key_required'], `${route.name} as ${caller.name}: ${res.body}`);
        } else {
          assert.ok(res.statusCode < 500 && code !== 'integration_key_required' && code !== 'permission_denied', `${route.name} as ${caller.name}: ${res.body}`);
        }
      }
    });
  }

  test('every keyed route of the contract is operator-bound, an integration route, open to both, or the console\'s resolve', async () => {
    const norm = (name: string) => name.replace(/\{[^}]+\}/g, '{}');
    const known = new Set([...ROUTES.map((r) => r.name), ...OPERATOR_BOUND_OUTSIDE_GRID, ...INTEGRATION_ROUTES.map((r) => r.name), ...OPEN_TO_BOTH, 'POST /v1/operators/resolve'].map(norm));
    const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).json() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const keyed = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.security === undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    assert.ok(keyed.length > 50);
    assert.deepEqual(keyed.filter((name) => !known.has(norm(name))), [], 'a keyed route of unknown kind');
  });

  after(() =>
    printMatrix(
      ['Integration routes (status and code; every cell asserted). console = integration_key_required.'],
      integrationTable,
      INTEGRATION_ROUTES.map((r) => r.name),
      CALLERS.map((c) => c.name),
    ),
  );
});

/** Operator-bound routes left out of the grid above (they need a stored image); tested in personal-data tests. */
const OPERATOR_BOUND_OUTSIDE_GRID = ['GET /v1/reviews/{id}/pieces/{id}', 'GET /v1/cases/{id}/pieces/{id}'];

/** The client's settings, usage, flows and case search: an integration key, or the console naming an operator (docs/operators.md). */
const OPEN_TO_BOTH = [
  'GET /v1/cases',
  'GET /v1/cases/export',
  'POST /v1/api-keys',
  'GET /v1/api-keys',
  'DELETE /v1/api-keys/{id}',
  'POST /v1/webhook-endpoints',
  'GET /v1/webhook-endpoints',
  'GET /v1/webhook-endpoints/{id}/deliveries',
  'POST /v1/webhook-endpoints/{id}/replay',
  'POST /v1/webhook-endpoints/{id}/resume',
  'POST /v1/webhook-endpoints/{id}/test',
  'PATCH /v1/webhook-endpoints/{id}',
  'DELETE /v1/webhook-endpoints/{id}',
  'POST /v1/webhook-endpoints/{id}/disable',
  'POST /v1/webhook-endpoints/{id}/enable',
  'POST /v1/webhook-endpoints/{id}/rotate-secret',
  'GET /v1/webhook-deliveries',
  'GET /v1/webhook-deliveries/{id}',
  'POST /v1/webhook-deliveries/{id}/replay',
  'GET /v1/webhook-events',
  'GET /v1/journey-embedding',
  'POST /v1/journey-embedding',
  'GET /v1/trust-anchors',
  'POST /v1/trust-anchors',
  'DELETE /v1/trust-anchors/{id}',
  'GET /v1/journey-appearance',
  'POST /v1/journey-appearance',
  'GET /v1/flows',
  'GET /v1/flows/{name}',
  'POST /v1/flows/{name}/versions',
  'POST /v1/flows/{name}/versions/{version}/activate',
  'POST /v1/flows/{name}/dry-run',
  'GET /v1/usage',
  'GET /v1/usage/export',
  'GET /v1/usage/daily',
  'GET /v1/api-usage',
  'GET /v1/contract',
];

/**
 * Key against key: a key revokes only keys whose permissions it holds (else 403 permission_not_held),
 * and no key revokes the console credential (403 console_key_protected); through the console an
 * administrator revokes any integration key, never the console credential.
 */
describe('authorisation matrix of key revocation', () => {
  const revocationTable = new Map<string, Map<string, string>>();
  const SETS: string[][] = [[], ['personal_data'], ['decisions'], ['personal_data', 'decisions']];
  const label = (set: string[]) => (set.length ? set.map((p) => (p === 'personal_data' ? 'data' : 'decide')).join('+') : 'none');
  const TARGETS = [...SETS.map(label), 'console cred.'];

  async function newKey(permissions: string[]): Promise<Credentials> {
    const res = await t.request('POST', '/v1/api-keys', { body: { name: `holds ${label(permissions)}`, permissions } });
    assert.equal(res.statusCode, 201, res.body);
    const k = res.json();
    return { id: k.id, secret: k.secret, signingSecret: k.signing_secret };
  }

  /** From the rule, not from the service: the caller must hold every permission of the target. */
  function expectedRevocation(caller: string[] | 'console admin', target: string[] | 'console'): [number, string] {
    if (target === 'console') return [403, 'console_key_protected'];
    if (caller === 'console admin') return [204, 'ok'];
    return target.every((p) => caller.includes(p)) ? [204, 'ok'] : [403, 'permission_not_held'];
  }

  const callers: (string[] | 'console admin')[] = [...SETS, 'console admin'];
  for (const caller of callers) {
    const callerName = caller === 'console admin' ? 'console admin' : label(caller);
    test(`a caller holding ${callerName}`, async () => {
      const row = new Map<string, string>();
      revocationTable.set(callerName, row);
      const admin = caller === 'console admin' ? await addOperator(t, { role: 'administrator' }) : null;
      const callerKey = caller === 'console admin' ? null : await newKey(caller);
      for (const target of [...SETS, 'console' as const]) {
        const targetId = target === 'console' ? t.consoleKey.id : (await newKey(target)).id;
        const res = admin ? await t.asOperator(admin, 'DELETE', `/v1/api-keys/${targetId}`) : await t.request('DELETE', `/v1/api-keys/${targetId}`, { key: callerKey });
        const code = res.statusCode >= 400 ? errorOf(res).code : 'ok';
        row.set(target === 'console' ? 'console cred.' : label(target), `${res.statusCode}${code === 'ok' ? '' : code === 'permission_not_held' ? ' not held' : code === 'console_key_protected' ? ' protected' : ` ${code}`}`);
        assert.deepEqual([res.statusCode, code], expectedRevocation(caller, target), `${callerName} revoking ${target === 'console' ? 'the console credential' : label(target)}: ${res.body}`);
      }
      assert.equal((await t.asOperator(await addOperator(t, { role: 'reviewer' }), 'GET', '/v1/operators/directory')).statusCode, 200, 'the console credential still works');
    });
  }

  after(() =>
    printMatrix(
      ['Key revocation: row = the revoking key (or an administrator through the console), column = the key revoked.', 'not held = permission_not_held, protected = console_key_protected.'],
      revocationTable,
      callers.map((c) => (c === 'console admin' ? 'console admin' : label(c))),
      TARGETS,
    ),
  );
});

after(() => t.close());
