/**
 * Names in the MRZ (ICAO Doc 9303 part 3, section 6): Latin letters only, upper case. Letters with
 * diacritics lose them, except those the recommended transliteration spells out (Ä→AE, Ö→OE,
 * Ü→UE, Å→AA, Æ→AE, Ø→OE, ß→SS, Þ→TH…); hyphens and spaces become `<`; apostrophes and other
 * punctuation are dropped.
 */
const SPELLED: Readonly<Record<string, string>> = {
  Ä: 'AE', Ö: 'OE', Ü: 'UE', Å: 'AA', Æ: 'AE', Ø: 'OE', ß: 'SS', Þ: 'TH', Ð: 'D', Œ: 'OE', Ĳ: 'IJ', Ł: 'L', Đ: 'D', Ħ: 'H', Ŧ: 'T',
};

export function toMrzName(text: string): string {
  let out = '';
  for (const ch of text.toUpperCase()) {
    if (SPELLED[ch]) {
      out += SPELLED[ch];
      continue;
    }
    const base = ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
    if (/^[A-Z]$/.test(base)) out += base;
    else if (ch === ' ' || ch === '-') out += '<';
    // apostrophes, dots and anything else: omitted
  }
  return out.replace(/<+/g, '<').replace(/^<|<$/g, '');
}
