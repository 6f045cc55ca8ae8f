/**
 * @idv/wallet/testing: a test issuer and a test wallet built on the same libraries as the
 * verifier, for the tests, the sandbox and the Playwright journey. Never trusted by default.
 */
import type { CredentialFormat } from '../types.ts';

export interface TestIssuer {
  iacaPem: string;
  sdJwtIssuerPem: string;
}
export interface TestPerson {
  given_names: string;
  surname: string;
  birth_date: string;
  nationality: string;
  issuing_country: string;
  document_number: string;
  expiry_date: string;
  portrait?: Uint8Array;
}
export interface TestCredentialOptions {
  validFrom?: Date;
  validUntil?: Date;
  statusListUri?: string;
  statusIndex?: number;
}
export type Tamper = 'disclosure' | 'device_signature' | 'omit_device_signature' | 'nonce' | 'audience' | 'extra_claim';

export async function createTestIssuer(opts?: { name?: string; country?: string }): Promise<TestIssuer> {
  void opts;
  throw new Error('not implemented yet');
}

export class TestWallet {
  static async create(): Promise<TestWallet> {
    throw new Error('not implemented yet');
  }
  async addPid(issuer: TestIssuer, person: TestPerson, o?: TestCredentialOptions): Promise<void> {
    void issuer, person, o;
    throw new Error('not implemented yet');
  }
  async addMdl(issuer: TestIssuer, person: TestPerson, o?: TestCredentialOptions): Promise<void> {
    void issuer, person, o;
    throw new Error('not implemented yet');
  }
  async respond(
    request: { requestJwt: string; mode: 'cross_device' | 'dc_api'; origin?: string },
    o?: { format?: CredentialFormat; tamper?: Tamper },
  ): Promise<{ response: string }> {
    void request, o;
    throw new Error('not implemented yet');
  }
}

export async function createStatusList(issuer: TestIssuer, revokedIndexes: number[], uri: string): Promise<string> {
  void issuer, revokedIndexes, uri;
  throw new Error('not implemented yet');
}
