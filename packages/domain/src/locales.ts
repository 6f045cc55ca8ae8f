/**
 * The languages the person's side speaks, read by the journey, the default questionnaire, the API's
 * `locale` and the console. It imports nothing, so the journey's bundle takes it alone
 * (`@idv/domain/locales`). A language with a region (`de-CH`) uses the language; an unknown one, English.
 */
export const LOCALES = ['en', 'fr', 'de', 'es', 'it', 'pt', 'nl', 'pl', 'ro', 'tr', 'ar', 'zh'] as const;
export type Locale = (typeof LOCALES)[number];

const DEFAULT_LOCALE: Locale = 'en';

/** Written right to left: the journey sets `dir="rtl"` and its layout mirrors. */
const RTL_LOCALES: readonly Locale[] = ['ar'];

/**
 * The BCP 47 tag of each language where the bare code says less than the texts are: `pt` is
 * written for Portugal, `zh` is Simplified Chinese. Used for `lang` (fonts, hyphenation, screen
 * readers) and for `Intl` (dates, numbers, country names).
 */
const TAGS: Partial<Record<Locale, string>> = { pt: 'pt-PT', zh: 'zh-Hans' };

const isLocale = (value: string): value is Locale => (LOCALES as readonly string[]).includes(value);

/** The language of a session's `locale` (`de-CH` → `de`), English when the service does not speak it. */
export function resolveLocale(wanted: string | null | undefined): Locale {
  const language = (wanted ?? '').split('-')[0].toLowerCase();
  return isLocale(language) ? language : DEFAULT_LOCALE;
}

export const localeTag = (locale: Locale): string => TAGS[locale] ?? locale;

export const localeDirection = (locale: Locale): 'rtl' | 'ltr' => (RTL_LOCALES.includes(locale) ? 'rtl' : 'ltr');

/** For API descriptions and docs: `en, fr, …, ar, zh`. */
export const LOCALE_LIST = LOCALES.join(', ');
