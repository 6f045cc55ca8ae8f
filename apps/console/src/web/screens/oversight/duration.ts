import type { Translate } from '../../i18n/index.tsx';
import { intlTag } from '../../i18n/locale.ts';

/** A duration in seconds in plain words: minutes under two hours, hours beyond. */
export function duration(t: Translate, locale: string, seconds: number | null): string {
  if (seconds === null) return '—';
  return seconds < 7200 ? t('metrics.minutes', { n: Math.round(seconds / 60) }) : t('metrics.hours', { n: tenths(locale, seconds / 3600) });
}

/** A figure rounded to tenths, in the operator's language (3.5, 3,5). */
export function tenths(locale: string, n: number): string {
  return (Math.round(n * 10) / 10).toLocaleString(intlTag(locale));
}
