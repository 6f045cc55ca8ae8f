/**
 * Series per UTC day, for the console's charts (review metrics, usage): the database returns only
 * the days that have something; a chart needs every day of the window, zeros included.
 */
const DAY_MS = 86_400_000;

/** A series never spans more than this many days (the metrics window is at most 366 days). */
export const MAX_SERIES_DAYS = 400;

/** The UTC day of an instant, `YYYY-MM-DD`. */
const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/**
 * The UTC days from the day of `from` to the day of `to`, both included, oldest first (`YYYY-MM-DD`).
 * Empty when `to` is before `from`; throws beyond MAX_SERIES_DAYS (a caller's bound was missed).
 */
export function utcDays(from: Date, to: Date): string[] {
  const first = Date.parse(utcDay(from));
  const last = Date.parse(utcDay(to));
  const count = Math.floor((last - first) / DAY_MS) + 1;
  if (count <= 0) return [];
  if (count > MAX_SERIES_DAYS) throw new RangeError(`a daily series of ${count} days exceeds ${MAX_SERIES_DAYS}`);
  return Array.from({ length: count }, (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10));
}

/**
 * One entry per day of `days`, in that order: `empty`'s values, overwritten by the fields of every
 * row of that day (rows of several queries may name the same day; rows of other days are ignored).
 */
export function fillDays<T extends object>(days: readonly string[], rows: Iterable<{ day: string } & Partial<T>>, empty: T): Array<{ date: string } & T> {
  const byDay = new Map<string, Partial<T>>();
  for (const { day, ...values } of rows) byDay.set(day, { ...byDay.get(day), ...(values as Partial<T>) });
  return days.map((date) => ({ date, ...empty, ...byDay.get(date) }));
}
