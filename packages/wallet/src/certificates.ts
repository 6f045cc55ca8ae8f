import type { CertificateFacts, VerifierIdentity } from './types.ts';

/** A self-signed P-256 certificate for the verifier (CN = name, SAN dNSName = dnsName), for the demo client or when none is configured. */
export async function generateVerifierIdentity(input: { dnsName: string; organisation: string; validDays?: number }): Promise<VerifierIdentity> {
  void input;
  throw new Error('not implemented yet');
}

/** Parses one PEM certificate (throws WalletInputError with a message safe to show on anything else). */
export function describeCertificate(pem: string): CertificateFacts {
  void pem;
  throw new Error('not implemented yet');
}
