/**
 * The service's claim names (WalletClaim) onto each credential's own: the EUDI PID rulebook's
 * SD-JWT VC and mdoc names, and ISO/IEC 18013-5's mDL. Paths are DCQL claim paths.
 */
import type { WalletClaim } from './types.ts';

export const PID_VCT = 'urn:eudi:pid:1';
/** The PID's SD-JWT VC types accepted: the rulebook's and its per-country extensions (urn:eudi:pid:de:1 ...). */
export const isPidVct = (vct: unknown): vct is string => typeof vct === 'string' && /^urn:eudi:pid:([a-z]{2}:)?1$/.test(vct);
export const PID_DOCTYPE = 'eu.europa.ec.eudi.pid.1';
export const MDL_DOCTYPE = 'org.iso.18013.5.1.mDL';
export const MDL_NAMESPACE = 'org.iso.18013.5.1';

/** SD-JWT VC PID: the path of each claim (age_over_18 sits in age_equal_or_over). */
export const SD_JWT_PATHS: Record<WalletClaim, string[]> = {
  given_names: ['given_name'],
  surname: ['family_name'],
  birth_date: ['birthdate'],
  nationality: ['nationalities'],
  issuing_country: ['issuing_country'],
  document_number: ['document_number'],
  expiry_date: ['date_of_expiry'],
  portrait: ['picture'],
  age_over_18: ['age_equal_or_over', '18'],
};

/** mdoc data element identifiers, the same in the PID's and the mDL's namespace. */
export const MDOC_ELEMENTS: Record<WalletClaim, string> = {
  given_names: 'given_name',
  surname: 'family_name',
  birth_date: 'birth_date',
  nationality: 'nationality',
  issuing_country: 'issuing_country',
  document_number: 'document_number',
  expiry_date: 'expiry_date',
  portrait: 'portrait',
  age_over_18: 'age_over_18',
};

export const MDOC_DOCTYPES = [
  { id: 'pid_mdoc', docType: PID_DOCTYPE, namespace: PID_DOCTYPE },
  { id: 'mdl', docType: MDL_DOCTYPE, namespace: MDL_NAMESPACE },
] as const;
export const SD_JWT_QUERY_ID = 'pid_sd_jwt';

/** Claims of the SD-JWT VC that are never personal (the credential's own metadata): not counted as disclosed. */
export const SD_JWT_TECHNICAL = new Set(['iss', 'iat', 'nbf', 'exp', 'vct', 'vct#integrity', 'cnf', 'status', 'sub', '_sd_alg', 'jti']);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A date as yyyy-mm-dd, from a string, a Date or a CBOR full-date; null when it is none. */
export function isoDate(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString().slice(0, 10);
  const text = typeof value === 'string' ? value : value && typeof value === 'object' && 'toString' in value ? String(value) : '';
  const head = text.slice(0, 10);
  return ISO_DATE.test(head) ? head : null;
}

/** A country as ISO alpha-2 upper case; the first of a list (PID nationalities). */
export function country(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && /^[A-Za-z]{2}$/.test(first) ? first.toUpperCase() : null;
}
