import { hasMismatch, identityGap, type CheckReason, type CheckReport, type FlowDefinition, type IdentityValues } from '@idv/domain';
import { issuingAlpha2 } from './document/issuing-country.ts';
import type { DocumentFields } from './types.ts';

/**
 * The checks of a case that need no image: what was declared and entered against what the
 * document says, and the questionnaire's score against the flow. Pure functions; the reports
 * carry counts, never values.
 */

/**
 * The identity read from the document, in the shape the personal-data routes show (`read.*`):
 * names as printed in the zone, dates ISO, nationality and issuing country as ISO alpha-2 where
 * the ICAO code names a state (kept as read otherwise, e.g. UTO on specimens).
 */
export interface ReadIdentity {
  surname?: string;
  given_names?: string;
  birth_date?: string;
  document_number?: string;
  nationality?: string;
  sex?: 'M' | 'F' | 'X';
  document_expiry_date?: string;
  issuing_country?: string;
  document_code?: string;
}

export function readIdentity(fields: DocumentFields): ReadIdentity {
  const code = (c: string | undefined) => (c ? (issuingAlpha2(c) ?? c.replace(/<+$/, '')) : undefined);
  const read: ReadIdentity = {
    surname: fields.surname,
    given_names: fields.given_names,
    birth_date: fields.birth_date,
    document_number: fields.document_number,
    nationality: code(fields.nationality),
    sex: fields.sex,
    document_expiry_date: fields.expiry_date,
    issuing_country: code(fields.issuing_country),
    document_code: fields.document_code,
  };
  for (const k of Object.keys(read) as (keyof ReadIdentity)[]) if (read[k] === undefined || read[k] === '') delete read[k];
  return read;
}

/**
 * Declared (by the client) and entered (by the person) identities against the document, with the
 * domain's normalisation (accents, case, hyphens, ICAO transliteration). A disagreement is
 * `subject_mismatch` and needs attention (a person decides: typing slips and name forms are
 * common); a field given on one side but absent on the document is `subject_missing`, and so is
 * every field given when the document could not be read: nothing compared is not a pass. With
 * nothing given on either side the check does not apply (null), as the questionnaire's without one.
 */
export function compareData(declared: IdentityValues | null, entered: IdentityValues | null, read: ReadIdentity | null): CheckReport | null {
  const measures = { fields_compared: 0, fields_mismatched: 0, fields_missing: 0, document_read: read ? 1 : 0 };
  const reasons = new Set<CheckReason>();
  for (const [name, values] of [['declared', declared], ['entered', entered]] as const) {
    if (!values) continue;
    const gaps = identityGap({ name, values }, { name: 'document', values: (read ?? {}) as IdentityValues });
    for (const g of gaps) {
      // Only what this side gave is compared: a field the client did not declare is no gap.
      if (g.status === 'missing' && g.missing[0] === g.paths[0]) continue;
      // Without a reading, each field given is missing on the document and none is compared.
      if (read) measures.fields_compared += 1;
      if (g.status === 'mismatch') measures.fields_mismatched += 1;
      if (g.status === 'missing') measures.fields_missing += 1;
    }
    if (hasMismatch(gaps)) reasons.add('subject_mismatch');
    if (gaps.some((g) => g.status === 'missing' && g.missing[0] === g.paths[1])) reasons.add('subject_missing');
  }
  if (measures.fields_compared + measures.fields_missing === 0) return null;
  return { type: 'data_comparison', status: reasons.size ? 'attention' : 'ok', reasons: [...reasons], measures };
}

/** The questionnaire's points against the flow's review threshold, and its flags (names never shown here). */
export function questionnaireReport(score: { points: number; flags: readonly string[] } | null, flow: FlowDefinition): CheckReport | null {
  if (!flow.steps.includes('questionnaire') || !score) return null;
  const reasons: CheckReason[] = [];
  if (score.points >= flow.questionnaire.review_threshold) reasons.push('questionnaire_threshold');
  if (score.flags.length > 0) reasons.push('questionnaire_flagged');
  return {
    type: 'questionnaire',
    status: reasons.length ? 'attention' : 'ok',
    reasons,
    measures: { points: score.points, threshold: flow.questionnaire.review_threshold, flags: score.flags.length },
  };
}
