/**
 * What the service meters: work done, never calls (docs/usage.md): a verification when a case's
 * first round reaches the checks, a review concluded by a person, each later resubmission that
 * reaches the checks, and an erasure the client asked for.
 */
export const USAGE_SERVICES = ['verification', 'review', 'resubmission', 'erasure'] as const;
export type UsageService = (typeof USAGE_SERVICES)[number];

export function isUsageService(value: string): value is UsageService {
  return (USAGE_SERVICES as readonly string[]).includes(value);
}

/** A month of usage, `YYYY-MM`, with its UTC bounds: start inclusive, end exclusive. */
export interface UsagePeriod {
  period: string;
  start: Date;
  end: Date;
}

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The month named by `YYYY-MM` (month 01 to 12), or null for anything else. */
export function parsePeriod(text: string): UsagePeriod | null {
  const m = PERIOD.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]) - 1;
  return { period: text, start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)) };
}

/** The UTC month an instant falls in, as `YYYY-MM`. */
export function periodOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** Zero for every service: the totals of a month with nothing. */
export function emptyUsage(): Record<UsageService, number> {
  return Object.fromEntries(USAGE_SERVICES.map((s) => [s, 0])) as Record<UsageService, number>;
}

/**
 * The source key of a unit: one per act, so recording the same act again (a retry, a replay, a
 * worker running a job twice) finds the unit already there and adds nothing.
 */
export const usageSourceKey = {
  verification: (caseId: string) => `verification:${caseId}`,
  review: (taskId: string) => `review:${taskId}`,
  resubmission: (caseId: string, round: number) => `resubmission:${caseId}:${round}`,
  erasure: (caseId: string) => `erasure:${caseId}`,
} satisfies Record<UsageService, (...args: never[]) => string>;
