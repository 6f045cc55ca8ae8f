import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { en, type MessageKey, type Messages } from './en.ts';
import { fr } from './fr.ts';
import { initialLocale, intlTag, rememberLocale, type Locale } from './locale.ts';

const MESSAGES: Record<Locale, Messages> = { en, fr };

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

interface I18n {
  locale: Locale;
  setLocale(locale: Locale): void;
  t: Translate;
  /** Dates and times in the operator's language and time zone. */
  dateTime(iso: string): string;
}

const I18nContext = createContext<I18n | null>(null);

export function I18nProvider({ children }: { children: ReactNode }) {
  const [locale, setLocaleState] = useState<Locale>(initialLocale);
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);
  const setLocale = useCallback((l: Locale) => {
    rememberLocale(l);
    setLocaleState(l);
  }, []);
  const value = useMemo<I18n>(() => {
    const messages = MESSAGES[locale];
    const format = new Intl.DateTimeFormat(intlTag(locale), { dateStyle: 'medium', timeStyle: 'short' });
    return {
      locale,
      setLocale,
      t: (key, vars) => messages[key].replace(/\{(\w+)\}/g, (_, name: string) => String(vars?.[name] ?? `{${name}}`)),
      dateTime: (iso) => format.format(new Date(iso)),
    };
  }, [locale, setLocale]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}
