import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  completeIdempotencyKey,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
  reserveIdempotencyKeyWithApiKey,
  type Db,
  type FlowRow,
  type StoredResponse,
  type Tx,
} from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import { ApiError, errorBody } from './api-error.ts';
import { acceptKey, authOf } from './auth.ts';

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
  return sealJsonText(s, apiKeyId, idem, JSON.stringify(body));
}

/** `sealBody` of a body already serialised (the same text is then sent, not serialised again). */
export function sealJsonText(s: IdempotencySettings, apiKeyId: string, idem: string, json: string): { sealed: string } {
  return { sealed: s.keyring.seal(json, sealAad(apiKeyId, idem)) };
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

/**
 * Answers a request whose Idempotency-Key already has a live entry, as a reservation that found
 * it would: 422 for another request, 409 while the first runs, else the stored response replayed.
 */
export async function answerStoredEntry(
  s: IdempotencySettings,
  req: FastifyRequest,
  reply: FastifyReply,
  apiKeyId: string,
  entry: { requestHash: string; state: 'running' | 'done'; status: number | null; body: unknown },
): Promise<void> {
  if (entry.requestHash !== requestHashOf(req)) throw new ApiError('idempotency_key_reused', undefined, 'Idempotency-Key');
  if (entry.state === 'running' || entry.status === null) throw inProgress();
  await sendReplay(s, reply, apiKeyId, idempotencyKeyOf(req), entry.status, entry.body);
}

export const inProgress = () => new ApiError('idempotency_request_in_progress', undefined, undefined, { 'retry-after': '1' });

interface Reserved {
  apiKeyId: string;
  idem: string;
  /** The activated flow read with the reservation, when one was asked for (null when none). */
  flow?: FlowRow | null;
}

/**
 * Claims the request's Idempotency-Key in its own committed statement, so concurrent duplicates
 * see it; answers a replay itself (returns null) and refuses a mismatch or a duplicate in progress.
 * With `activeFlow`, that statement also reads the tenant's activated flow of that name.
 */
async function reserve(s: IdempotencySettings, req: FastifyRequest, reply: FastifyReply, activeFlow?: string): Promise<Reserved | null> {
  const auth = authOf(req);
  const idem = idempotencyKeyOf(req);
  const hash = requestHashOf(req);
  const times = { now: s.now(), lockMs: s.lockMs, retainMs: s.retainMs };
  let reservation;
  if (auth.confirm) {
    // The key is not read from the database yet (RequestAuth.confirm): the reservation's statement
    // reads it, and claims only for a key that exists and is not revoked (else its 401 here).
    const secretHash = auth.key.secretHash;
    const read = await reserveIdempotencyKeyWithApiKey(s.db, secretHash, idem, hash, times, activeFlow ?? null);
    acceptKey(req, secretHash, read.apiKey);
    reservation = read.reservation!;
  } else {
    const flow = activeFlow === undefined ? undefined : { tenant: auth.tenant, name: activeFlow };
    reservation = await reserveIdempotencyKey(s.db, auth.key.id, idem, hash, times, flow);
  }
  const { key } = authOf(req);
  switch (reservation.outcome) {
    case 'mismatch':
      throw new ApiError('idempotency_key_reused', undefined, 'Idempotency-Key');
    case 'in_progress':
      throw inProgress();
    case 'replay':
      await sendReplay(s, reply, key.id, idem, reservation.status, reservation.body);
      return null;
  }
  return { apiKeyId: key.id, idem, flow: reservation.flow };
}

/** A refusal (4xx) is stored and replayed like a success; an unexpected failure releases the key. */
/**
 * Refusals that depend on the moment rather than on the request: not stored, so the same
 * Idempotency-Key goes through once the condition lifts (a quota of the next month, a larger one).
 */
const TRANSIENT_REFUSALS: ReadonlySet<string> = new Set(['quota_exceeded']);

async function settleFailure(s: IdempotencySettings, req: FastifyRequest, r: Reserved, err: unknown): Promise<never> {
  if (err instanceof ApiError && err.status < 500 && !TRANSIENT_REFUSALS.has(err.code)) {
    await completeIdempotencyKey(s.db, r.apiKeyId, r.idem, err.status, sealBody(s, r.apiKeyId, r.idem, errorBody(err, req.id, s.docsUrl)));
  } else {
    await releaseIdempotencyKey(s.db, r.apiKeyId, r.idem);
  }
  throw err;
}

/**
 * Runs a signed creation exactly once per (API key, Idempotency-Key). (POST /v1/cases does not
 * commit a reservation before its work: routes/cases/create-once.ts, one statement.) The key is
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
 * The same guarantees as runIdempotent for a creation whose writes fit in ONE statement (a single
 * statement is itself atomic): `work` reads through the database directly and must write the
 * stored response given by `store(outcome)` in that same statement (or in a transaction of its
 * own holding all its writes), so the work and the stored response still commit together, without
 * the BEGIN and COMMIT round trips of a transaction in the common case. With `activeFlow`, the
 * reservation's statement also reads the tenant's activated flow of that name, handed to `work`
 * (null when there is none): one round trip less than reading it in the work.
 */
export async function runIdempotentStatement(
  s: IdempotencySettings,
  req: FastifyRequest,
  reply: FastifyReply,
  work: (db: Db, store: (outcome: Outcome) => StoredResponse, flow: FlowRow | null) => Promise<Outcome>,
  activeFlow?: string,
): Promise<void> {
  const r = await reserve(s, req, reply, activeFlow);
  if (!r) return;
  let outcome: Outcome;
  try {
    const store = (o: Outcome) => ({ apiKeyId: r.apiKeyId, key: r.idem, status: o.status, body: sealBody(s, r.apiKeyId, r.idem, o.body) });
    outcome = await work(s.db, store, r.flow ?? null);
  } catch (err) {
    return settleFailure(s, req, r, err);
  }
  await reply.code(outcome.status).send(outcome.body);
}
