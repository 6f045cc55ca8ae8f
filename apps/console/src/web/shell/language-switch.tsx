import { useI18n } from '../i18n/index.tsx';
import { LOCALES, type Locale } from '../i18n/locale.ts';

const NAMES: Record<Locale, string> = { en: 'English', fr: 'Français' };

/** The language of the console, switchable at any time (kept in a cookie, see locale.ts). */
export function LanguageSwitch() {
  const { locale, setLocale, t } = useI18n();
  return (
    <select className="lang" value={locale} onChange={(e) => setLocale(e.target.value as Locale)} aria-label={t('lang.label')}>
      {LOCALES.map((l) => (
        <option key={l} value={l} lang={l}>
          {NAMES[l]}
        </option>
      ))}
    </select>
  );
}
