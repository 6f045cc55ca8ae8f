import type { Translate } from '../../i18n/index.tsx';

/** A duration in seconds in plain words: minutes under two hours, hours beyond. */
export function duration(t: Translate, locale: string, seconds: number | null): string {
  if (seconds === null) return '—';
  return seconds < 7200 ? t('metrics.minutes', { n: Math.round(seconds / 60) }) : t('metrics.hours', { n: (Math.round((seconds / 3600) * 10) / 10).toLocaleString(locale === 'fr' ? 'fr-FR' : 'en-GB') });
}
