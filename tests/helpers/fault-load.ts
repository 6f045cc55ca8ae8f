import { randomUUID } from 'node:crypto';
import type { FaultService } from './fault-service.ts';
import { fixture, IMAGES } from './journey.ts';
import { signing } from './signing.ts';

/**
 * The fault suite's mixed load over real HTTP, spread over the running APIs: signed case creations
 * (retried with their Idempotency-Key as the error pages say), finished journeys, and decisions on
 * reviewed cases. Every answer is recorded, to compare what was acknowledged with what is stored.
 */

interface Outage503 {
  status: number;
  code: string;
  retryAfter: string | null;
  requestId: string;
}

export interface LoadRecord {
  /** external_ref → case id of each creation answered 201. */
  acknowledged: Map<string, string>;
  /** Case ids of the journeys whose finish was answered 200. */
  finished: Set<string>;
  /** Case ids decided through POST /v1/cases/{id}/decision (answered 201). */
  decidedByKey: Set<string>;
  /** Every 503 met (to check its shape), and every 5xx that was not a 503. */
  unavailable: Outage503[];
  serverErrors: { status: number; body: string }[];
  /** Requests that could not connect (a killed API) and were retried elsewhere. */
  networkErrors: number;
  /** Answers 201 received (creations, sessions, decisions): what the usage counts of 201 must hold. */
  answered201: number;
  /** Anything else unexpected, with its answer. */
  unexpected: string[];
  /** The usage counts of 201 written before the scenario began. */
  usageBase: number;
}

export function newRecord(): LoadRecord {
  return { acknowledged: new Map(), finished: new Set(), decidedByKey: new Set(), unavailable: [], serverErrors: [], networkErrors: 0, answered201: 0, unexpected: [], usageBase: 0 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let turn = 0;

interface Answer {
  status: number;
  json: Record<string, any>;
}

/**
 * One request, retried until it gets an answer that is not a 503, a 409 in progress or a refused
 * connection (or `deadline` passes). `signed` signs each try afresh with the same Idempotency-Key.
 */
async function call(
  svc: FaultService,
  rec: LoadRecord,
  method: string,
  path: string,
  opts: { body?: unknown; bytes?: Buffer; signed?: boolean; session?: string; deadline: number },
): Promise<Answer | null> {
  const idem = randomUUID();
  const body = opts.bytes ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  while (Date.now() < opts.deadline) {
    const apis = svc.liveApis();
    if (apis.length === 0) {
      await sleep(100);
      continue;
    }
    const base = apis[turn++ % apis.length];
    const headers: Record<string, string> = {};
    if (opts.session) headers.authorization = `Session ${opts.session}`;
    else headers.authorization = `Bearer ${svc.creds.api_key.secret}`;
    if (opts.bytes) headers['content-type'] = 'image/jpeg';
    else if (body !== undefined) headers['content-type'] = 'application/json';
    if (opts.signed) Object.assign(headers, signing.headers(svc.creds.api_key.signing_secret, method, path, (body as string) ?? '', idem));
    let res: Response;
    try {
      res = await fetch(base + path, { method, headers, body: body as BodyInit | undefined, signal: AbortSignal.timeout(20_000) });
    } catch {
      rec.networkErrors += 1;
      await sleep(100);
      continue;
    }
    const text = await res.text();
    let json: Record<string, any> = {};
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: kept as unexpected below if it matters
    }
    if (res.status === 503) {
      rec.unavailable.push({ status: 503, code: json.error?.code, retryAfter: res.headers.get('retry-after'), requestId: json.error?.request_id });
      // Retry-After is the advice; the load comes back sooner (at most a second) to measure the recovery.
      await sleep(Math.min(1000, Number(res.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    if (res.status >= 500) {
      rec.serverErrors.push({ status: res.status, body: text.slice(0, 300) });
      await sleep(200);
      continue;
    }
    if (res.status === 409 && json.error?.code === 'idempotency_request_in_progress') {
      await sleep(300);
      continue;
    }
    if (res.status === 201) rec.answered201 += 1;
    return { status: res.status, json };
  }
  rec.unexpected.push(`${method} ${path}: no answer before the deadline`);
  return null;
}

/** A signed creation; recorded as acknowledged when answered 201. */
async function createCase(svc: FaultService, rec: LoadRecord, ref: string, deadline: number): Promise<string | null> {
  const res = await call(svc, rec, 'POST', '/v1/cases', { body: { flow_name: 'standard', country: 'FR', external_ref: ref }, signed: true, deadline });
  if (res?.status !== 201) {
    if (res) rec.unexpected.push(`create ${ref}: ${res.status} ${JSON.stringify(res.json ?? null).slice(0, 200)}`);
    return null;
  }
  rec.acknowledged.set(ref, res.json.id);
  return res.json.id;
}

const photos = () => ({
  document_front: fixture(IMAGES.passport),
  selfie: fixture(IMAGES.selfie),
  liveness_turn_left: fixture(IMAGES.turnLeft),
  liveness_turn_right: fixture(IMAGES.turnRight),
});

/**
 * A person's whole journey on a new case, with real photos; `review` names the person with the
 * sandbox test value that sends the case to review (else one that approves it). A step retried
 * after a lost answer may be refused as already done (409): the journey goes on.
 */
export async function runJourney(svc: FaultService, rec: LoadRecord, ref: string, review: boolean, deadline: number): Promise<string | null> {
  try {
    return await journeySteps(svc, rec, ref, review, deadline);
  } catch (err) {
    rec.unexpected.push(`journey ${ref}: ${String(err)}`);
    return null;
  }
}

async function journeySteps(svc: FaultService, rec: LoadRecord, ref: string, review: boolean, deadline: number): Promise<string | null> {
  const caseId = await createCase(svc, rec, ref, deadline);
  if (!caseId) return null;
  const session = await call(svc, rec, 'POST', '/v1/sessions', { body: { case_id: caseId, locale: 'en' }, signed: true, deadline });
  const token = /#([A-Za-z0-9_-]{43})$/.exec(String(session?.json.url ?? ''))?.[1];
  if (!token) {
    rec.unexpected.push(`session of ${caseId}: ${session?.status} ${JSON.stringify(session?.json ?? null).slice(0, 200)}`);
    return null;
  }
  const steps: [string, string, unknown][] = [
    ['POST', '/consent', { accepted: true }],
    ['POST', '/applicant', { given_names: review ? 'Sandbox Review' : 'Sandbox Approve', surname: 'Hopper', birth_date: '1906-12-09' }],
    ['POST', '/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } }],
    ['POST', '/document', { country: 'FR', type: 'passport' }],
  ];
  const pieces = photos();
  for (const [method, path, body] of steps) {
    const res = await call(svc, rec, method, `/v1/sessions/current${path}`, { body, session: token, deadline });
    if (!res || (res.status !== 200 && res.status !== 409)) return fail(rec, caseId, path, res);
  }
  for (const [kind, bytes] of Object.entries(pieces)) {
    const res = await call(svc, rec, 'PUT', `/v1/sessions/current/pieces/${kind}`, { bytes, session: token, deadline });
    if (!res || res.status !== 200) return fail(rec, caseId, kind, res);
  }
  const done = await call(svc, rec, 'POST', '/v1/sessions/current/finish', { session: token, deadline });
  // 409 journey_closed: an earlier try finished it and its answer was lost.
  if (!done || (done.status !== 200 && !(done.status === 409 && done.json.error?.code === 'journey_closed'))) return fail(rec, caseId, 'finish', done);
  rec.finished.add(caseId);
  return caseId;
}

function fail(rec: LoadRecord, caseId: string, step: string, res: Answer | null): null {
  rec.unexpected.push(`journey ${caseId} ${step}: ${res?.status} ${JSON.stringify(res?.json ?? null).slice(0, 200)}`);
  return null;
}

/** Decides (approve, signed) each finished case the checks sent to review, once it is there. */
export async function decideReviews(svc: FaultService, rec: LoadRecord, caseIds: string[], deadline: number): Promise<void> {
  const waiting = new Set(caseIds);
  while (waiting.size > 0 && Date.now() < deadline) {
    for (const id of [...waiting]) {
      const read = await call(svc, rec, 'GET', `/v1/cases/${id}`, { deadline });
      if (!read) return;
      if (read.json.state === 'processing') continue;
      waiting.delete(id);
      if (read.json.state !== 'in_review') continue;
      // Approving against checks that failed or need attention is an override: it says why (docs/operators.md#overrides).
      const checks = (read.json.checks ?? []) as { status: string }[];
      const override = checks.some((c) => c.status === 'failed' || c.status === 'attention');
      const body = override ? { outcome: 'approve', justification: 'Compared by hand under load: the fault suite approves its cases.' } : { outcome: 'approve' };
      const res = await call(svc, rec, 'POST', `/v1/cases/${id}/decision`, { body, signed: true, deadline });
      if (res?.status === 201) rec.decidedByKey.add(id);
      else rec.unexpected.push(`decision ${id}: ${res?.status} ${JSON.stringify(res?.json ?? null).slice(0, 200)}`);
    }
    if (waiting.size > 0) await sleep(250);
  }
  for (const id of waiting) rec.unexpected.push(`case ${id} still processing at the deadline`);
}

/** A steady stream of creations until `stop()` is called: returns the stop function. */
export function creationStream(svc: FaultService, rec: LoadRecord, prefix: string, concurrency: number): () => Promise<void> {
  let running = true;
  let n = 0;
  const lanes = Array.from({ length: concurrency }, async () => {
    while (running) await createCase(svc, rec, `${prefix}-${n++}`, Date.now() + 60_000);
  });
  return async () => {
    running = false;
    await Promise.all(lanes);
  };
}
