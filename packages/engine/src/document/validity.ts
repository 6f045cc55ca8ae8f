import { acceptedDocumentTypes, type CheckReason, type CheckReport, type DocumentType, type FlowDefinition } from '@idv/domain';
import type { DocumentFields } from '../types.ts';
import { issuingAlpha2 } from './issuing-country.ts';

/**
 * Validity of the document read, as a pure function of its fields, the person's choice, the
 * flow and the day: expiry, a plausible birth date, the flow's minimum age, and whether the flow
 * accepts this type of document from this issuer. Measures are flags and the flow's own numbers,
 * never an age or a date (the report is stored and shown without unmasking).
 */

/** The oldest age accepted as plausible. */
const MAX_PLAUSIBLE_AGE = 130;
/** ICAO's fictitious state on specimen documents: accepted as the chosen country in the sandbox only. */
const SPECIMEN_ISSUER = 'UTO';

export interface ValidityInput {
  fields: DocumentFields;
  /** What the person chose in the journey: country (ISO alpha-2) and document type. */
  chosen: { country: string; type: DocumentType };
  flow: FlowDefinition;
  today: Date;
  sandbox: boolean;
}

/** Document types a document code can stand for (ICAO 9303 first letter; AAMVA `DL`/`ID`). */
export function typesForDocumentCode(code: string | undefined): readonly DocumentType[] | null {
  if (!code) return null;
  const c = code.replace(/<+$/, '').toUpperCase();
  if (c === 'DL') return ['driving_licence'];
  switch (c[0]) {
    case 'P':
      return ['passport'];
    case 'V':
      return ['visa'];
    // I, A and C are identity-type cards: national ID cards and residence permits share them.
    case 'I':
    case 'A':
    case 'C':
      return ['id_card', 'residence_permit'];
    default:
      return null;
  }
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Whole years from `birth` to `today` (both `YYYY-MM-DD`), birthdays counted on the day. */
export function ageInYears(birth: string, today: string): number {
  const b = ISO_DATE.exec(birth)!;
  const t = ISO_DATE.exec(today)!;
  let age = Number(t[1]) - Number(b[1]);
  if (t[2]! + t[3]! < b[2]! + b[3]!) age -= 1;
  return age;
}

function isCalendarDate(value: string | undefined): value is string {
  const m = value ? ISO_DATE.exec(value) : null;
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return utcDay(d) === value;
}

export function checkValidity(input: ValidityInput): CheckReport {
  const { fields, chosen, flow, sandbox } = input;
  const today = utcDay(input.today);
  const failed: CheckReason[] = [];
  const attention: CheckReason[] = [];
  const measures: Record<string, number> = {
    expiry_present: fields.expiry_date ? 1 : 0,
    birth_date_present: fields.birth_date ? 1 : 0,
    minimum_age: flow.checks.min_age,
  };

  if (fields.expiry_date) {
    // An unreadable expiry is not a date in the future: treat it as expired rather than valid.
    if (!isCalendarDate(fields.expiry_date) || fields.expiry_date < today) failed.push('document_expired');
  }

  if (fields.birth_date) {
    if (!isCalendarDate(fields.birth_date) || fields.birth_date > today || ageInYears(fields.birth_date, today) > MAX_PLAUSIBLE_AGE) {
      failed.push('birth_date_implausible');
    } else if (ageInYears(fields.birth_date, today) < flow.checks.min_age) {
      failed.push('under_minimum_age');
    }
  }

  // The issuer read on the document decides acceptance; the chosen country stands in only when
  // the document names none (or, in the sandbox, for the specimen state).
  const issuer = fields.issuing_country?.replace(/<+$/, '').toUpperCase();
  let country: string | null;
  if (!issuer) country = chosen.country;
  else if (issuer === SPECIMEN_ISSUER) country = sandbox ? chosen.country : null;
  else country = issuingAlpha2(issuer) ?? '*';
  measures.issuer_is_chosen_country = country === chosen.country ? 1 : 0;

  const readTypes = typesForDocumentCode(fields.document_code);
  // The type the document is: the chosen one when the code allows it (I is both id_card and
  // residence_permit), else the code's first type.
  const type = readTypes === null || readTypes.includes(chosen.type) ? chosen.type : readTypes[0]!;
  if (readTypes !== null && !readTypes.includes(chosen.type)) attention.push('document_type_differs');
  if (country === null || !acceptedDocumentTypes(flow, country).includes(type)) failed.push('document_not_accepted');

  const reasons = [...failed, ...attention];
  return { type: 'document_validity', status: failed.length ? 'failed' : attention.length ? 'attention' : 'ok', reasons, measures };
}
