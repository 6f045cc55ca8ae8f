export type {
  WalletClaim,
  CredentialFormat,
  WalletRefusal,
  VerifierIdentity,
  TrustAnchor,
  CertificateFacts,
  RequestInput,
  BuiltRequest,
  VerifyInput,
  VerifiedPresentation,
  VerifyResult,
} from './types.ts';
export { WALLET_CLAIMS, WalletInputError } from './types.ts';
export { generateVerifierIdentity, describeCertificate } from './certificates.ts';
export { buildRequest } from './request.ts';
export { verifyPresentation } from './verify.ts';
