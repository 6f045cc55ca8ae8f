/**
 * What the oversight screens keep in their address (no personal data: a window, a month), shared
 * by the router (the entry chunk) and the screens (their own chunks) without pulling the screens in.
 */

/** The windows of the review metrics, in days (the service allows up to 366 days back). */
export const METRICS_WINDOWS = [7, 30, 90, 365] as const;
export type MetricsWindow = (typeof METRICS_WINDOWS)[number];
export const DEFAULT_METRICS_WINDOW: MetricsWindow = 30;

export function metricsWindowOf(value: unknown): MetricsWindow | undefined {
  const days = Number(value);
  return (METRICS_WINDOWS as readonly number[]).includes(days) ? (days as MetricsWindow) : undefined;
}

/** A month of usage, `YYYY-MM` (UTC months, as the service counts them). */
export const isPeriod = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-(0[1-9]|1[0-2])$/.test(v);
export const currentPeriod = () => new Date().toISOString().slice(0, 7);
