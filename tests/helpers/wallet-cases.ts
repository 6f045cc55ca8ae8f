import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { queryRows } from '@idv/db';
import { reportContradictions, type CheckReport } from '@idv/domain';
import { ChecksPool } from '@idv/engine';
import { verifyWebhook } from '@idv/sdk';
import { WebhookDispatcher, type ChecksRunner } from '@idv/worker';
import { checksRunnerFor } from './checks-runner.ts';
import { startJourneyApp, type JourneyTestApp } from './journey.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { createEndpoint, newTenant, type TestTenant } from './webhooks.ts';

/**
 * What the wallet's end-to-end suites share: the real app listening on a port (the verifier's
 * identity at wallet-verifier.idv.test), a sandbox client with a webhook endpoint at a real
 * receiver, the webhook dispatcher, and the checks runner on a real thread pool; the journey page's
 * calls over HTTP, and a case's decision read once its job ran and its webhook arrived.
 */
export interface WalletCases {
  t: JourneyTestApp;
  /** The app's address. */
  base: string;
  /** The sandbox client whose endpoint receives the webhooks. */
  who: TestTenant;
  /** A call of the journey page with its session token. */
  page(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** The webhook events received about a case. */
  eventsOf(caseId: string): { type: string; data: Record<string, any> }[];
  /** Runs the queued checks, waits for the case's webhook, returns the case (its reports free of contradictions). */
  decided(caseId: string): Promise<Record<string, any>>;
  /** The details of the case's journal entries of one action, oldest first. */
  journalOf(caseId: string, action: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export async function startWalletCases(opts: { threads: number }): Promise<WalletCases> {
  const t = await startJourneyApp({ WEBHOOK_POLL_MS: '50', API_BASE_URL: 'http://wallet-verifier.idv.test' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const who = await newTenant(t, 'sandbox');
  const rx: Receiver = await startReceiver();
  const secret = (await createEndpoint(t, who, rx.url, ['case.decided'])).secret;
  const dispatcher = new WebhookDispatcher({ db: t.database.db, keyring: t.ctx.keyring, settings: t.config.webhooks, listen: t.database.listen });
  await dispatcher.start();
  const pool = new ChecksPool({ threads: opts.threads });
  const runner: ChecksRunner = checksRunnerFor(t, pool);

  const eventsOf = (caseId: string) =>
    rx.received
      .map((r) => verifyWebhook(r.body, r.headers, secret).event)
      .filter((e) => (e.object as { id: string }).id === caseId)
      .map((e) => ({ type: e.type, data: e.data as Record<string, any> }));

  return {
    t,
    base,
    who,
    async page(token, method, path, body) {
      const res = await fetch(`${base}/v1/sessions/current${path}`, {
        method,
        headers: { authorization: `Session ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    },
    eventsOf,
    async decided(caseId) {
      const ran = await runner.drain();
      assert.ok(ran.some((r) => r.caseId === caseId), `the runner ran the job of ${caseId}`);
      await rx.waitFor(() => eventsOf(caseId).length >= 1, 15_000, `the webhook of ${caseId}`);
      const res = await t.request('GET', `/v1/cases/${caseId}`, { key: who.key });
      assert.equal(res.statusCode, 200, res.body);
      const kase = res.json();
      for (const c of kase.checks as CheckReport[]) assert.deepEqual(reportContradictions(c), [], JSON.stringify(c));
      return kase;
    },
    async journalOf(caseId, action) {
      const rows = await queryRows<{ detail: Record<string, unknown> }>(t.database.db, sql`SELECT detail FROM case_journal WHERE case_id = ${caseId} AND action = ${action} ORDER BY id`);
      return rows.map((r) => r.detail);
    },
    async close() {
      await dispatcher.stop();
      await pool.destroy();
      await rx.close();
      await t.close();
    },
  };
}

/** A case's report of one check type. */
export const reportOf = (kase: Record<string, any>, type: string): CheckReport | undefined => (kase.checks as CheckReport[]).find((c) => c.type === type);
