import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  completeIdempotencyKey,
  findLiveIdempotencyEntry,
  isSignatureReplay,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
  storeDoneEntry,
  type Db,
  type DoneEntry,
  type EntryOwner,
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
const idempotencyKeyOf = (req: FastifyRequest) => req.headers['idempotency-key'] as string;

/**
 * The fingerprint of a request stored with its Idempotency-Key: a reuse with another request is
 * refused. Through the console every operator shares the console credential, so the acting operator
 * is part of the request: one operator's key never replays another's answer (a secret shown once).
 */
function requestHashOf(req: FastifyRequest): string {
  const hash = createHash('sha256').update(`${req.method}\n${req.url}\n`);
  if (req.operator) hash.update(`operator:${req.operator.id}\n`);
  return hash.update(req.rawBody ?? '').digest('hex');
}

async function sendReplay(s: IdempotencySettings, reply: FastifyReply, apiKeyId: string, idem: string, status: number, stored: unknown) {
  await reply.header('idempotent-replayed', 'true').code(status).send(openBody(s, apiKeyId, idem, stored));
}

const inProgress = () => new ApiError('idempotency_request_in_progress', undefined, undefined, { 'retry-after': '1' });

/** The entry a request writes: its key, Idempotency-Key, fingerprint and signature (http/signature.ts). */
const ownerOf = (req: FastifyRequest): EntryOwner => ({
  apiKeyId: authOf(req).key.id,
  key: idempotencyKeyOf(req),
  requestHash: requestHashOf(req),
  signature: req.signature ?? null,
});

/** Runs a statement that writes the request's entry: a signature another entry holds is a replay, refused. */
async function writingEntry<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isSignatureReplay(err)) throw new ApiError('signature_replayed');
    throw err;
  }
}

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
  const owner = ownerOf(req);
  const r = { apiKeyId: owner.apiKeyId, idem: owner.key };
  const reservation = await writingEntry(() => reserveIdempotencyKey(s.db, owner, timesOf(s)));
  if (reservation.outcome === 'reserved') return r;
  await answerExisting(s, reply, r, reservation);
  return null;
}

/**
 * Refusals that depend on the moment rather than on the request: not stored, so the same
 * Idempotency-Key goes through once the condition lifts (a quota of the next month, a larger one).
 */
const TRANSIENT_REFUSALS: ReadonlySet<string> = new Set(['quota_exceeded']);

/**
 * A refusal (4xx) is stored and replayed like a success; an unexpected failure is not, nor a
 * replayed signature (its entry cannot be written: the signature is another entry's).
 */
const isStoredRefusal = (err: unknown): err is ApiError =>
  err instanceof ApiError && err.status < 500 && !TRANSIENT_REFUSALS.has(err.code) && err.code !== 'signature_replayed';

async function settleFailure(s: IdempotencySettings, req: FastifyRequest, r: Reserved, err: unknown): Promise<never> {
  if (isStoredRefusal(err)) {
    await completeIdempotencyKey(s.db, r.apiKeyId, r.idem, err.status, sealBody(s, r.apiKeyId, r.idem, errorBody(err, req.id, s.docsUrl)));
  } else {
    await releaseIdempotencyKey(s.db, r.apiKeyId, r.idem);
  }
  throw err;
}

/**
 * Runs a signed creation exactly once per (API key, Idempotency-Key). The key is reserved in its
 * own committed statement so concurrent duplicates see it; the work and the stored response then
 * commit in one transaction, so a crash leaves either nothing or both. A refusal (4xx) is stored
 * and replayed like a success (except TRANSIENT_REFUSALS); an unexpected failure releases the key
 * so the client may retry.
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

/** The entry of this request, done, with `outcome` as its stored response. */
export type EntryOf = (outcome: Outcome) => DoneEntry;

/**
 * runIdempotent for a creation that writes its entry, done, in the statement (or transaction) of
 * its own writes: one commit, no reservation ahead. `work` returns whether that entry was written;
 * when not, a live entry decides (replay, 409 while it runs, 422 for another request). A refusal
 * is stored like a success, except TRANSIENT_REFUSALS, which a live entry also answers first.
 */
export async function runIdempotentCreation(
  s: IdempotencySettings,
  req: FastifyRequest,
  reply: FastifyReply,
  work: (entryOf: EntryOf) => Promise<{ outcome: Outcome; written: boolean }>,
): Promise<void> {
  const owner = ownerOf(req);
  const { requestHash } = owner;
  const r = { apiKeyId: owner.apiKeyId, idem: owner.key };
  const now = s.now();
  const entryOf: EntryOf = (o) => ({
    ...owner,
    status: o.status,
    body: sealBody(s, r.apiKeyId, r.idem, o.body),
    now,
    expiresAt: new Date(now.getTime() + s.retainMs),
  });
  let result: { outcome: Outcome; written: boolean };
  try {
    result = await writingEntry(() => work(entryOf));
  } catch (err) {
    const stored = isStoredRefusal(err);
    if (!stored && !(err instanceof ApiError && TRANSIENT_REFUSALS.has(err.code))) throw err;
    if (stored && (await storeDoneEntry(s.db, entryOf({ status: err.status, body: errorBody(err, req.id, s.docsUrl) })))) throw err;
    const live = await findLiveIdempotencyEntry(s.db, r.apiKeyId, r.idem, requestHash, now);
    if (!live) throw stored ? inProgress() : err;
    return answerEntry(s, reply, r, requestHash, live);
  }
  if (result.written) return void (await reply.code(result.outcome.status).send(result.outcome.body));
  // A twin committed first (or one is running): its entry decides.
  const live = await findLiveIdempotencyEntry(s.db, r.apiKeyId, r.idem, requestHash, now);
  if (!live) throw inProgress();
  return answerEntry(s, reply, r, requestHash, live);
}

async function answerEntry(
  s: IdempotencySettings,
  reply: FastifyReply,
  r: Reserved,
  requestHash: string,
  entry: { requestHash: string; state: 'running' | 'done'; responseStatus: number | null; responseBody: unknown },
): Promise<void> {
  if (entry.requestHash !== requestHash) throw new ApiError('idempotency_key_reused', undefined, 'Idempotency-Key');
  if (entry.state === 'running' || entry.responseStatus === null) throw inProgress();
  await sendReplay(s, reply, r.apiKeyId, r.idem, entry.responseStatus, entry.responseBody);
}
