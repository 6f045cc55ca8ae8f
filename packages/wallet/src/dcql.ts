/**
 * The DCQL query (OpenID4VP 1.0 §6) asking only for what the flow needs: one credential query per
 * accepted credential (PID as SD-JWT VC, PID as mdoc, mDL) and a credential set saying any one of
 * them answers. Written by hand: it is a small JSON document.
 */
import { MDOC_DOCTYPES, MDOC_ELEMENTS, PID_VCT, SD_JWT_PATHS, SD_JWT_QUERY_ID } from './claims.ts';
import type { CredentialFormat, WalletClaim } from './types.ts';

export interface DcqlQuery {
  credentials: Array<{ id: string; format: CredentialFormat; meta: Record<string, unknown>; claims: Array<{ path: string[]; intent_to_retain?: boolean }> }>;
  credential_sets: Array<{ options: string[][]; required: boolean }>;
}

export function buildDcqlQuery(claims: WalletClaim[], formats: CredentialFormat[]): DcqlQuery {
  const credentials: DcqlQuery['credentials'] = [];
  if (formats.includes('dc+sd-jwt')) {
    credentials.push({ id: SD_JWT_QUERY_ID, format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] }, claims: claims.map((c) => ({ path: SD_JWT_PATHS[c] })) });
  }
  if (formats.includes('mso_mdoc')) {
    for (const { id, docType, namespace } of MDOC_DOCTYPES) {
      // The service keeps what it reads in the case's vault: intent_to_retain is true.
      credentials.push({ id, format: 'mso_mdoc', meta: { doctype_value: docType }, claims: claims.map((c) => ({ path: [namespace, MDOC_ELEMENTS[c]], intent_to_retain: true })) });
    }
  }
  return { credentials, credential_sets: [{ options: credentials.map((c) => [c.id]), required: true }] };
}
