import { parse as parseLicense } from 'aamva-parser';
import type { DocumentFields } from '../types.ts';

/**
 * AAMVA driver-licence and ID-card payloads (the PDF417 on the back of US and Canadian cards)
 * mapped to the engine's DocumentFields. The `aamva-parser` package reads names, the licence
 * number and the country; dates and sex are read here from their data elements, strictly,
 * because the package reads every date as MMDDCCYY (Canada writes CCYYMMDD) and lets `Date`
 * roll impossible dates over (13/45/1990 becomes a day of 1991).
 */

/** The compliance indicator and file type that open every AAMVA payload (`@` LF RS CR `ANSI `). */
const HEADER = /@[\s\S]{0,3}?(ANSI |AAMVA)(\d{6})(\d{2})?(\d{2})?(\d{2})?/;

function isAamva(text: string): boolean {
  return HEADER.test(text.slice(0, 40));
}

/** The value of one data element (`DBB`…) at the start of a line of the subfile. */
function element(text: string, id: string): string | null {
  const m = new RegExp(`(?:^|[\\n\\r\\x1e]|DL|ID)${id}([^\\n\\r\\x1e]*)`, 'm').exec(text);
  const v = m?.[1]?.trim();
  return v ? v : null;
}

function validIso(y: number, m: number, d: number): string | null {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

/** An AAMVA date: MMDDCCYY in the USA, CCYYMMDD in Canada; null when not a calendar date. */
export function aamvaDate(value: string | null, canadian: boolean): string | null {
  if (!value || !/^\d{8}$/.test(value)) return null;
  const n = (a: number, b: number) => Number(value.slice(a, b));
  const us = validIso(n(4, 8), n(0, 2), n(2, 4));
  const ca = validIso(n(0, 4), n(4, 6), n(6, 8));
  // The country decides; the other order is a fallback for issuers that write the other form.
  return canadian ? (ca ?? us) : (us ?? ca);
}

/** The subfile type of the first subfile: `DL` (driving licence) or `ID` (identification card). */
function subfileType(text: string): 'DL' | 'ID' | null {
  const m = /ANSI \d{6}\d{2}(?:\d{2})?\d{2}(DL|ID)/.exec(text) ?? /\n(DL|ID)DAQ|(?:^|[\n\r])(DL|ID)D[A-Z]{2}/.exec(text);
  const t = m?.[1] ?? m?.[2];
  return t === 'DL' || t === 'ID' ? t : null;
}

/** Fields of an AAMVA payload, or null when the text is not one. Names are upper case as printed. */
export function parseAamva(text: string): DocumentFields | null {
  if (!isAamva(text)) return null;
  const parsed = parseLicense(text);
  const country = (element(text, 'DCG') ?? '').toUpperCase();
  const iin = HEADER.exec(text)?.[2] ?? '';
  // Canadian issuer identification numbers start 604 or 636 0xx…; the DCG element is the clear
  // signal, the IIN only a fallback for payloads that omit it.
  const canadian = country === 'CAN' || (!country && /^(604|63601[2-9]|63602[0-9])/.test(iin));
  const fields: DocumentFields = {};
  const type = subfileType(text);
  if (type) fields.document_code = type;
  fields.issuing_country = canadian ? 'CAN' : country === 'USA' || !country ? 'USA' : country;
  const number = element(text, 'DAQ') ?? parsed.driversLicenseId ?? null;
  if (number) fields.document_number = number.toUpperCase();
  const surname = element(text, 'DCS') ?? parsed.lastName ?? null;
  if (surname) fields.surname = surname.toUpperCase();
  // Version 1 payloads hold "FIRST,MIDDLE" in DCT; later ones DAC and DAD.
  const first = element(text, 'DAC') ?? element(text, 'DCT')?.replace(/,/g, ' ') ?? parsed.firstName ?? null;
  const middle = element(text, 'DAD');
  const given = [first, middle && middle !== 'NONE' ? middle : null].filter(Boolean).join(' ').trim();
  if (given) fields.given_names = given.toUpperCase();
  const birth = aamvaDate(element(text, 'DBB'), canadian);
  if (birth) fields.birth_date = birth;
  const expiry = aamvaDate(element(text, 'DBA'), canadian);
  if (expiry) fields.expiry_date = expiry;
  const sex = element(text, 'DBC');
  if (sex === '1' || sex === 'M') fields.sex = 'M';
  else if (sex === '2' || sex === 'F') fields.sex = 'F';
  else if (sex === '9' || sex === 'X') fields.sex = 'X';
  return fields;
}
