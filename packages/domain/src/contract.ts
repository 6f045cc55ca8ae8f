/**
 * The contract of a client: subscriptions to measured services (see usage.ts), each with an
 * offer, a monthly quota and what happens beyond it. Quotas count production units only: the
 * sandbox is metered apart and never counts against a quota (docs/usage.md, "Contract and quotas").
 */
import type { UsageService } from './usage.ts';

/**
 * What happens once the month's production units of a service reach its quota:
 * - block: new work that would cost a unit is refused (only verification can block: case creation
 *   in production is refused with quota_exceeded); both quota events are sent;
 * - notify: the work goes on and the excess is counted; both quota events are sent;
 * - allow: the work goes on and the excess is counted, silently (no event).
 */
export const OVER_QUOTA_BEHAVIOURS = ['block', 'allow', 'notify'] as const;
export type OverQuotaBehaviour = (typeof OVER_QUOTA_BEHAVIOURS)[number];

/**
 * Services whose quota may block. A refusal must come before the act, on a request the client
 * can retry later: opening a case is one. A review is an operator's work already under way, a
 * resubmission round belongs to a person mid-journey, and an erasure is a legal duty: none of
 * them is ever refused for a quota.
 */
export const BLOCKABLE_SERVICES: readonly UsageService[] = ['verification'];

/** The share of the quota at which usage.quota_threshold_reached is sent. */
export const QUOTA_THRESHOLD_PERCENT = 80;

export type SubscriptionState = 'in_force' | 'upcoming' | 'ended';

export interface SubscriptionPeriod {
  startsAt: Date;
  /** Null: open-ended. */
  endsAt: Date | null;
}

/**
 * The state of a subscription at `now`: in force from its start (inclusive) to its end
 * (exclusive). One ended before it started (an upcoming subscription cancelled) never comes into
 * force: it is ended.
 */
export function subscriptionState(s: SubscriptionPeriod, now: Date): SubscriptionState {
  const t = now.getTime();
  if (s.endsAt && (t >= s.endsAt.getTime() || s.endsAt.getTime() <= s.startsAt.getTime())) return 'ended';
  return t < s.startsAt.getTime() ? 'upcoming' : 'in_force';
}

/** True when the two periods share an instant (ends are exclusive, null is open-ended). */
export function periodsOverlap(a: SubscriptionPeriod, b: SubscriptionPeriod): boolean {
  const end = (p: SubscriptionPeriod) => (p.endsAt ? p.endsAt.getTime() : Infinity);
  return a.startsAt.getTime() < end(b) && b.startsAt.getTime() < end(a);
}

/**
 * The subscription that speaks for a service in the month [start, end): the one in force at the
 * month's reference instant (now in the current month, the last instant of a past month, the first
 * of a future one); failing that, the last to start among those in force during the month (one
 * ended early). Null when none covers the month. `rows` are the subscriptions of one service.
 */
export function subscriptionOfMonth<T extends SubscriptionPeriod>(rows: readonly T[], start: Date, end: Date, now: Date): T | null {
  const ref = new Date(Math.min(Math.max(now.getTime(), start.getTime()), end.getTime() - 1));
  const month = { startsAt: start, endsAt: end };
  const during = rows.filter((r) => subscriptionState(r, r.startsAt) === 'in_force' && periodsOverlap(r, month));
  const atRef = during.find((r) => subscriptionState(r, ref) === 'in_force');
  if (atRef) return atRef;
  const started = during.filter((r) => r.startsAt <= ref);
  return started.length ? started.reduce((a, b) => (b.startsAt > a.startsAt ? b : a)) : null;
}

export interface QuotaTerms {
  /** Units per month; null is unlimited. */
  quota: number | null;
  overQuota: OverQuotaBehaviour;
}

/** The quota events a month's `used` units have reached, in the order they are sent. */
export function quotaEventsReached(terms: QuotaTerms, used: number): ('threshold' | 'reached')[] {
  if (terms.quota === null || terms.overQuota === 'allow') return [];
  const out: ('threshold' | 'reached')[] = [];
  // Integer arithmetic: used / quota >= 80 % without rounding.
  if (used * 100 >= terms.quota * QUOTA_THRESHOLD_PERCENT) out.push('threshold');
  if (used >= terms.quota) out.push('reached');
  return out;
}

/** True when a new unit of the service must be refused: a blocking quota already used up. */
export function quotaBlocks(terms: QuotaTerms, used: number): boolean {
  return terms.quota !== null && terms.overQuota === 'block' && used >= terms.quota;
}

/** Units beyond the quota (counted, and billed as the offer says, under allow and notify). */
export function quotaExcess(terms: QuotaTerms, used: number): number {
  return terms.quota === null ? 0 : Math.max(0, used - terms.quota);
}

/** An offer is a label of the provider's price list: printable, without personal data. */
export const OFFER_PATTERN = '^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$';
export const MAX_MONTHLY_QUOTA = 1_000_000_000;
