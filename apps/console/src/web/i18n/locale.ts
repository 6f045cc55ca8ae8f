/**
 * The console's language: English or French, from a cookie when the operator chose one, else from
 * the browser's languages. The choice is kept in a cookie (not personal data, and never in
 * localStorage, sessionStorage or IndexedDB, which the console does not use at all).
 */
export const LOCALES = ['en', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

/** The language tag Intl formats a locale's dates and numbers with (British English: day before month). */
export const intlTag = (locale: string): string => (locale === 'fr' ? 'fr-FR' : 'en-GB');

const COOKIE = 'console_lang';

export function initialLocale(): Locale {
  const chosen = document.cookie.split('; ').find((c) => c.startsWith(`${COOKIE}=`))?.slice(COOKIE.length + 1);
  if (chosen === 'en' || chosen === 'fr') return chosen;
  for (const lang of navigator.languages ?? [navigator.language]) {
    const base = lang.slice(0, 2).toLowerCase();
    if (base === 'fr' || base === 'en') return base;
  }
  return 'en';
}

export function rememberLocale(locale: Locale): void {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${COOKIE}=${locale}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
}
