import { createClient, emitEvent, type Environment, type Tenant } from '@idv/db';
import type { CaseOutcome } from '@idv/domain';
import { issueApiKey } from '../../apps/api/src/services/api-keys.ts';
import type { Credentials, TestApp } from './app.ts';

export interface TestTenant {
  tenant: Tenant;
  key: Credentials;
}

/** A client of its own (so tests do not see each other's endpoints) with a key in one environment. */
export async function newTenant(t: TestApp, environment: Environment = 'sandbox'): Promise<TestTenant> {
  const now = t.clock.now();
  const client = await createClient(t.database.db, 'Test client', now);
  const tenant = { clientId: client.id, environment };
  const issued = await issueApiKey(t.database.db, t.ctx.keyring, { ...tenant, permissions: [], createdBy: 'test', now });
  return { tenant, key: { id: issued.row.id, secret: issued.secret, signingSecret: issued.signingSecret } };
}

/** Declares an endpoint through the API (signed) and returns it with its secret. */
export async function createEndpoint(
  t: TestApp,
  who: TestTenant,
  url: string,
  events: string[] = ['case.decided'],
): Promise<{ id: string; secret: string }> {
  const res = await t.request('POST', '/v1/webhook-endpoints', { signed: true, key: who.key, body: { url, events } });
  if (res.statusCode !== 201) throw new Error(`endpoint creation failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Raises case.decided the way the decision features do: emitEvent inside their transaction. */
export async function emitCaseDecided(
  t: TestApp,
  tenant: Tenant,
  opts: { caseId?: string; outcome?: CaseOutcome } = {},
): Promise<{ eventId: string; deliveryIds: string[]; body: string }> {
  return t.database.db.transaction((tx) =>
    emitEvent(
      tx,
      tenant,
      {
        type: 'case.decided',
        object: { id: opts.caseId ?? 'case_01m7ym09t80f4fggxqxy1yr50c', type: 'case', external_ref: 'ref-42', flow_name: 'standard' },
        data: { outcome: opts.outcome ?? 'approved', reason_code: null },
      },
      t.clock.now(),
    ),
  );
}

/** Polls GET /v1/webhook-deliveries/{id} until `done` holds; returns that body. */
export async function waitForDelivery(
  t: TestApp,
  who: TestTenant,
  id: string,
  done: (d: Record<string, any>) => boolean,
  timeoutMs = 10_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.request('GET', `/v1/webhook-deliveries/${id}`, { key: who.key });
    const body = res.json();
    if (res.statusCode === 200 && done(body)) return body;
    if (Date.now() > deadline) throw new Error(`delivery ${id} did not reach the expected state: ${res.body}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
