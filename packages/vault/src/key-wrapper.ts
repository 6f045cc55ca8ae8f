import type { MasterKeyring } from './master-keyring.ts';

/**
 * Wraps data keys under a key-encryption key that never leaves its holder. The local
 * implementation uses the master keyring from configuration; a cloud KMS (AWS KMS, GCP KMS,
 * Vault transit) implements the same two calls with its encrypt/decrypt API and the context as
 * encryption context, so no data key is ever stored in clear.
 */
export interface KeyWrapper {
  wrap(dataKey: Buffer, context: string): Promise<string>;
  unwrap(wrapped: string, context: string): Promise<Buffer>;
  /** True when `wrapped` was produced under a key that is no longer current (re-wrap it). */
  isStale(wrapped: string): boolean;
}

export class LocalKeyWrapper implements KeyWrapper {
  constructor(private readonly keyring: MasterKeyring) {}

  async wrap(dataKey: Buffer, context: string): Promise<string> {
    return this.keyring.seal(dataKey, `data_key:${context}`);
  }

  async unwrap(wrapped: string, context: string): Promise<Buffer> {
    return this.keyring.open(wrapped, `data_key:${context}`);
  }

  isStale(wrapped: string): boolean {
    return this.keyring.isStale(wrapped);
  }
}
