import { localeDirection, localeTag, resolveLocale, type Locale } from '@idv/domain/locales';
import type { MessageKey, Messages } from './messages/en.ts';

export type { Locale };

/**
 * One loader per language of @idv/domain's LOCALES (the Record makes the compiler ask for each):
 * every message file is a chunk of its own, and only the person's language is downloaded.
 */
const LOADERS: Record<Locale, () => Promise<{ default: Messages }>> = {
  en: () => import('./messages/en.ts'),
  fr: () => import('./messages/fr.ts'),
  de: () => import('./messages/de.ts'),
  es: () => import('./messages/es.ts'),
  it: () => import('./messages/it.ts'),
  pt: () => import('./messages/pt.ts'),
  nl: () => import('./messages/nl.ts'),
  pl: () => import('./messages/pl.ts'),
  ro: () => import('./messages/ro.ts'),
  tr: () => import('./messages/tr.ts'),
  ar: () => import('./messages/ar.ts'),
  zh: () => import('./messages/zh.ts'),
};

/**
 * The pseudo-locale: English made longer and accented, for layout tests (nothing may overflow a
 * narrow phone in any language). Only where the journey server says so (JOURNEY_PSEUDO_LOCALE,
 * refused in production) and the link asks for it (`/?locale=en-XA#<token>`); it is never a
 * session's language.
 */
const PSEUDO_LOCALE = 'en-XA';
const pseudoWanted = () =>
  document.documentElement.dataset.pseudoLocale === 'on' && new URLSearchParams(location.search).get('locale') === PSEUDO_LOCALE;

let messages: Messages | null = null;
/** The BCP 47 tag of the texts shown, for `lang` and every `Intl` formatter. */
let tag = 'en';
/** How the flow's own texts (the questionnaire, sent by the service in the session's language) are shown. */
let flowTextOf = (text: string) => text;

export const pickLocale = (wanted: string | undefined): Locale => resolveLocale(wanted);

/** Loads the texts of one language and sets the page's `lang` and direction (`rtl` mirrors the layout). */
export async function loadMessages(locale: Locale): Promise<void> {
  let direction = localeDirection(locale);
  if (pseudoWanted()) {
    const [pseudo, en] = await Promise.all([import('./messages/pseudo.ts'), LOADERS.en()]);
    messages = pseudo.pseudoMessages(en.default);
    flowTextOf = pseudo.pseudoText;
    tag = PSEUDO_LOCALE;
    direction = 'ltr';
  } else {
    messages = (await LOADERS[locale]()).default;
    tag = localeTag(locale);
  }
  document.documentElement.lang = tag;
  document.documentElement.dir = direction;
  document.title = messages.app_title;
}

export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  if (!messages) throw new Error('messages not loaded');
  return messages[key].replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = vars[name];
    // Numbers in the person's digits (Arabic-Indic in Arabic, for one).
    return value === undefined ? `{${name}}` : typeof value === 'number' ? new Intl.NumberFormat(tag).format(value) : value;
  });
}

export const flowText = (text: string) => flowTextOf(text);

/** Country names from the browser's own locale data (Intl), not from a list shipped here. */
export function countryName(code: string): string {
  try {
    return new Intl.DisplayNames([tag], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** Sorts names as the person's language does (pinyin order in Chinese, for one). */
export const compareNames = (a: string, b: string) => a.localeCompare(b, tag);

/** A moment, in the person's language and calendar conventions. */
export const dateTime = (iso: string) => new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
