import type { FlowDefinition } from '@idv/domain';
import { ChecksPool, generateDocument } from '@idv/engine';
import type { ChecksRunner } from '@idv/worker';
import { activateFlow, startJourneyApp, type JourneyTestApp } from './journey.ts';
import { newTenant, type TestTenant } from './webhooks.ts';
import { checksRunnerFor } from './checks-runner.ts';

/** What the face step's suites through the journey API run on: the app, a client, real checks. */
export interface ChecksJourney {
  t: JourneyTestApp;
  who: TestTenant;
  pool: ChecksPool;
  runner: ChecksRunner;
  /** A generated French passport (TD3) carrying the portrait given. */
  document: Buffer;
  close(): Promise<void>;
}

/**
 * A journey app with a sandbox client whose `flows` are active, the real checks on one thread and
 * a runner the test drains itself, and a passport printed with `portrait`.
 */
export async function startChecksJourney(flows: Record<string, FlowDefinition>, portrait: Buffer): Promise<ChecksJourney> {
  const t = await startJourneyApp();
  const who = await newTenant(t, 'sandbox');
  for (const [name, definition] of Object.entries(flows)) await activateFlow(t, who.tenant.clientId, 'sandbox', name, definition);
  const pool = new ChecksPool({ threads: 1 });
  const runner = checksRunnerFor(t, pool);
  const fields = { document_code: 'P', issuing_country: 'FRA', document_number: '14FP52K81', surname: 'MARTIN', given_names: 'JULIEN', nationality: 'FRA', birth_date: '1984-05-17', sex: 'M' as const, expiry_date: '2033-06-30' };
  const document = (await generateDocument({ format: 'TD3', fields, portrait, seed: 7 })).image;
  return {
    t,
    who,
    pool,
    runner,
    document,
    close: async () => {
      await pool.destroy();
      await t.close();
    },
  };
}
