import type { MrzFormat } from '../types.ts';

/**
 * Where each field sits in each MRZ format (ICAO Doc 9303 parts 4 to 7), as spans of the lines
 * joined into one string, so that parsing, correction and composition share one description.
 */

/** A run of characters in the joined lines. */
export interface Span {
  start: number;
  length: number;
}

/** What a position may hold: `alpha` letters and `<`, `numeric` digits and `<`, `alnum` both. */
export type CharKind = 'alpha' | 'numeric' | 'alnum';

export type CheckName = 'document_number' | 'birth_date' | 'expiry_date' | 'optional_data' | 'composite';

/** A check digit at `digit` over the concatenation of `over`. */
export interface CheckSpec {
  name: CheckName;
  over: Span[];
  digit: number;
}

export interface MrzLayout {
  format: MrzFormat;
  /** `fra_id`: the French identity card of 1988–2021 (2×36, not ICAO, reported as TD2). */
  variant: 'icao' | 'fra_id';
  lineCount: number;
  lineLength: number;
  documentCode: Span;
  issuingCountry: Span;
  /** The whole name field (`SURNAME<<GIVEN<NAMES`), or the surname only when `givenNames` is set. */
  name: Span;
  givenNames?: Span;
  documentNumber: Span;
  nationality?: Span;
  birthDate: Span;
  sex: Span;
  expiryDate?: Span;
  optionalData: Span[];
  checks: CheckSpec[];
}

const s = (start: number, length: number): Span => ({ start, length });

function td1(): MrzLayout {
  // Line 1 at 0, line 2 at 30, line 3 at 60.
  return {
    format: 'TD1', variant: 'icao', lineCount: 3, lineLength: 30,
    documentCode: s(0, 2), issuingCountry: s(2, 3), documentNumber: s(5, 9),
    optionalData: [s(15, 15), s(48, 11)],
    birthDate: s(30, 6), sex: s(37, 1), expiryDate: s(38, 6), nationality: s(45, 3),
    name: s(60, 30),
    checks: [
      { name: 'document_number', over: [s(5, 9)], digit: 14 },
      { name: 'birth_date', over: [s(30, 6)], digit: 36 },
      { name: 'expiry_date', over: [s(38, 6)], digit: 44 },
      { name: 'composite', over: [s(5, 25), s(30, 7), s(38, 7), s(48, 11)], digit: 59 },
    ],
  };
}

/** TD2 and MRV-B share the 2×36 layout; TD3 and MRV-A the 2×44 one; visas have no composite. */
function twoLine(format: MrzFormat, length: 36 | 44): MrzLayout {
  const l2 = length;
  const optionalLength = format === 'TD3' ? 14 : format === 'TD2' ? 7 : length - 28;
  const checks: CheckSpec[] = [
    { name: 'document_number', over: [s(l2, 9)], digit: l2 + 9 },
    { name: 'birth_date', over: [s(l2 + 13, 6)], digit: l2 + 19 },
    { name: 'expiry_date', over: [s(l2 + 21, 6)], digit: l2 + 27 },
  ];
  if (format === 'TD3') checks.push({ name: 'optional_data', over: [s(l2 + 28, 14)], digit: l2 + 42 });
  if (format === 'TD2' || format === 'TD3') {
    checks.push({ name: 'composite', over: [s(l2, 10), s(l2 + 13, 7), s(l2 + 21, length - 22)], digit: 2 * length - 1 });
  }
  return {
    format, variant: 'icao', lineCount: 2, lineLength: length,
    documentCode: s(0, 2), issuingCountry: s(2, 3), name: s(5, length - 5),
    documentNumber: s(l2, 9), nationality: s(l2 + 10, 3), birthDate: s(l2 + 13, 6), sex: s(l2 + 20, 1),
    expiryDate: s(l2 + 21, 6), optionalData: [s(l2 + 28, optionalLength)], checks,
  };
}

/** French identity card (2×36): surname and administrative code on line 1, no expiry date. */
function fraId(): MrzLayout {
  const l2 = 36;
  return {
    format: 'TD2', variant: 'fra_id', lineCount: 2, lineLength: 36,
    documentCode: s(0, 2), issuingCountry: s(2, 3), name: s(5, 25), givenNames: s(l2 + 13, 14),
    optionalData: [s(30, 6)], documentNumber: s(l2, 12), birthDate: s(l2 + 27, 6), sex: s(l2 + 34, 1),
    checks: [
      { name: 'document_number', over: [s(l2, 12)], digit: l2 + 12 },
      { name: 'birth_date', over: [s(l2 + 27, 6)], digit: l2 + 33 },
      { name: 'composite', over: [s(0, 36), s(l2, 35)], digit: 71 },
    ],
  };
}

export const LAYOUTS: Record<MrzFormat | 'FRA_ID', MrzLayout> = {
  TD1: td1(),
  TD2: twoLine('TD2', 36),
  TD3: twoLine('TD3', 44),
  MRVA: twoLine('MRVA', 44),
  MRVB: twoLine('MRVB', 36),
  FRA_ID: fraId(),
};

/** The layout the lines' shape and first letter call for, or null when they fit none. */
export function detectLayout(lines: string[]): MrzLayout | null {
  const n = lines.length;
  const len = lines[0]?.length ?? 0;
  if (!lines.every((l) => l.length === len)) return null;
  const visa = lines[0]![0] === 'V';
  if (n === 3 && len === 30) return LAYOUTS.TD1;
  if (n === 2 && len === 44) return visa ? LAYOUTS.MRVA : LAYOUTS.TD3;
  if (n === 2 && len === 36) {
    if (lines[0]!.startsWith('IDFRA')) return LAYOUTS.FRA_ID;
    return visa ? LAYOUTS.MRVB : LAYOUTS.TD2;
  }
  return null;
}

/**
 * The checks of these joined lines. TD1 long document numbers (more than 9 characters): the
 * check digit position holds `<`, the number continues in the optional data up to its first `<`,
 * and the last character before it is the check digit (Doc 9303 part 5, note j).
 */
export function checksFor(layout: MrzLayout, text: string): CheckSpec[] {
  if (layout.format !== 'TD1' || text[14] !== '<') return layout.checks;
  const end = text.indexOf('<', 15);
  const stop = end < 0 || end > 30 ? 30 : end;
  if (stop - 15 < 1) return layout.checks;
  return layout.checks.map((c) =>
    c.name === 'document_number' ? { name: c.name, over: [s(5, 9), s(15, stop - 16)], digit: stop - 1 } : c,
  );
}

/** The kind of character each position of the layout may hold, for field-type corrections. */
export function charKinds(layout: MrzLayout): CharKind[] {
  const kinds: CharKind[] = new Array(layout.lineCount * layout.lineLength).fill('alnum');
  const mark = (span: Span | undefined, kind: CharKind) => {
    if (!span) return;
    for (let i = span.start; i < span.start + span.length; i++) kinds[i] = kind;
  };
  for (const span of [layout.documentCode, layout.issuingCountry, layout.name, layout.givenNames, layout.nationality, layout.sex]) {
    mark(span, 'alpha');
  }
  // The document code's second character is the issuer's choice, digits included (the US
  // passport card is `C1`).
  kinds[layout.documentCode.start + 1] = 'alnum';
  mark(layout.birthDate, 'numeric');
  mark(layout.expiryDate, 'numeric');
  for (const c of layout.checks) kinds[c.digit] = 'numeric';
  return kinds;
}
