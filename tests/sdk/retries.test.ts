import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiConnectionError, IdvClient } from '@idv/sdk';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The SDK's retries against the real service behind a front that misbehaves on purpose, one
 * attempt at a time: it forwards a request and then breaks the connection without answering (the
 * request was served, the caller cannot know), or refuses it with 429 and Retry-After, or passes
 * it through. What reaches the service is what the service really did.
 */
type Behaviour = 'serve-then-break' | 'rate-limit' | 'pass';
interface Seen {
  at: number;
  method: string;
  url: string;
  key: string | undefined;
  signature: string | undefined;
}

let t: TestApp;
let base: string;
let front: Server;
let frontBase: string;
let plan: Behaviour[] = [];
const seen: Seen[] = [];
/** The service's answers to the forwarded requests, in order. */
const served: { status: number; body: string }[] = [];

async function forward(req: IncomingMessage, body: Buffer): Promise<Response> {
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name))) as Record<string, string>;
  const answer = await fetch(base + req.url, { method: req.method, headers, body: body.length ? new Uint8Array(body) : undefined });
  served.push({ status: answer.status, body: await answer.clone().text() });
  return answer;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  seen.push({ at: Date.now(), method: req.method!, url: req.url!, key: req.headers['idempotency-key'] as string | undefined, signature: req.headers['x-service-signature'] as string | undefined });
  const behaviour = plan.shift() ?? 'pass';
  if (behaviour === 'rate-limit') {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ error: { type: 'rate_limit_error', code: 'rate_limited', message: 'slow down', request_id: 'req_front' } }));
    return;
  }
  const answer = await forward(req, Buffer.concat(chunks));
  if (behaviour === 'serve-then-break') {
    res.socket?.destroy();
    return;
  }
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
  res.end(Buffer.from(await answer.arrayBuffer()));
}

before(async () => {
  t = await startTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  front = createServer((req, res) => void handle(req, res).catch(() => res.socket?.destroy()));
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontBase = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
});
after(async () => {
  if (front) await new Promise((r) => front.close(r));
  await t?.close();
});

const sdk = () => new IdvClient({ baseUrl: frontBase, apiKey: t.demoKey.secret, signingSecret: t.demoKey.signingSecret });
const reset = (next: Behaviour[]) => {
  plan = next;
  seen.length = 0;
  served.length = 0;
};

describe('SDK retries', () => {
  test('a signed creation served but unanswered (network error), then rate limited, is retried with the same Idempotency-Key and creates one case', async () => {
    reset(['serve-then-break', 'rate-limit', 'pass']);
    const ref = `retry-${Date.now()}`;
    const created = await sdk().createCase({ flow_name: 'standard', country: 'FR', external_ref: ref });

    assert.deepEqual(
      seen.map((s) => `${s.method} ${s.url}`),
      ['POST /v1/cases', 'POST /v1/cases', 'POST /v1/cases'],
    );
    assert.match(seen[0].key ?? '', /\S/);
    assert.ok(seen.every((s) => s.key === seen[0].key), `one key across the attempts: ${seen.map((s) => s.key).join(', ')}`);
    assert.ok(seen.every((s) => Boolean(s.signature)), 'every attempt is signed');
    assert.ok(seen[1].at - seen[0].at >= 150, `backoff after the network error: ${seen[1].at - seen[0].at} ms`);
    assert.ok(seen[2].at - seen[1].at >= 1000, `Retry-After waited out: ${seen[2].at - seen[1].at} ms`);

    // The first attempt really created the case; the last was answered with that same result.
    assert.equal(served.length, 2);
    assert.equal(served[0].status, 201);
    assert.equal(JSON.parse(served[0].body).id, created.id);
    const listed = await new IdvClient({ baseUrl: base, apiKey: t.demoKey.secret, signingSecret: t.demoKey.signingSecret }).listCases({ limit: 100 });
    assert.equal(listed.data.filter((c) => c.external_ref === ref).length, 1, 'one case, not two');
  });

  test('one client signing the same body many times in one second sends a new signature each time: every creation is served at once', async () => {
    reset([]);
    const client = sdk();
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    const body = { flow_name: 'standard', country: 'FR', external_ref: `burst-${Date.now()}` } as const;
    const made = await Promise.all(Array.from({ length: 5 }, () => client.createCase(body)));
    assert.equal(new Set(made.map((c) => c.id)).size, 5, 'five cases');
    assert.equal(seen.length, 5, 'one request each, no refusal');
    assert.equal(new Set(seen.map((s) => s.signature)).size, 5, 'five signatures');
    assert.ok(served.every((r) => r.status === 201));
  });

  test('two clients with the same key signing the same body in the same second: the one refused as a replay signs again ahead and is served', async () => {
    reset([]);
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    // A body of this test's own: no signature of another test's can be met.
    const body = { flow_name: 'standard', country: 'FR', external_ref: `collide-${Date.now()}` } as const;
    const [a, b] = await Promise.all([sdk().createCase(body), sdk().createCase(body)]);
    assert.notEqual(a.id, b.id, 'two cases');
    assert.equal(seen.length, 3, seen.map((s) => s.signature).join(', '));
    assert.equal(seen[0].signature, seen[1].signature, 'the first two carry the same signature');
    assert.notEqual(seen[0].key, seen[1].key, 'under two Idempotency-Keys');
    const refused = served.find((r) => r.status === 401);
    assert.equal(refused && JSON.parse(refused.body).error.code, 'signature_replayed');
    assert.notEqual(seen[2].signature, seen[0].signature, 'signed again');
    assert.ok([seen[0].key, seen[1].key].includes(seen[2].key), "under the refused request's own key");
  });

  test('a read is retried after a network error; an unsigned write (a new API key) is not, since it may have been served', async () => {
    const opened = await new IdvClient({ baseUrl: base, apiKey: t.demoKey.secret, signingSecret: t.demoKey.signingSecret }).createCase({ flow_name: 'standard', country: 'FR' });
    reset(['serve-then-break', 'pass']);
    assert.equal((await sdk().getCase(opened.id)).id, opened.id);
    assert.equal(seen.length, 2);

    reset(['serve-then-break', 'pass']);
    await assert.rejects(sdk().createApiKey({}), (err: Error) => err instanceof ApiConnectionError && err.attempts === 1 && err.cause instanceof TypeError);
    assert.equal(seen.length, 1, 'not sent again');
    assert.equal(served[0].status, 201, 'the service did create the key: a retry would have made a second one');
  });
});
