import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  completeIdempotencyKey,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
  type Db,
  type FlowRow,
  type Reservation,
  type Tx,
} from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import { ApiError, errorBody } from './api-error.ts';
import { authOf } from './auth.ts';

export interface IdempotencySettings {
  db: Db;
  now: () => Date;
  lockMs: number;
  retainMs: number;
  docsUrl: string;
  /** Stored responses may carry secrets returned once (journey links, signing secrets): sealed at rest. */
  keyring: MasterKeyring;
}

export interface Outcome {
  status: number;
  body: unknown;
}

const sealAad = (apiKeyId: string, idem: string) => `idempotency:${apiKeyId}:${idem}`;

function sealBody(s: IdempotencySettings, apiKeyId: string, idem: string, body: unknown): { sealed: string } {
  return { sealed: s.keyring.seal(JSON.stringify(body), sealAad(apiKeyId, idem)) };
}

function openBody(s: IdempotencySettings, apiKeyId: string, idem: string, stored: unknown): unknown {
  return JSON.parse(s.keyring.openText((stored as { sealed: string }).sealed, sealAad(apiKeyId, idem)));
}

/** The request's Idempotency-Key (presence and shape checked with the signature). */
export const idempotencyKeyOf = (req: FastifyRequest) => req.headers['idempotency-key'] as string;

/**
 * The fingerprint of a request stored with its Idempotency-Key: a reuse with another request is
 * refused. Through the console every operator shares the console credential, so the acting operator
 * is part of the request: one operator's key never replays another's answer (a secret shown once).
 */
export function requestHashOf(req: FastifyRequest): string {
  const hash = createHash('sha256').update(`${req.method}\n${req.url}\n`);
  if (req.operator) hash.update(`operator:${req.operator.id}\n`);
  return hash.update(req.rawBody ?? '').digest('hex');
}

async function sendReplay(s: IdempotencySettings, reply: FastifyReply, apiKeyId: string, idem: string, status: number, stored: unknown) {
  await reply.header('idempotent-replayed', 'true').code(status).send(openBody(s, apiKeyId, idem, stored));
}

export const inProgress = () => new ApiError('idempotency_request_in_progress', undefined, undefined, { 'retry-after': '1' });

interface Reserved {
  apiKeyId: string;
  idem: string;
}

const timesOf = (s: IdempotencySettings) => ({ now: s.now(), lockMs: s.lockMs, retainMs: s.retainMs });

/** What a reservation that did not claim the key answers: 422 for another request, 409 while the first runs, else the replay. */
async function answerExisting(s: IdempotencySettings, reply: FastifyReply, r: Reserved, reservation: Exclude<Reservation, { outcome: 'reserved' }>) {
  switch (reservation.outcome) {
    case 'mismatch':
      throw new ApiError('idempotency_key_reused', undefined, 'Idempotency-Key');
    case 'in_progress':
      throw inProgress();
    case 'replay':
      await sendReplay(s, reply, r.apiKeyId, r.idem, reservation.status, reservation.body);
  }
}

/**
 * Claims the request's Idempotency-Key in its own committed statement, so concurrent duplicates
 * see it; answers a replay itself (returns null) and refuses a mismatch or a duplicate in progress.
 */
async function reserve(s: IdempotencySettings, req: FastifyRequest, reply: FastifyReply): Promise<Reserved | null> {
  const r = { apiKeyId: authOf(req).key.id, idem: idempotencyKeyOf(req) };
  const reservation = await reserveIdempotencyKey(s.db, r.apiKeyId, r.idem, requestHashOf(req), timesOf(s));
  if (reservation.outcome === 'reserved') return r;
  await answerExisting(s, reply, r, reservation);
  return null;
}

/**
 * Refusals that depend on the moment rather than on the request: not stored, so the same
 * Idempotency-Key goes through once the condition lifts (a quota of the next month, a larger one).
 */
const TRANSIENT_REFUSALS: ReadonlySet<string> = new Set(['quota_exceeded']);

/** A refusal (4xx) is stored and replayed like a success; an unexpected failure is not. */
const isStoredRefusal = (err: unknown): err is ApiError => err instanceof ApiError && err.status < 500 && !TRANSIENT_REFUSALS.has(err.code);

async function settleFailure(s: IdempotencySettings, req: FastifyRequest, r: Reserved, err: unknown): Promise<never> {
  if (isStoredRefusal(err)) {
    await completeIdempotencyKey(s.db, r.apiKeyId, r.idem, err.status, sealBody(s, r.apiKeyId, r.idem, errorBody(err, req.id, s.docsUrl)));
  } else {
    await releaseIdempotencyKey(s.db, r.apiKeyId, r.idem);
  }
  throw err;
}

/**
 * Runs a signed creation exactly once per (API key, Idempotency-Key). The key is
 * reserved in its own committed statement so concurrent duplicates see it; the work and the
 * stored response then commit in one transaction, so a crash leaves either nothing or both. A refusal (4xx) is stored
 * and replayed like a success (except TRANSIENT_REFUSALS); an unexpected failure releases the key so the client may retry.
 */
export async function runIdempotent(
  s: IdempotencySettings,
  req: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Tx) => Promise<Outcome>,
  /** Runs after the commit, before the response is sent (deleting files the work made unreachable); a failure is logged, never thrown. */
  afterCommit?: () => Promise<void>,
): Promise<void> {
  const r = await reserve(s, req, reply);
  if (!r) return;
  let outcome: Outcome;
  try {
    outcome = await s.db.transaction(async (tx) => {
      const result = await work(tx);
      await completeIdempotencyKey(tx, r.apiKeyId, r.idem, result.status, sealBody(s, r.apiKeyId, r.idem, result.body));
      return result;
    });
  } catch (err) {
    return settleFailure(s, req, r, err);
  }
  if (afterCommit) await afterCommit().catch((err) => req.log.warn({ err }, 'after-commit step failed'));
  await reply.code(outcome.status).send(outcome.body);
}

/**
 * runIdempotent with the claim inside the work's transaction: one commit for the claim, the work
 * and the stored response. A concurrent duplicate waits on the claimed row until that commit, then
 * replays it (or claims the key, if the first rolled back). With `activeFlow`, the claim's
 * statement also reads the tenant's active flow of that name, handed to `work` (null: none).
 */
export async function runIdempotentInTransaction(
  s: IdempotencySettings,
  req: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Tx, flow: FlowRow | null) => Promise<Outcome>,
  activeFlow?: string,
): Promise<void> {
  const { key, tenant } = authOf(req);
  const r = { apiKeyId: key.id, idem: idempotencyKeyOf(req) };
  const hash = requestHashOf(req);
  const flow = activeFlow === undefined ? undefined : { tenant, name: activeFlow };
  type Done = { reservation: Exclude<Reservation, { outcome: 'reserved' }> } | { outcome: Outcome; refusal?: ApiError };
  const done = await s.db.transaction(async (tx): Promise<Done> => {
    const reservation = await reserveIdempotencyKey(tx, r.apiKeyId, r.idem, hash, timesOf(s), flow);
    if (reservation.outcome !== 'reserved') return { reservation };
    let outcome: Outcome;
    let refusal: ApiError | undefined;
    try {
      outcome = await work(tx, reservation.flow ?? null);
    } catch (err) {
      if (!isStoredRefusal(err)) throw err;
      refusal = err;
      outcome = { status: err.status, body: errorBody(err, req.id, s.docsUrl) };
    }
    await completeIdempotencyKey(tx, r.apiKeyId, r.idem, outcome.status, sealBody(s, r.apiKeyId, r.idem, outcome.body));
    return { outcome, refusal };
  });
  if ('reservation' in done) return answerExisting(s, reply, r, done.reservation);
  if (done.refusal) throw done.refusal;
  await reply.code(done.outcome.status).send(done.outcome.body);
}
