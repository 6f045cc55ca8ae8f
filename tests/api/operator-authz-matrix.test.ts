import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { insertSupportGrant, updateTask, type OperatorRow } from '@idv/db';
import { newId, type OperatorRole } from '@idv/domain';
import type { Credentials } from '../helpers/app.ts';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';

/**
 * The authorisation matrix: every operator-bound route × every role, in and out of clearance,
 * revoked, without or with a stale re-authentication, with an integration key instead of the
 * console credential, and without the operator header. Each cell has its expected status and
 * code, written here from the spec's rules (not from the service's own tables); the matrix is
 * printed as a table.
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

  after(() => {
    const cols = SCENARIOS.map((s) => s.name);
    const width = Math.max(...ROUTES.map((r) => r.name.length));
    const cellWidth = cols.map((c) => Math.max(c.length, 11));
    const line = (first: string, cells: string[]) => `${first.padEnd(width)} | ${cells.map((c, i) => c.padEnd(cellWidth[i])).join(' | ')}`;
    const out = [
      '',
      'Authorisation matrix (status and code; every cell asserted). Codes: console = console_credential_required, no-op = operator_required,',
      'revoked = operator_revoked, role = operator_role_insufficient, reauth = reauth_required, hidden = resource_not_found (outside the clearance).',
      '"out" = operator cleared for DE only, the task or case is in FR. Re routes: POST/PATCH operators, revoke, revision, POST support-access. Support: case routes only through a grant (none here).',
      line('route', cols),
      line('-'.repeat(width), cellWidth.map((w) => '-'.repeat(w))),
      ...ROUTES.map((r) => line(r.name, cols.map((c) => table.get(r.name)?.get(c) ?? '—'))),
      '',
    ];
    console.log(out.join('\n'));
  });
});

after(() => t.close());
