import type { FlowDefinition } from './flow.ts';

/**
 * What a wallet request asks for, from the flow alone (data minimisation, docs/flows.md#the-wallet):
 * the identity the case's checks compare and search duplicates with, the portrait only when the
 * face step matches a selfie with it, and `age_over_18` alone when an age of 18 is all the flow
 * wants to know (no applicant step, no face, no document fallback).
 */
export const WALLET_CLAIMS = [
  'given_names',
  'surname',
  'birth_date',
  'nationality',
  'issuing_country',
  'document_number',
  'expiry_date',
  'portrait',
  'age_over_18',
] as const;
export type WalletClaimName = (typeof WALLET_CLAIMS)[number];

/** The claims of the identity read: compared with what the client declared and the person entered, and the duplicate search's key. */
const IDENTITY: readonly WalletClaimName[] = ['given_names', 'surname', 'birth_date', 'issuing_country', 'document_number', 'expiry_date'];

export function walletClaimsFor(def: FlowDefinition): WalletClaimName[] {
  const steps = def.steps;
  const ageOnly = def.checks.min_age === 18 && !steps.includes('applicant') && !steps.includes('face') && !steps.includes('document');
  if (ageOnly) return ['age_over_18'];
  const claims = new Set<WalletClaimName>(IDENTITY);
  // Applicant fields the wallet can vouch for are compared with it.
  if (steps.includes('applicant') && def.applicant.fields.some((f) => f.name === 'nationality')) claims.add('nationality');
  if (steps.includes('face')) claims.add('portrait');
  return WALLET_CLAIMS.filter((c) => claims.has(c));
}
