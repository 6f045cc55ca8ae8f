import type { Messages } from './en.ts';

/**
 * The pseudo-locale `en-XA` (see i18n.ts: for layout tests only, never a session's language):
 * every English text with its letters accented and its vowels doubled, which makes each word
 * about 40% longer (as German or Polish words are) and keeps it one unbreakable word, inside
 * brackets that show where a text was cut. Placeholders such as {n} are kept as they are.
 */
const ACCENTED: Record<string, string> = Object.fromEntries(
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((c, i) => [c, [...'åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ'][i]]),
);

export function pseudoText(text: string): string {
  const body = text
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? part : [...part].map((c) => (/[aeiouAEIOU]/.test(c) ? ACCENTED[c].repeat(2) : (ACCENTED[c] ?? c))).join('')))
    .join('');
  return `⟦${body}⟧`;
}

/** The English messages made pseudo (given, not imported: English stays one chunk of its own, loaded alone by an English journey). */
export const pseudoMessages = (en: Messages): Messages => Object.fromEntries(Object.entries(en).map(([key, text]) => [key, pseudoText(text)])) as Messages;
