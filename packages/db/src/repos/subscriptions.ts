import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { newId, periodsOverlap, type OverQuotaBehaviour, type UsageService } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { clients, subscriptions } from '../schema.ts';

export type SubscriptionRow = typeof subscriptions.$inferSelect;

export interface NewSubscription {
  clientId: string;
  service: UsageService;
  offer: string;
  /** Null: unlimited. */
  monthlyQuota: number | null;
  overQuota: OverQuotaBehaviour;
  startsAt: Date;
  endsAt: Date | null;
}

export type SetSubscriptionResult =
  | { ok: true; subscription: SubscriptionRow; ended: SubscriptionRow[] }
  | { ok: false; conflict: SubscriptionRow };

/** Every subscription of a client, ended ones included, by service then start. */
export async function listSubscriptions(db: Executor, clientId: string): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.clientId, clientId))
    .orderBy(asc(subscriptions.service), asc(subscriptions.startsAt), asc(subscriptions.id));
}

/**
 * Subscribes a client to a service from `startsAt`. A subscription of that service that began
 * earlier and still runs at `startsAt` ends there (the new terms replace it); one that begins at
 * or after `startsAt` and overlaps is a conflict (end it first): periods of one service never
 * overlap, so at any instant at most one subscription per service is in force. The client's row
 * is locked so two concurrent changes cannot both pass the overlap check.
 */
export async function setSubscription(tx: Executor, sub: NewSubscription, now: Date): Promise<SetSubscriptionResult> {
  await tx.select({ id: clients.id }).from(clients).where(eq(clients.id, sub.clientId)).for('update');
  const current = await tx
    .select()
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.clientId, sub.clientId),
        eq(subscriptions.service, sub.service),
        or(isNull(subscriptions.endsAt), gt(subscriptions.endsAt, sub.startsAt)),
      ),
    )
    .orderBy(asc(subscriptions.startsAt));
  const overlapping = current.filter((s) => s.endsAt === null || s.endsAt > s.startsAt).filter((s) => periodsOverlap(s, sub));
  const later = overlapping.find((s) => s.startsAt >= sub.startsAt);
  if (later) return { ok: false, conflict: later };
  const ended: SubscriptionRow[] = [];
  for (const s of overlapping) {
    const [row] = await tx.update(subscriptions).set({ endsAt: sub.startsAt }).where(eq(subscriptions.id, s.id)).returning();
    ended.push(row);
  }
  const [row] = await tx
    .insert(subscriptions)
    .values({ id: newId('sub', now.getTime()), ...sub, createdAt: now })
    .returning();
  return { ok: true, subscription: row, ended };
}

/**
 * Ends a subscription of the client at `at` (now, by default): a subscription in force ends then;
 * an upcoming one is cancelled (it ends at its own start and never comes into force). Null when
 * the client has no such subscription; an already ended one is returned unchanged.
 */
export async function endSubscription(tx: Executor, clientId: string, id: string, at: Date): Promise<SubscriptionRow | null> {
  const [row] = await tx
    .update(subscriptions)
    .set({
      endsAt: sql`CASE WHEN ${subscriptions.startsAt} > ${at.toISOString()}::timestamptz THEN ${subscriptions.startsAt}
                       ELSE ${at.toISOString()}::timestamptz END`,
    })
    .where(
      and(
        eq(subscriptions.id, id),
        eq(subscriptions.clientId, clientId),
        or(isNull(subscriptions.endsAt), gt(subscriptions.endsAt, at)),
      ),
    )
    .returning();
  if (row) return row;
  const [unchanged] = await tx.select().from(subscriptions).where(and(eq(subscriptions.id, id), eq(subscriptions.clientId, clientId)));
  return unchanged ?? null;
}
