import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  completeIdempotencyKey,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
  type Db,
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

/**
 * Runs a signed creation exactly once per (API key, Idempotency-Key). The key is reserved in its
 * own committed statement so concurrent duplicates see it; the work and the stored response then
 * commit in one transaction, so a crash leaves either nothing or both. A refusal (4xx) is stored
 * and replayed like a success; an unexpected failure releases the key so the client may retry.
 */
export async function runIdempotent(
  s: IdempotencySettings,
  req: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Tx) => Promise<Outcome>,
  /** Runs after the commit, before the response is sent (deleting files the work made unreachable); a failure is logged, never thrown. */
  afterCommit?: () => Promise<void>,
): Promise<void> {
  const { key } = authOf(req);
  const idem = req.headers['idempotency-key'] as string; // presence and shape checked with the signature
  const hash = createHash('sha256').update(`${req.method}\n${req.url}\n`).update(req.rawBody ?? '').digest('hex');
  const reservation = await reserveIdempotencyKey(s.db, key.id, idem, hash, {
    now: s.now(),
    lockMs: s.lockMs,
    retainMs: s.retainMs,
  });
  switch (reservation.outcome) {
    case 'mismatch':
      throw new ApiError('idempotency_key_reused', undefined, 'Idempotency-Key');
    case 'in_progress':
      throw new ApiError('idempotency_request_in_progress', undefined, undefined, { 'retry-after': '1' });
    case 'replay':
      await reply.header('idempotent-replayed', 'true').code(reservation.status).send(openBody(s, key.id, idem, reservation.body));
      return;
  }
  try {
    const outcome = await s.db.transaction(async (tx) => {
      const result = await work(tx);
      await completeIdempotencyKey(tx, key.id, idem, result.status, sealBody(s, key.id, idem, result.body));
      return result;
    });
    if (afterCommit) await afterCommit().catch((err) => req.log.warn({ err }, 'after-commit step failed'));
    await reply.code(outcome.status).send(outcome.body);
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) {
      await completeIdempotencyKey(s.db, key.id, idem, err.status, sealBody(s, key.id, idem, errorBody(err, req.id, s.docsUrl)));
    } else {
      await releaseIdempotencyKey(s.db, key.id, idem);
    }
    throw err;
  }
}
