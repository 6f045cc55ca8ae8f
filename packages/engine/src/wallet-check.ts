import type { CheckReason, CheckReport } from '@idv/domain';
import type { ReadIdentity } from './case-data.ts';
import type { CaseInput, WalletInput } from './case-types.ts';
import { ageInYears } from './document/validity.ts';

/**
 * The wallet's part of a case (docs/wallet.md#the-wallet-in-a-case), pure: the presentation was
 * verified when it arrived (issuer, validity, revocation, device binding, claims), so the check
 * reports what that verification established, or the refusal when the step ended without an
 * accepted presentation. The claims become the identity read, exactly as a document's reading,
 * and the flow's minimum age is judged on them as on a document's date of birth.
 */

const DAY = 86_400_000;

export interface WalletPart {
  reports: CheckReport[];
  read: ReadIdentity | null;
}

/** True when the flow's wallet step produced what the checks judge (not when the person chose the document). */
export function wantsWallet(input: CaseInput): boolean {
  return input.flow.steps.includes('wallet') && Boolean(input.wallet) && !input.wallet!.fellBack;
}

export function walletPart(input: CaseInput): WalletPart {
  if (!wantsWallet(input)) return { reports: [], read: null };
  const w = input.wallet!;
  if (!w.accepted) return { reports: [refusedReport(w)], read: null };
  const a = w.accepted;
  const report: CheckReport = {
    type: 'wallet',
    status: 'ok',
    reasons: [],
    measures: {
      presentation_accepted: 1,
      credential_mdoc: a.format === 'mso_mdoc' ? 1 : 0,
      issuer_trusted: 1,
      device_binding_valid: 1,
      status_checked: a.statusChecked ? 1 : 0,
      claims_disclosed: a.claimsDisclosed,
      credential_days_left: Math.max(0, Math.floor((a.validUntil.getTime() - input.now.getTime()) / DAY)),
      presentations_refused: w.refusals.length,
    },
  };
  const reports = [report];
  const age = ageReport(input, a.claims);
  if (age) reports.push(age);
  return { reports, read: readOf(a.claims) };
}

/** The step ended on refusals: the latest one's reason; a status list out of reach is no verdict on the person (attention). */
function refusedReport(w: WalletInput): CheckReport {
  const reason: CheckReason = w.refusals[0] ?? 'wallet_presentation_invalid';
  return {
    type: 'wallet',
    status: reason === 'wallet_status_unavailable' ? 'attention' : 'failed',
    reasons: [reason],
    measures: { presentation_accepted: 0, presentations_refused: w.refusals.length },
  };
}

/** The flow's minimum age on the wallet's date of birth, or on its age_over_18 attestation when that is all that was asked. */
function ageReport(input: CaseInput, claims: NonNullable<WalletInput['accepted']>['claims']): CheckReport | null {
  const minAge = input.flow.checks.min_age;
  if (minAge <= 0) return null;
  const measures = { birth_date_present: claims.birth_date ? 1 : 0, minimum_age: minAge };
  const today = input.now.toISOString().slice(0, 10);
  let reason: CheckReason | null = null;
  if (claims.birth_date) {
    const valid = /^\d{4}-\d{2}-\d{2}$/.test(claims.birth_date) && claims.birth_date <= today;
    if (!valid || ageInYears(claims.birth_date, today) > 130) reason = 'birth_date_implausible';
    else if (ageInYears(claims.birth_date, today) < minAge) reason = 'under_minimum_age';
  } else if (claims.age_over_18 !== true || minAge > 18) {
    // Without a date of birth, only an attested age of 18 answers a minimum age of 18 or less.
    reason = 'under_minimum_age';
  }
  return { type: 'document_validity', status: reason ? 'failed' : 'ok', reasons: reason ? [reason] : [], measures };
}

/** The claims in the shape of a document's reading (`read.*` of the personal-data routes). */
function readOf(claims: NonNullable<WalletInput['accepted']>['claims']): ReadIdentity | null {
  const read: ReadIdentity = {
    surname: claims.surname,
    given_names: claims.given_names,
    birth_date: claims.birth_date,
    document_number: claims.document_number,
    nationality: claims.nationality,
    document_expiry_date: claims.expiry_date,
    issuing_country: claims.issuing_country,
  };
  for (const k of Object.keys(read) as (keyof ReadIdentity)[]) if (read[k] === undefined || read[k] === '') delete read[k];
  return Object.keys(read).length ? read : null;
}
