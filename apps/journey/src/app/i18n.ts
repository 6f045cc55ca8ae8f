import type { MessageKey, Messages } from './messages/en.ts';

export const LOCALES = ['en', 'fr', 'de', 'es'] as const;
export type Locale = (typeof LOCALES)[number];

let messages: Messages | null = null;
let current: Locale = 'en';

export function pickLocale(wanted: string | undefined): Locale {
  const lang = (wanted ?? '').slice(0, 2).toLowerCase();
  return (LOCALES as readonly string[]).includes(lang) ? (lang as Locale) : 'en';
}

/** Loads one message file (a separate chunk per language: only the session's language is downloaded). */
export async function loadMessages(locale: Locale): Promise<void> {
  switch (locale) {
    case 'fr':
      messages = (await import('./messages/fr.ts')).default;
      break;
    case 'de':
      messages = (await import('./messages/de.ts')).default;
      break;
    case 'es':
      messages = (await import('./messages/es.ts')).default;
      break;
    default:
      messages = (await import('./messages/en.ts')).default;
  }
  current = locale;
  document.documentElement.lang = locale;
  document.title = messages.app_title;
}

export const locale = () => current;

export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  if (!messages) throw new Error('messages not loaded');
  return messages[key].replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? `{${name}}`));
}

/** Country names from the browser's own locale data (Intl), not from a list shipped here. */
export function countryName(code: string): string {
  try {
    return new Intl.DisplayNames([current], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}
