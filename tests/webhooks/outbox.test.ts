import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { emitEvent, purgeWebhookLog, queryRows } from '@idv/db';
import { verifyWebhook } from '@idv/sdk';
import { WebhookDispatcher } from '@idv/worker';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { createEndpoint, emitCaseDecided, newTenant } from '../helpers/webhooks.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ WEBHOOK_POLL_MS: '50' });
});
after(() => t.close());

const count = async (table: string, clientId: string) =>
  Number((await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE client_id = ${clientId}`))[0].n);

describe('the outbox', () => {
  test('an event commits with the state change that causes it, or not at all', async () => {
    const who = await newTenant(t);
    await createEndpoint(t, who, 'http://localhost:9/h');
    const boom = new Error('the state change failed after the event was written');
    await assert.rejects(
      t.database.db.transaction(async (tx) => {
        await emitEvent(
          tx,
          who.tenant,
          { type: 'case.decided', object: { id: 'case_x', type: 'case', external_ref: null, flow_name: 'standard' }, data: { outcome: 'approved', reason_code: null } },
          t.clock.now(),
        );
        throw boom;
      }),
      boom,
    );
    assert.equal(await count('webhook_events', who.tenant.clientId), 0);
    assert.equal(await count('webhook_deliveries', who.tenant.clientId), 0);
    await emitCaseDecided(t, who.tenant);
    assert.equal(await count('webhook_events', who.tenant.clientId), 1);
    assert.equal(await count('webhook_deliveries', who.tenant.clientId), 1);
  });

  test('one delivery per subscribed endpoint of the tenant, suspended ones included; none for others', async () => {
    const who = await newTenant(t);
    const decided = await createEndpoint(t, who, 'http://localhost:9/decided', ['case.decided']);
    const both = await createEndpoint(t, who, 'http://localhost:9/both', ['case.decided', 'case.decision_revised']);
    await createEndpoint(t, who, 'http://localhost:9/revised', ['case.decision_revised']);
    await t.database.db.execute(sql`UPDATE webhook_endpoints SET status = 'suspended' WHERE id = ${both.id}`);
    const stranger = await newTenant(t);
    await createEndpoint(t, stranger, 'http://localhost:9/stranger', ['case.decided']);

    const emitted = await emitCaseDecided(t, who.tenant, { outcome: 'rejected' });
    const rows = await queryRows<{ endpoint_id: string; status: string; event_type: string }>(
      t.database.db,
      sql`SELECT endpoint_id, status, event_type FROM webhook_deliveries WHERE event_id = ${emitted.eventId} ORDER BY endpoint_id`,
    );
    assert.deepEqual(rows.map((r) => r.endpoint_id).sort(), [decided.id, both.id].sort());
    assert.ok(rows.every((r) => r.status === 'pending' && r.event_type === 'case.decided'));
    assert.equal(await count('webhook_deliveries', stranger.tenant.clientId), 0);
    // The body is fixed once, in key order, without personal data.
    assert.equal(
      emitted.body,
      JSON.stringify({
        data: { outcome: 'rejected', reason_code: null },
        object: { environment: 'sandbox', external_ref: 'ref-42', flow_name: 'standard', id: 'case_01m7ym09t80f4fggxqxy1yr50c', type: 'case' },
        occurred_at: t.clock.now().toISOString(),
        type: 'case.decided',
      }),
    );
  });

  test('several dispatchers on one database share the work and never send the same attempt twice', async () => {
    const who = await newTenant(t);
    // A little latency per answer keeps many deliveries in flight at once across the dispatchers.
    const rx = await startReceiver(() => ({ status: 200, delayMs: 5 }));
    const endpoint = await createEndpoint(t, who, rx.url);
    const settings = { ...t.config.webhooks, concurrency: 8 };
    const dispatchers = [1, 2, 3].map(
      () => new WebhookDispatcher({ db: t.database.db, keyring: t.ctx.keyring, settings, listen: t.database.listen }),
    );
    try {
      const expected = new Set<string>();
      for (let i = 0; i < 30; i++) {
        // Batches of events in one transaction each, while the dispatchers run.
        const ids = await t.database.db.transaction(async (tx) => {
          const out: string[] = [];
          for (let j = 0; j < 10; j++) {
            const e = await emitEvent(
              tx,
              who.tenant,
              { type: 'case.decided', object: { id: `case_${i}_${j}`, type: 'case', external_ref: null, flow_name: 'standard' }, data: { outcome: 'approved', reason_code: null } },
              t.clock.now(),
            );
            out.push(...e.deliveryIds);
          }
          return out;
        });
        ids.forEach((id) => expected.add(id));
        if (i === 0) await Promise.all(dispatchers.map((d) => d.start()));
      }
      await rx.waitFor((r) => r.length >= expected.size, 30_000, `${expected.size} deliveries`);
      await new Promise((r) => setTimeout(r, 300)); // any duplicate would arrive now
      const seen = rx.received.map((r) => String(r.headers['x-service-delivery']));
      assert.equal(seen.length, expected.size, 'no delivery was sent twice');
      assert.deepEqual(new Set(seen), expected);
      for (const r of rx.received.slice(0, 5)) verifyWebhook(r.body, r.headers, endpoint.secret);
      const [{ n }] = await queryRows<{ n: number }>(
        t.database.db,
        sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE client_id = ${who.tenant.clientId} AND status = 'succeeded' AND attempt_count = 1`,
      );
      assert.equal(Number(n), expected.size);
    } finally {
      await Promise.all(dispatchers.map((d) => d.stop()));
      await rx.close();
    }
  });

  test('retention: finished deliveries older than the cut are purged with their attempts and orphan events; waiting ones stay', async () => {
    const who = await newTenant(t);
    await createEndpoint(t, who, 'http://localhost:9/old');
    const done = await emitCaseDecided(t, who.tenant);
    const waiting = await emitCaseDecided(t, who.tenant);
    await t.database.db.execute(sql`UPDATE webhook_deliveries SET status = 'succeeded', attempt_count = 1 WHERE id = ${done.deliveryIds[0]}`);
    await t.database.db.execute(
      sql`INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, response_status) VALUES (${done.deliveryIds[0]}, 1, now(), 3, 200)`,
    );
    await purgeWebhookLog(t.database.db, new Date(t.clock.now().getTime() - 1000), t.clock.now());
    assert.equal(await count('webhook_deliveries', who.tenant.clientId), 2, 'nothing is older than the cut yet');
    await purgeWebhookLog(t.database.db, new Date(t.clock.now().getTime() + 1000), t.clock.now());
    const left = await queryRows<{ id: string }>(t.database.db, sql`SELECT id FROM webhook_deliveries WHERE client_id = ${who.tenant.clientId}`);
    assert.deepEqual(left.map((r) => r.id), waiting.deliveryIds);
    const events = await queryRows<{ id: string }>(t.database.db, sql`SELECT id FROM webhook_events WHERE client_id = ${who.tenant.clientId}`);
    assert.deepEqual(events.map((r) => r.id), [waiting.eventId]);
    const attempts = await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = ${done.deliveryIds[0]}`);
    assert.equal(Number(attempts[0].n), 0);
  });
});
