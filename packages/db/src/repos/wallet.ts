import { and, count, desc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { walletRequests, walletSandboxIssuer, walletVerifiers } from '../schema.ts';
import type { Tenant } from './tenant.ts';

export type WalletVerifierRow = typeof walletVerifiers.$inferSelect;
export type WalletRequestRow = typeof walletRequests.$inferSelect;

/** The client's verifier identity in this environment, or null before its first wallet request. */
export async function findWalletVerifier(db: Executor, tenant: Tenant): Promise<WalletVerifierRow | null> {
  const [row] = await db
    .select()
    .from(walletVerifiers)
    .where(and(eq(walletVerifiers.clientId, tenant.clientId), eq(walletVerifiers.environment, tenant.environment)));
  return row ?? null;
}

/**
 * Stores a verifier identity unless one exists (two first requests at once: the first stored
 * wins); returns the row that is now stored and whether it is the one given.
 */
export async function insertWalletVerifier(tx: Executor, row: WalletVerifierRow): Promise<{ row: WalletVerifierRow; created: boolean }> {
  const inserted = await tx.insert(walletVerifiers).values(row).onConflictDoNothing().returning();
  if (inserted[0]) return { row: inserted[0], created: true };
  return { row: (await findWalletVerifier(tx, row))!, created: false };
}

export async function insertWalletRequest(tx: Executor, row: typeof walletRequests.$inferInsert): Promise<void> {
  await tx.insert(walletRequests).values(row);
}

/** A request by id alone: the wallet-facing routes know nothing else (the id is unguessable). */
export async function findWalletRequest(db: Executor, id: string): Promise<WalletRequestRow | null> {
  const [row] = await db.select().from(walletRequests).where(eq(walletRequests.id, id));
  return row ?? null;
}

/** A request of a case (another case's is not found). */
export async function findWalletRequestOfCase(db: Executor, caseId: string, id: string): Promise<WalletRequestRow | null> {
  const [row] = await db.select().from(walletRequests).where(and(eq(walletRequests.caseId, caseId), eq(walletRequests.id, id)));
  return row ?? null;
}

/** How many requests a case has asked for (bounded per case). */
export async function countWalletRequests(db: Executor, caseId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(walletRequests).where(eq(walletRequests.caseId, caseId));
  return Number(row?.n ?? 0);
}

/** Marks the request object fetched (the first fetch; later ones leave it). */
export async function markWalletRequestFetched(db: Executor, id: string, now: Date): Promise<void> {
  await db
    .update(walletRequests)
    .set({ fetchedAt: now })
    .where(and(eq(walletRequests.id, id), isNull(walletRequests.fetchedAt)));
}

/**
 * Records the answer to a request, once: of concurrent answers (on any instance) only the first
 * finds it unanswered (the row lock makes the second wait, then see it answered).
 */
export async function answerWalletRequest(
  tx: Executor,
  id: string,
  answer: { outcome: string; presentationSealed: string | null },
  now: Date,
): Promise<boolean> {
  const rows = await tx
    .update(walletRequests)
    .set({ answeredAt: now, outcome: answer.outcome, presentationSealed: answer.presentationSealed })
    .where(and(eq(walletRequests.id, id), isNull(walletRequests.answeredAt)))
    .returning({ id: walletRequests.id });
  return rows.length === 1;
}

/** The answered requests of a case up to a round, newest first: the journey's progress and the check read them. */
export async function answeredWalletRequests(db: Executor, caseId: string, upToRound: number): Promise<WalletRequestRow[]> {
  return db
    .select()
    .from(walletRequests)
    .where(and(eq(walletRequests.caseId, caseId), lte(walletRequests.round, upToRound), sql`${walletRequests.answeredAt} IS NOT NULL`))
    .orderBy(desc(walletRequests.answeredAt), desc(walletRequests.id));
}

export type WalletSandboxIssuerRow = typeof walletSandboxIssuer.$inferSelect;
const SANDBOX_ISSUER_ID = 'sandbox';

/** The installation's sandbox test issuer, or null before its first use. */
export async function findWalletSandboxIssuer(db: Executor): Promise<WalletSandboxIssuerRow | null> {
  const [row] = await db.select().from(walletSandboxIssuer).where(eq(walletSandboxIssuer.id, SANDBOX_ISSUER_ID));
  return row ?? null;
}

/** Stores the sandbox issuer unless one exists (two instances at once: the first stored wins); returns the stored one. */
export async function insertWalletSandboxIssuer(db: Executor, row: Omit<WalletSandboxIssuerRow, 'id'>): Promise<WalletSandboxIssuerRow> {
  await db
    .insert(walletSandboxIssuer)
    .values({ id: SANDBOX_ISSUER_ID, ...row })
    .onConflictDoNothing();
  return (await findWalletSandboxIssuer(db))!;
}
