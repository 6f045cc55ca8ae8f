import { intlTag, type Locale } from './locale.ts';

const UNITS: [unit: Intl.RelativeTimeFormatUnit, ms: number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/**
 * How old a case is, in the largest whole unit ("3 days", "5 hours", "12 minutes"; under a minute,
 * "now"), in the operator's language: what a reviewer weighs at a glance, the exact instant is in
 * the element's title.
 */
export function caseAge(createdAt: string, now: number, locale: Locale): string {
  const elapsed = Math.max(0, now - Date.parse(createdAt));
  const tag = intlTag(locale);
  for (const [unit, ms] of UNITS) {
    if (elapsed >= ms) return new Intl.NumberFormat(tag, { style: 'unit', unit, unitDisplay: 'long' }).format(Math.floor(elapsed / ms));
  }
  return new Intl.RelativeTimeFormat(tag, { numeric: 'auto' }).format(0, 'second');
}
