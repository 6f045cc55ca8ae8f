import { fillDays } from './daily-series.ts';
import type { DecidedOutcome } from './review.ts';

/**
 * What an operations lead asks of the decisions: how many, by outcome and reason, how many the
 * checks decided alone (the automation rate), how long a case takes to be decided. The database
 * groups the decided cases (decisionGroups in @idv/db); this puts the groups into the answer.
 */

/** Who concluded a case: the checks alone, an operator (a review task they closed), or a key. */
export type DecidedBy = 'automatic' | 'operator' | 'key';

/**
 * One grouping of the decided cases: `detail` per day, outcome, reason and decider; `day`;
 * `decider`; `all`. Columns outside the set are null; `p50` is the median seconds from the case's
 * creation to its decision.
 */
export interface DecisionGroup {
  set: 'detail' | 'day' | 'decider' | 'all';
  day: string | null;
  outcome: DecidedOutcome | null;
  reason_code: string | null;
  decided_by: DecidedBy | null;
  count: number;
  p50: number | null;
}

interface DecisionDay {
  date: string;
  approved: number;
  rejected: number;
  /** Of those, decided by the checks alone. */
  automatic: number;
  decision_seconds_p50: number | null;
}

interface DecisionReason {
  outcome: DecidedOutcome;
  /** Null for an approval (it gives none), or a decision that gave none. */
  reason_code: string | null;
  count: number;
  automatic: number;
}

export interface DecisionSummary {
  decided: { total: number; approved: number; rejected: number; automatic: number; by_operators: number; by_keys: number };
  /** automatic / total, three decimals; null when nothing was decided. */
  automation_rate: number | null;
  time_to_decision_seconds: { p50: number | null; automatic_p50: number | null; operators_p50: number | null; keys_p50: number | null };
  /** Most frequent first. */
  reasons: DecisionReason[];
  daily: DecisionDay[];
}

const EMPTY_DAY = { approved: 0, rejected: 0, automatic: 0, decision_seconds_p50: null as number | null };

/** The groups as the answer: totals, the split by decider, the reasons, and every UTC day of `days` (zeros included). */
export function summariseDecisions(groups: readonly DecisionGroup[], days: readonly string[]): DecisionSummary {
  const detail = groups.filter((g) => g.set === 'detail');
  const sum = (pick: (g: DecisionGroup) => boolean) => detail.filter(pick).reduce((n, g) => n + g.count, 0);
  const decider = (by: DecidedBy) => groups.find((g) => g.set === 'decider' && g.decided_by === by);
  const total = sum(() => true);
  const automatic = sum((g) => g.decided_by === 'automatic');

  const reasons = new Map<string, DecisionReason>();
  for (const g of detail) {
    const key = `${g.outcome}|${g.reason_code ?? ''}`;
    const r = reasons.get(key) ?? { outcome: g.outcome!, reason_code: g.reason_code, count: 0, automatic: 0 };
    r.count += g.count;
    if (g.decided_by === 'automatic') r.automatic += g.count;
    reasons.set(key, r);
  }

  const perDay = new Map<string, Partial<DecisionDay> & { day: string }>();
  const dayOf = (day: string) => perDay.get(day) ?? perDay.set(day, { day, approved: 0, rejected: 0, automatic: 0 }).get(day)!;
  for (const g of detail) {
    const d = dayOf(g.day!);
    d[g.outcome!] = (d[g.outcome!] ?? 0) + g.count;
    if (g.decided_by === 'automatic') d.automatic = (d.automatic ?? 0) + g.count;
  }
  for (const g of groups) if (g.set === 'day' && g.day) dayOf(g.day).decision_seconds_p50 = g.p50;

  return {
    decided: {
      total,
      approved: sum((g) => g.outcome === 'approved'),
      rejected: sum((g) => g.outcome === 'rejected'),
      automatic,
      by_operators: sum((g) => g.decided_by === 'operator'),
      by_keys: sum((g) => g.decided_by === 'key'),
    },
    automation_rate: total === 0 ? null : Math.round((automatic / total) * 1000) / 1000,
    time_to_decision_seconds: {
      p50: groups.find((g) => g.set === 'all')?.p50 ?? null,
      automatic_p50: decider('automatic')?.p50 ?? null,
      operators_p50: decider('operator')?.p50 ?? null,
      keys_p50: decider('key')?.p50 ?? null,
    },
    reasons: [...reasons.values()].sort((a, b) => b.count - a.count || a.outcome.localeCompare(b.outcome) || (a.reason_code ?? '').localeCompare(b.reason_code ?? '')),
    daily: fillDays(days, perDay.values(), EMPTY_DAY),
  };
}
