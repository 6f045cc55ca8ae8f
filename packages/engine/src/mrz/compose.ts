import type { DocumentFields, MrzFormat } from '../types.ts';
import { checkDigit } from './check-digit.ts';
import { isoToMrzDate } from './dates.ts';
import { LAYOUTS, type Span } from './formats.ts';
import { toMrzName } from './transliterate.ts';

/**
 * Builds the MRZ lines of a document from its fields, check digits and composite included: for the
 * document generator and tests. Names are transliterated (transliterate.ts) and truncated to the
 * name field (given names first, as Doc 9303 allows). Document numbers longer than 9 characters
 * are supported in TD1 only (continued in optional data); elsewhere they are refused.
 */
export function composeMrz(format: MrzFormat, fields: DocumentFields): string[] {
  const layout = LAYOUTS[format];
  const n = layout.lineLength;
  const chars: string[] = new Array(layout.lineCount * n).fill('<');
  const put = (span: Span, value: string) => {
    if (value.length > span.length) throw new Error(`field too long for ${format}`);
    for (let i = 0; i < value.length; i++) chars[span.start + i] = value[i]!;
  };
  const defaultCode = format === 'TD3' ? 'P' : format === 'MRVA' || format === 'MRVB' ? 'V' : 'I';
  put(layout.documentCode, mrzText(fields.document_code ?? defaultCode));
  put(layout.issuingCountry, mrzText(required(fields.issuing_country, 'issuing_country')));
  put(layout.name, nameField(fields.surname ?? '', fields.given_names ?? '', layout.name.length));
  const number = mrzText(required(fields.document_number, 'document_number'));
  const optional = mrzText(fields.optional_data ?? '');
  const longNumber = format === 'TD1' && number.length > 9;
  if (longNumber) {
    // Long number: the first 9 characters, `<` in the check position, the rest then its check digit in optional data 1.
    put(layout.documentNumber, number.slice(0, 9));
    chars[14] = '<';
    put({ start: 15, length: 15 }, number.slice(9) + String(checkDigit(number)) + '<' + optional);
  } else {
    put(layout.documentNumber, number);
    put(layout.optionalData[0]!, optional);
  }
  if (layout.nationality) put(layout.nationality, mrzText(required(fields.nationality, 'nationality')));
  put(layout.birthDate, isoToMrzDate(required(fields.birth_date, 'birth_date')));
  put(layout.sex, fields.sex === 'X' || !fields.sex ? '<' : fields.sex);
  if (layout.expiryDate) put(layout.expiryDate, isoToMrzDate(required(fields.expiry_date, 'expiry_date')));
  // Own check digits first (the composite covers them), the composite last.
  const checks = layout.checks.filter((c) => c.name !== 'composite').concat(layout.checks.filter((c) => c.name === 'composite'));
  for (const c of checks) {
    if (c.name === 'document_number' && longNumber) continue;
    const covered = c.over.map((sp) => chars.slice(sp.start, sp.start + sp.length).join('')).join('');
    chars[c.digit] = String(checkDigit(covered));
  }
  const text = chars.join('');
  return Array.from({ length: layout.lineCount }, (_, i) => text.slice(i * n, (i + 1) * n));
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new Error(`${name} is required to compose an MRZ`);
  return value;
}

/** Upper case, spaces and hyphens as fillers, nothing outside the MRZ alphabet. */
function mrzText(value: string): string {
  return value.toUpperCase().replace(/[\s-]/g, '<').replace(/[^A-Z0-9<]/g, '');
}

/** `SURNAME<<GIVEN<NAMES`, truncated to the field: given names first, then the surname. */
function nameField(surname: string, given: string, length: number): string {
  const sur = toMrzName(surname);
  let giv = toMrzName(given);
  if (!giv) return sur.slice(0, length);
  const room = length - sur.length - 2;
  if (room <= 0) return sur.slice(0, length);
  if (giv.length > room) giv = giv.slice(0, room).replace(/<$/, '');
  return `${sur}<<${giv}`;
}
