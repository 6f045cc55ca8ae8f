/**
 * Comparison of identities (declared, entered, read from the document) where accent and case
 * differences are no mismatch. MRZ names follow ICAO 9303 (Ü → UE, ß → SS…) and some issuers just
 * drop the accent (Ü → U): both read as the same name.
 */

/** The fields compared between two identities, and how each is compared. */
const COMPARED_FIELDS = {
  surname: 'name',
  given_names: 'name',
  birth_date: 'date',
  nationality: 'code',
} as const;
type ComparedField = keyof typeof COMPARED_FIELDS;

/** Any identity object: declared, entered or read (missing or empty values count as absent). */
export type IdentityValues = Partial<Record<string, unknown>>;

/**
 * ICAO 9303 part 3 (section 6) transliterations of national characters that do not simply lose a
 * diacritic. Upper case only: values are upper-cased first.
 */
const ICAO: Record<string, string> = {
  Ä: 'AE',
  Å: 'AA',
  Æ: 'AE',
  Ö: 'OE',
  Ø: 'OE',
  Ü: 'UE',
  Œ: 'OE',
  Þ: 'TH',
  ẞ: 'SS',
  Ĳ: 'IJ',
  Ð: 'D',
  Đ: 'D',
  Ħ: 'H',
  Ł: 'L',
  Ŀ: 'L',
  Ŋ: 'N',
  Ŧ: 'T',
  // Cyrillic (ICAO 9303 part 3, table of transliteration of Cyrillic characters)
  А: 'A', Б: 'B', В: 'V', Г: 'G', Ґ: 'G', Д: 'D', Е: 'E', Ё: 'E', Є: 'IE', Ж: 'ZH', З: 'Z', И: 'I', І: 'I', Ї: 'I', Й: 'I',
  К: 'K', Л: 'L', М: 'M', Н: 'N', О: 'O', П: 'P', Р: 'R', С: 'S', Т: 'T', У: 'U', Ў: 'U', Ф: 'F', Х: 'KH', Ц: 'TS', Ч: 'CH',
  Ш: 'SH', Щ: 'SHCH', Ъ: 'IE', Ы: 'Y', Ь: '', Э: 'E', Ю: 'IU', Я: 'IA',
  // Greek (ICAO 9303 part 3)
  Α: 'A', Β: 'V', Γ: 'G', Δ: 'D', Ε: 'E', Ζ: 'Z', Η: 'I', Θ: 'TH', Ι: 'I', Κ: 'K', Λ: 'L', Μ: 'M', Ν: 'N', Ξ: 'X', Ο: 'O',
  Π: 'P', Ρ: 'R', Σ: 'S', Τ: 'T', Υ: 'Y', Φ: 'F', Χ: 'CH', Ψ: 'PS', Ω: 'O',
};

/** The same characters when an issuer only drops the diacritic (Ä → A, Ø → O). */
const PLAIN: Record<string, string> = { ...ICAO, Ä: 'A', Å: 'A', Ö: 'O', Ø: 'O', Ü: 'U' };

const COMBINING = /\p{M}+/gu;
/** Separators that are not letters of a name: MRZ filler, hyphens, dots, commas, slashes. */
const SEPARATORS = /[<\-‐‑‒–—―.,/_]+/g;
/** Apostrophes are omitted by ICAO 9303 (O'BRIEN → OBRIEN). */
const APOSTROPHES = /['’ʼ‘`´]/g;

/** Greek digraphs of ELOT 743, which Greek passports follow (ΠΑΠΑΔΟΠΟΥΛΟΣ → PAPADOPOULOS). */
const GREEK_DIGRAPHS: [RegExp, string][] = [
  [/ΟΥ/g, 'OU'],
  [/ΑΥ/g, 'AV'],
  [/ΕΥ/g, 'EV'],
  [/ΓΓ/g, 'NG'],
];
const GREEK = /[\u0370-\u03ff\u1f00-\u1fff]/gu;
const HAS_GREEK = /[\u0370-\u03ff\u1f00-\u1fff]/u;

function transliterate(upper: string, table: Record<string, string>): string {
  let text = upper;
  if (HAS_GREEK.test(text)) {
    text = text.replace(GREEK, (ch) => ch.normalize('NFD').replace(COMBINING, ''));
    for (const [pattern, latin] of GREEK_DIGRAPHS) text = text.replace(pattern, latin);
  }
  let out = '';
  for (const ch of text) {
    const direct = table[ch];
    if (direct !== undefined) {
      out += direct;
      continue;
    }
    // Otherwise the base letter without its diacritics (É → E, Ά → Α → A).
    const base = ch.normalize('NFD').replace(COMBINING, '');
    for (const b of base) out += table[b] ?? b;
  }
  return out;
}

/**
 * The comparison keys of a name: upper case, accents removed, national characters transliterated
 * the ICAO way and the plain way, hyphens, MRZ fillers and apostrophes ignored, and spacing
 * ignored. Two names agree when they share a key. Empty when the name holds no letter.
 */
export function nameKeys(value: string): string[] {
  // `toUpperCase` turns ß into SS and dotless ı into I already.
  const upper = value.normalize('NFC').toUpperCase().replace(APOSTROPHES, '').replace(SEPARATORS, ' ');
  const keys = new Set<string>();
  for (const table of [ICAO, PLAIN]) {
    const key = transliterate(upper, table).replace(/[^A-Z]/g, '');
    if (key) keys.add(key);
  }
  return [...keys].sort();
}

/** The name as an MRZ would hold it (ICAO transliteration, `<` between words), for display in gaps. */
export function mrzName(value: string): string {
  const upper = value.normalize('NFC').toUpperCase().replace(APOSTROPHES, '').replace(SEPARATORS, ' ');
  return transliterate(upper, ICAO)
    .replace(/[^A-Z ]/g, '')
    .trim()
    .replace(/\s+/g, '<');
}

export function namesAgree(a: string, b: string): boolean {
  const left = nameKeys(a);
  if (left.length === 0) return false;
  const right = new Set(nameKeys(b));
  return left.some((k) => right.has(k));
}

/**
 * A calendar date as YYYY-MM-DD, from that form or from the compact YYYYMMDD; null otherwise.
 * (Two-digit MRZ years are resolved by the reader, which knows the document; not here.)
 */
export function normaliseDate(value: string): string | null {
  const v = value.trim();
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(v);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

export function datesAgree(a: string, b: string): boolean {
  const x = normaliseDate(a);
  return x !== null && x === normaliseDate(b);
}

/** ISO 3166 codes: case and surrounding spaces do not matter. */
function codesAgree(a: string, b: string): boolean {
  const x = a.trim().toUpperCase();
  return x !== '' && x === b.trim().toUpperCase();
}

function present(values: IdentityValues | null | undefined, field: string): string | null {
  const v = values?.[field];
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

type GapStatus = 'match' | 'mismatch' | 'missing';

/**
 * One compared field: the two paths compared (never the values), whether they agree, and which
 * side is missing when one is. Fields absent from both sides are not listed.
 */
export interface FieldGap {
  field: ComparedField;
  paths: [string, string];
  status: GapStatus;
  missing: string[];
}

function fieldsAgree(field: ComparedField, a: string, b: string): boolean {
  switch (COMPARED_FIELDS[field]) {
    case 'name':
      return namesAgree(a, b);
    case 'date':
      return datesAgree(a, b);
    case 'code':
      return codesAgree(a, b);
  }
}

/**
 * The gap between two identities, for example `declared` against `document`: for each compared
 * field present on at least one side, match, mismatch or missing. `leftName` and `rightName`
 * prefix the paths (`declared.surname`, `document.surname`).
 */
export function identityGap(
  left: { name: string; values: IdentityValues | null | undefined },
  right: { name: string; values: IdentityValues | null | undefined },
): FieldGap[] {
  const gaps: FieldGap[] = [];
  for (const field of Object.keys(COMPARED_FIELDS) as ComparedField[]) {
    const a = present(left.values, field);
    const b = present(right.values, field);
    if (a === null && b === null) continue;
    const paths: [string, string] = [`${left.name}.${field}`, `${right.name}.${field}`];
    if (a === null || b === null) {
      gaps.push({ field, paths, status: 'missing', missing: [a === null ? paths[0] : paths[1]] });
      continue;
    }
    gaps.push({ field, paths, status: fieldsAgree(field, a, b) ? 'match' : 'mismatch', missing: [] });
  }
  return gaps;
}

/** True when a compared field disagrees (the step report's `subject_mismatch`). */
export function hasMismatch(gaps: readonly FieldGap[]): boolean {
  return gaps.some((g) => g.status === 'mismatch');
}

/** Paths of the fields an identity holds (`declared.surname`…), sorted: what a masked response shows. */
export function identityPaths(name: string, values: IdentityValues | null | undefined): string[] {
  if (!values) return [];
  return Object.keys(values)
    .filter((k) => present(values, k) !== null)
    .map((k) => `${name}.${k}`)
    .sort();
}
