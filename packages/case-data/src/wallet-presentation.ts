import type { WalletFormat } from '@idv/domain';

/**
 * An accepted wallet presentation as kept (wallet_requests.presentation_sealed, under the case's
 * data key): the verified claims and the facts the wallet check reports. Written by the wallet
 * routes, read by the checks runner; its portrait is the `wallet_portrait` piece named here.
 */
export interface StoredWalletPresentation {
  format: WalletFormat;
  doc_type: string;
  /** Dates ISO yyyy-mm-dd, countries ISO alpha-2 (as @idv/wallet returns them). */
  claims: Partial<Record<'given_names' | 'surname' | 'birth_date' | 'nationality' | 'issuing_country' | 'document_number' | 'expiry_date', string>> & { age_over_18?: boolean };
  issuer: { subject: string; anchorFingerprint: string };
  valid_until: string;
  status_checked: boolean;
  claims_disclosed: number;
  portrait_piece_id: string | null;
}

/** The sealing purpose of a request's presentation. */
export const walletPresentationPurpose = (requestId: string) => `wallet_presentation:${requestId}`;
