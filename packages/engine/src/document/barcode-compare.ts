import { namesAgree, type CheckReason, type CheckReport } from '@idv/domain';
import type { DocumentFields } from '../types.ts';

/**
 * The barcode check: the fields a barcode carries against the same fields read elsewhere on the
 * document (the MRZ, or the printed zone). Only fields present on both sides are compared; the
 * report counts them and never holds a value.
 */
const COMPARED = ['surname', 'given_names', 'birth_date', 'expiry_date', 'document_number', 'sex'] as const;
type Compared = (typeof COMPARED)[number];

/** Document numbers compared without fillers, spaces and hyphens (an MRZ pads with `<`). */
function plainNumber(v: string): string {
  return v.toUpperCase().replace(/[<\s-]/g, '');
}

function fieldAgrees(field: Compared, a: string, b: string): boolean {
  switch (field) {
    case 'surname':
    case 'given_names':
      return namesAgree(a, b);
    case 'document_number':
      return plainNumber(a) === plainNumber(b);
    default:
      return a.trim().toUpperCase() === b.trim().toUpperCase();
  }
}

/** The fields on which the two readings disagree (names of fields, never values). */
function differingFields(a: DocumentFields, b: DocumentFields): { compared: Compared[]; differing: Compared[] } {
  const compared: Compared[] = [];
  const differing: Compared[] = [];
  for (const f of COMPARED) {
    const x = a[f];
    const y = b[f];
    if (!x || !y) continue;
    compared.push(f);
    if (!fieldAgrees(f, x, y)) differing.push(f);
  }
  return { compared, differing };
}

/**
 * `source` says what the other fields come from: a difference with the MRZ (both machine-read)
 * fails; with the OCR'd printed zone it needs attention, as OCR misreads are common.
 */
export function compareBarcode(barcodeFields: DocumentFields, otherFields: DocumentFields, source: 'mrz' | 'printed_zone' = 'mrz'): CheckReport {
  const { compared, differing } = differingFields(barcodeFields, otherFields);
  // Nothing in common to compare is no agreement: the barcode was decoded, and that is all it says.
  if (compared.length === 0) return barcodePresenceReport(1, false);
  const reasons: CheckReason[] = differing.length ? ['barcode_differs'] : [];
  const measures: Record<string, number> = { fields_compared: compared.length, fields_differing: differing.length };
  for (const f of COMPARED) if (compared.includes(f)) measures[`${f}_agrees`] = differing.includes(f) ? 0 : 1;
  const status = differing.length === 0 ? 'ok' : source === 'mrz' ? 'failed' : 'attention';
  return { type: 'barcode', status, reasons, measures };
}

/**
 * The barcode check without a comparison partner: `expected` when the document type carries a
 * barcode (an AAMVA licence). A barcode seen but not decoded needs attention (the person retakes
 * the photo); a missing one too, where one is expected.
 */
export function barcodePresenceReport(found: number, expected: boolean, undecodable = 0): CheckReport {
  const measures = { barcodes_found: found, barcodes_undecodable: undecodable };
  if (found === 0 && undecodable > 0) return { type: 'barcode', status: 'attention', reasons: ['barcode_unreadable'], measures };
  const missing = expected && found === 0;
  return { type: 'barcode', status: missing ? 'attention' : 'ok', reasons: missing ? ['barcode_not_found'] : [], measures };
}
