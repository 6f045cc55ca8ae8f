/**
 * How a date may be printed in a document's visual zone, as regular expressions over OCR text
 * normalised by `normaliseOcrText` (upper case, no accents, separators turned to spaces): day
 * month year with digits (12.08.1974, 12/08/1974), with month names or abbreviations in the
 * languages documents print side by side (12 AUG 1974, 12 AUGUST/AOUT 74, 12 AOUT 1974), year
 * first (1974-08-12), and the US month-first form (08/12/1974).
 */
const MONTHS: string[][] = [
  ['JAN', 'JANUARY', 'JANV', 'JANVIER', 'JANUAR', 'ENE', 'ENERO', 'GEN'],
  ['FEB', 'FEBRUARY', 'FEV', 'FEVR', 'FEVRIER', 'FEBRUAR', 'FEBRERO'],
  ['MAR', 'MARCH', 'MARS', 'MAR', 'MARZ', 'MAERZ', 'MARZO'],
  ['APR', 'APRIL', 'AVR', 'AVRIL', 'ABR', 'ABRIL'],
  ['MAY', 'MAI', 'MAYO', 'MAG'],
  ['JUN', 'JUNE', 'JUIN', 'JUNI', 'JUNIO'],
  ['JUL', 'JULY', 'JUIL', 'JUILLET', 'JULI', 'JULIO'],
  ['AUG', 'AUGUST', 'AOU', 'AOUT', 'AGO', 'AGOSTO'],
  ['SEP', 'SEPT', 'SEPTEMBER', 'SEPTEMBRE', 'SEPTIEMBRE', 'SET'],
  ['OCT', 'OCTOBER', 'OCTOBRE', 'OKT', 'OKTOBER', 'OCTUBRE', 'OTT'],
  ['NOV', 'NOVEMBER', 'NOVEMBRE', 'NOVIEMBRE'],
  ['DEC', 'DECEMBER', 'DECEMBRE', 'DEZ', 'DEZEMBER', 'DIC', 'DICIEMBRE'],
];

/** Upper case, accents removed, every separator (. / - , : ' and MRZ filler) a single space. */
export function normaliseOcrText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .replace(/[^A-Z0-9\n]+/g, ' ')
    .replace(/ +/g, ' ');
}

/** Patterns that match `iso` (YYYY-MM-DD) as printed; the day and month may drop a leading 0. */
function datePatterns(iso: string): RegExp[] {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) return [];
  const [, yyyy, mm, dd] = m as unknown as [string, string, string, string];
  const day = `0?${Number(dd)}`;
  const month = `0?${Number(mm)}`;
  const year = `(?:${yyyy}|${yyyy.slice(2)})`;
  // A zone misread as month 13 (its check digit may still pass) is no date any card prints.
  const months = MONTHS[Number(mm) - 1];
  if (!months) return [];
  const names = months.join('|');
  return [
    new RegExp(`\\b${day} ${month} ${year}\\b`),
    // The first word a month name; up to two more words (its translation, often misread: AQUT).
    new RegExp(`\\b${day} (?:${names})(?: [A-Z]{2,9}){0,2} ${year}\\b`),
    new RegExp(`\\b${yyyy} ${mm} ${dd}\\b`),
    // Month first (US): only with the four-digit year, where it cannot be confused with day-first.
    new RegExp(`\\b${month} ${day} ${yyyy}\\b`),
    // Digits run together when OCR loses the separators (12081974).
    new RegExp(`\\b${dd}${mm}${yyyy}\\b`),
  ];
}

export function findDate(normalisedText: string, iso: string): boolean {
  return datePatterns(iso).some((p) => p.test(normalisedText));
}
