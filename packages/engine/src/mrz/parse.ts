import type { DocumentFields, MrzReading } from '../types.ts';
import { isIcaoCode, isSpecimenCode, stripCodeFillers } from './codes.ts';
import { correctMrz } from './correct.ts';
import { mrzDateToIso } from './dates.ts';
import { checksFor, detectLayout, type MrzLayout, type Span } from './formats.ts';
import { failedChecks } from './verify.ts';

export interface ParseOptions {
  /** Accept specimen codes (`UTO`) as valid codes: the sandbox only. */
  allowSpecimen: boolean;
  /** Run check-digit correction first (see correct.ts); `corrections` then counts the changes. */
  correct?: boolean;
  /** The date the century rule counts from (defaults to now). */
  now?: Date;
}

const MRZ_LINE = /^[A-Z0-9<]+$/;

/**
 * Parses ICAO 9303 lines (TD1, TD2, TD3, MRV-A, MRV-B, and the French identity card of
 * 1988–2021, reported as TD2) into normalised fields with every check digit verified. Returns
 * null when the lines fit no format or hold characters outside the MRZ alphabet; a reading with
 * failed check digits or invalid codes is still returned, with those flags set.
 */
export function parseMrz(lines: string[], opts: ParseOptions): MrzReading | null {
  const clean = lines.map((l) => l.trim().toUpperCase());
  if (clean.length === 0 || !clean.every((l) => MRZ_LINE.test(l))) return null;
  const layout = detectLayout(clean);
  if (!layout) return null;
  let corrections = 0;
  let final = clean;
  if (opts.correct) {
    const corrected = correctMrz(clean);
    final = corrected.lines;
    corrections = corrected.corrections;
  }
  const text = final.join('');
  const fields = readFields(layout, text, opts.now ?? new Date());
  const failed = failedChecks(layout, text);
  const codes = [fields.issuing_country, fields.nationality].filter((c): c is string => c !== undefined);
  const specimen = codes.some(isSpecimenCode);
  const codesValid = codes.length > 0 && codes.every((c) => isIcaoCode(c) || (opts.allowSpecimen && isSpecimenCode(c)));
  return {
    format: layout.format,
    lines: final,
    fields,
    checkDigitsValid: failed.length === 0,
    failedCheckDigits: failed,
    corrections,
    codesValid,
    specimen,
    // No classifier ran here: the image reader replaces this with its own confidence.
    confidence: 1,
  };
}

const take = (text: string, span: Span) => text.slice(span.start, span.start + span.length);

/** `<` fillers stripped at both ends, inner fillers as spaces. */
const filled = (raw: string) => raw.replace(/^<+|<+$/g, '').replace(/<+/g, ' ');

function readFields(layout: MrzLayout, text: string, now: Date): DocumentFields {
  const fields: DocumentFields = {};
  const set = <K extends keyof DocumentFields>(key: K, value: DocumentFields[K] | '') => {
    if (value !== undefined && value !== '') fields[key] = value as DocumentFields[K];
  };
  set('document_code', take(text, layout.documentCode).replace(/<+$/, ''));
  set('issuing_country', stripCodeFillers(take(text, layout.issuingCountry)));
  const numberCheck = checksFor(layout, text).find((c) => c.name === 'document_number')!;
  set('document_number', numberCheck.over.map((sp) => take(text, sp)).join('').replace(/</g, ''));
  if (layout.givenNames) {
    set('surname', filled(take(text, layout.name)));
    set('given_names', filled(take(text, layout.givenNames)));
  } else {
    const [surname = '', ...given] = take(text, layout.name).split('<<');
    set('surname', filled(surname));
    set('given_names', filled(given.join('<<')));
  }
  // The French card carries no nationality field: the card is only issued to French nationals.
  set('nationality', layout.nationality ? stripCodeFillers(take(text, layout.nationality)) : layout.variant === 'fra_id' ? 'FRA' : undefined);
  set('birth_date', mrzDateToIso(take(text, layout.birthDate), 'birth', now));
  const sex = take(text, layout.sex);
  set('sex', sex === 'M' || sex === 'F' ? sex : sex === '<' || sex === 'X' ? 'X' : undefined);
  if (layout.expiryDate) set('expiry_date', mrzDateToIso(take(text, layout.expiryDate), 'expiry', now));
  const optional = layout.optionalData
    .map((sp) => {
      // A TD1 long document number borrows the start of optional data 1: not optional data then.
      if (layout.format === 'TD1' && sp.start === 15 && text[14] === '<') {
        const end = text.indexOf('<', 15);
        return end < 0 || end > 30 ? '' : take(text, { start: end, length: 30 - end });
      }
      return take(text, sp);
    })
    .map(filled)
    .filter((v) => v !== '');
  set('optional_data', optional.join(' '));
  return fields;
}
